import { describe, expect, it } from 'vitest';
import {
  type ByteSource,
  CountingSource,
  FormatError,
  formatErrors,
  inspectResult,
  MemorySource,
  node,
  Phase,
  ProblemList,
  type ReadRequest,
  readExact,
} from '../src/index.js';

describe('ProblemList: one check order for every format (A2)', () => {
  it('ranks errors by phase, then by discovery, whatever order the parser found them in', () => {
    const log = new ProblemList('x', { file: 'f.x' });
    log.error('DecompressError', 'block 0 does not inflate', { offset: 90, phase: Phase.payload });
    log.error('OutOfBounds', 'block 1 is past the end', { offset: 70, phase: Phase.bounds });
    log.error('Truncated', 'block 2 is cut', { offset: 80, phase: Phase.bounds });
    expect(log.first()).toMatchObject({ code: 'OutOfBounds', offset: 70, file: 'f.x', format: 'x' });
    expect(log.report().errors.map((e) => e.code)).toEqual(['OutOfBounds', 'Truncated', 'DecompressError']);
    // The report is the public Problem shape: no internal ranks.
    expect(log.report().errors[0]).not.toHaveProperty('phase');
  });

  it('stops a strict read at a checkpoint and lets validate and inspect go on', () => {
    for (const mode of ['read', 'validate', 'inspect'] as const) {
      const log = new ProblemList('x', { mode });
      log.error('InvalidValue', 'bad flag', { offset: 3, phase: Phase.header });
      const pass = () => log.checkpoint();
      if (mode === 'read') expect(pass).toThrow(FormatError);
      else expect(pass).not.toThrow();
    }
  });

  it('keeps one bad part from stopping another: checkpoint(scope) only sees that part', () => {
    const log = new ProblemList('x', { mode: 'read' });
    log.error('DecompressError', 'column a', { phase: Phase.payload, scope: 'a' });
    expect(() => log.checkpoint('b')).not.toThrow();
    expect(() => log.checkpoint('a')).toThrow(/column a/);
  });

  it('forks an empty list of the same format, file and mode for a part parsed on its own', () => {
    const log = new ProblemList('x', { mode: 'read', file: 'f.x' });
    log.error('InvalidValue', 'the file header', { offset: 1, phase: Phase.header });
    const part = log.fork();
    expect(part.errors).toEqual([]);
    part.error('Truncated', 'a part', { offset: 9, phase: Phase.bounds });
    expect(log.errors).toHaveLength(1);
    expect(part.mode).toBe('read');
    expect(() => part.checkpoint()).toThrow(/a part/);
    expect(part.first()).toMatchObject({ file: 'f.x', format: 'x' });
    const other = log.fork({ mode: 'validate', file: 'g.x' });
    other.error('Truncated', 'elsewhere', { offset: 2 });
    expect(() => other.checkpoint()).not.toThrow();
    expect(other.first()).toMatchObject({ file: 'g.x', format: 'x' });
  });

  it('records what a check throws, with the phase it belongs to', async () => {
    const log = new ProblemList('x');
    const value = await log.attempt(
      () => {
        throw new FormatError('Truncated', 'cut', { offset: 5 });
      },
      { phase: Phase.bounds },
    );
    expect(value).toBeUndefined();
    expect(log.first()).toMatchObject({ code: 'Truncated', phase: Phase.bounds, format: 'x' });
    await expect(log.attempt(() => Promise.reject(new TypeError('bug')))).rejects.toThrow(TypeError);
  });
});

it('formatErrors: one factory, one argument order (code, message, offset, file)', () => {
  const fail = formatErrors('mldf', 'a.mldf');
  const error = fail('Truncated', 'header ends early', 12);
  expect(error).toMatchObject({ code: 'Truncated', offset: 12, file: 'a.mldf', format: 'mldf' });
  expect(error.detail).toBe('header ends early');
  expect(fail('OutOfBounds', 'x', 1, 'shard.tar').file).toBe('shard.tar');
});

describe('inspectResult: every problem is marked on a node and has a path', () => {
  const tree = () =>
    node('f', 'file', 0, 100, {
      children: [
        node('header', 'header', 0, 16, { children: [node('version', 'field', 8, 2)] }),
        node('data', 'block', 16, 84),
      ],
    });

  it('puts an unmarked problem on the deepest node over its offset', () => {
    const result = inspectResult(tree(), {
      valid: false,
      errors: [{ code: 'UnsupportedVersion', message: 'v9', offset: 9 }],
      warnings: [{ code: 'W1', message: 'odd', offset: 50 }],
    });
    expect(result.root.children?.[0]?.children?.[0]?.problems?.[0]?.code).toBe('UnsupportedVersion');
    expect(result.located).toEqual([
      expect.objectContaining({
        code: 'UnsupportedVersion',
        severity: 'error',
        path: 'header/version',
        indexPath: [0, 0],
      }),
      expect.objectContaining({ code: 'W1', severity: 'warning', path: 'data', indexPath: [1] }),
    ]);
  });

  it('lists a defect marked on two nodes once, at the first, and in check order', () => {
    const root = tree();
    const cut = { code: 'Truncated', message: 'data runs past the end', offset: 8 };
    const late = { code: 'InvalidValue', message: 'bad flag', offset: 20 };
    (root.children as NonNullable<typeof root.children>)[1].problems = [late, cut];
    (root.children as NonNullable<typeof root.children>)[0].problems = [cut];
    const result = inspectResult(root, { valid: false, errors: [cut, late], warnings: [] });
    expect(result.located.map((p) => [p.code, p.path])).toEqual([
      ['Truncated', 'header'],
      ['InvalidValue', 'data'],
    ]);
  });

  it('keeps a mark the parser made and does not mark it twice', () => {
    const root = tree();
    const problem = { code: 'Truncated', message: 'cut', offset: 99 };
    const header = root.children?.[0];
    if (!header) throw new Error('no header');
    header.problems = [problem];
    const result = inspectResult(root, { valid: false, errors: [{ ...problem }], warnings: [] });
    expect(result.located).toHaveLength(1);
    expect(result.located[0]?.path).toBe('header');
  });
});

describe('one read method', () => {
  /** A source that answers synchronously and remembers each request it was given. */
  const recordingSource = () => {
    const memory = new MemorySource(
      new Uint8Array(64).map((_, i) => i),
      'fast',
    );
    const requests: Array<ReadRequest | undefined> = [];
    const source: ByteSource = {
      size: 64,
      name: 'fast',
      read: (offset, length, request) => {
        requests.push(request);
        return memory.read(offset, length, request);
      },
    };
    return { source, requests };
  };

  it('CountingSource hands the request on as made, so wrapping a source keeps its fast path', () => {
    const { source, requests } = recordingSource();
    const counting = new CountingSource(source);
    const into = new Uint8Array(4);
    const request = { into, defer: true };
    expect(counting.read(10, 4, request)).toBe(into);
    expect(into).toEqual(new Uint8Array([10, 11, 12, 13]));
    expect(requests).toEqual([request]);
    expect(counting.bytesRead).toBe(4);
  });

  it('readExact answers synchronously for a synchronous source and reports a short read as Truncated', async () => {
    const { source } = recordingSource();
    expect(readExact(source, 0, 8)).not.toBeInstanceOf(Promise);
    const liar = (sync: boolean): ByteSource => ({
      size: 10,
      name: 'liar',
      read: () => (sync ? new Uint8Array(2) : Promise.resolve(new Uint8Array(2))),
    });
    expect(() => readExact(liar(true), 0, 8)).toThrow(expect.objectContaining({ code: 'Truncated' }));
    await expect(readExact(liar(false), 0, 8)).rejects.toMatchObject({ code: 'Truncated', file: 'liar' });
  });
});
