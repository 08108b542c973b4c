import { describe, expect, it } from 'vitest';
import {
  directoryTarget,
  fileTarget,
  FormatError,
  inspectResult,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  markProblems,
  node,
  Phase,
  ProblemList,
  SourceError,
  type Target,
} from '../src/index.js';
import { toyBytes, toyPlugin } from './toy.js';

const file = (bytes: Uint8Array, name = 'a.toy'): Target => fileTarget(new MemorySource(bytes, name));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('definePlugin: open, validate and inspectTarget from one parser', () => {
  it('opens a valid file through parse then reader, and reads nothing it does not need', async () => {
    const reader = await toyPlugin.open(file(toyBytes(3, [7, 8, 9])));
    expect(reader.values).toEqual([7, 8, 9]);
    expect(reader.schema.fields[0].name).toBe('v');
    expect(await toyPlugin.validate(file(toyBytes(3, [7, 8, 9])))).toEqual({
      valid: true,
      errors: [],
      warnings: [],
    });
  });

  it('open throws the first error in A2 order, not the one that stopped the parse', async () => {
    // A bad magic (recorded, phase magic) and a header cut short (thrown, phase header).
    const error = await failure(toyPlugin.open(file(new TextEncoder().encode('XOY1ab'))));
    expect(isBinscopeError(error, 'BadMagic'), String(error)).toBe(true);
    // A recorded error stops the read at the checkpoint.
    const cut = await failure(toyPlugin.open(file(toyBytes(5, [1, 2]))));
    expect(cut).toMatchObject({ code: 'Truncated', offset: 16, file: 'a.toy', format: 'toy' });
  });

  it('validate collects every problem, each once, in A2 order, and never throws for bad input', async () => {
    const report = await toyPlugin.validate(file(new TextEncoder().encode('XOY1ab')));
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => [e.code, e.offset])).toEqual([
      ['BadMagic', 0],
      ['Truncated', 6],
    ]);
  });

  it('refuses a target of the other kind with one error, in every mode', async () => {
    const folder = directoryTarget(new MemoryDirectory({ 'x.toy': toyBytes(0, []) }, 'folder'));
    const error = await failure(toyPlugin.open(folder));
    expect(error).toBeInstanceOf(FormatError);
    expect(error).toMatchObject({ code: 'BadMagic', file: 'folder', format: 'toy' });
    expect((error as FormatError).detail).toBe('TOY is a single file, not a directory');
    const report = await toyPlugin.validate(folder);
    expect(report.errors).toEqual([(error as FormatError).toProblem()]);
    const inspected = await toyPlugin.inspectTarget(folder);
    expect(inspected.valid).toBe(false);
    expect(inspected.root).toMatchObject({ name: 'folder', kind: 'file' });
    expect(inspected.located[0]).toMatchObject({ code: 'BadMagic', path: '' });
  });

  it('inspect mode draws the partial tree and marks a defect past the end on what the end cuts off', async () => {
    const result = await toyPlugin.inspectTarget(file(toyBytes(5, [1, 2])));
    expect(result.valid).toBe(false);
    expect(result.root.children?.map((c) => c.name)).toEqual(['header', 'values']);
    // Truncated at byte 16 (the end): the last value the file has, not the whole file.
    expect(result.located).toEqual([
      expect.objectContaining({ code: 'Truncated', path: 'values/value 1', indexPath: [1, 1] }),
    ]);
  });

  it('inspect mode shows a file it cannot parse at all as one node, marked', async () => {
    const result = await toyPlugin.inspectTarget(file(new TextEncoder().encode('TO')));
    expect(result.root).toMatchObject({ name: 'a.toy', kind: 'file', length: 2 });
    expect(result.located.map((p) => [p.code, p.path])).toEqual([
      ['BadMagic', ''],
      ['Truncated', ''],
    ]);
  });

  it('validate reports a failing source as a SourceError entry; a bug is thrown, never reported', async () => {
    const failing = (error: Error) =>
      fileTarget({ size: 100, name: 'gone.toy', read: () => Promise.reject(error) });
    const report = await toyPlugin.validate(
      failing(new SourceError('gone.toy: connection dropped', 'gone.toy')),
    );
    expect(report).toEqual({
      valid: false,
      errors: [
        { code: 'SourceError', message: 'gone.toy: connection dropped', file: 'gone.toy', format: 'toy' },
      ],
      warnings: [],
    });
    await expect(toyPlugin.inspectTarget(failing(new SourceError('dropped', 'gone.toy')))).rejects.toThrow(
      'dropped',
    );
    await expect(toyPlugin.validate(failing(new TypeError('a bug')))).rejects.toThrow(TypeError);
  });
});

describe('ProblemList.capture records an error once', () => {
  it('an error recorded with error() and rethrown up the stack is not recorded again', () => {
    const problems = new ProblemList('x', { mode: 'validate' });
    const error = problems.error('Truncated', 'cut', { offset: 4, phase: Phase.bounds });
    problems.capture(error);
    problems.capture(error);
    problems.capture(new FormatError('Truncated', 'cut', { offset: 4 }));
    expect(problems.report().errors).toHaveLength(2);
  });
});

describe('markProblems: every problem on the node it is about', () => {
  const archive = () =>
    node('cells', 'folder', 0, 0, {
      children: [
        node('header.sch', 'file', 0, 40, {
          file: 'header.sch',
          children: [node('magic', 'field', 0, 4), node('arrays', 'table', 4, 36)],
        }),
        node('var_features/', 'folder', 0, 0, {
          children: [node('labels.json', 'file', 0, 10, { file: 'var_features/labels.json' })],
        }),
      ],
    });
  const mark = (root: ReturnType<typeof archive>, problem: Parameters<typeof markProblems>[1]['errors'][0]) =>
    inspectResult(root, { valid: false, errors: [problem], warnings: [] }).located[0]?.path;

  it('an offset inside a node of its file: the deepest such node', () => {
    expect(mark(archive(), { code: 'BadMagic', message: 'm', offset: 2, file: 'header.sch' })).toBe(
      'header.sch/magic',
    );
  });

  it('an offset where a short file ends: the structure it cuts off, not another file at that offset', () => {
    expect(mark(archive(), { code: 'Truncated', message: 't', offset: 40, file: 'header.sch' })).toBe(
      'header.sch/arrays',
    );
    expect(mark(archive(), { code: 'Truncated', message: 't', offset: 99, file: 'header.sch' })).toBe(
      'header.sch/arrays',
    );
  });

  it('no offset: the file node itself; a file the tree lacks: its folder; else the root', () => {
    expect(mark(archive(), { code: 'InvalidValue', message: 'j', file: 'var_features/labels.json' })).toBe(
      'var_features//labels.json',
    );
    expect(mark(archive(), { code: 'Truncated', message: 'x', file: 'var_features/missing.json' })).toBe(
      'var_features/',
    );
    // With an offset (in the missing file), still its folder, not a node of the root's own
    // file that happens to hold that offset (a list of the archive's files, after the folder).
    const listed = archive();
    listed.children?.push(node('files', 'list', 0, 0));
    expect(
      mark(listed, { code: 'Truncated', message: 'y', offset: 0, file: 'var_features/missing.json' }),
    ).toBe('var_features/');
    expect(mark(archive(), { code: 'InvalidValue', message: 'x', file: 'elsewhere.bin' })).toBe('');
  });

  it('a problem on a node whose children load lazily is marked on the loaded child holding it, down to its leaf', async () => {
    const rows = (start: number, end: number) =>
      Array.from({ length: end - start }, (_, k) => {
        const at = 100 + (start + k) * 10;
        return node(`row ${start + k}`, 'row', at, 10, {
          children: [node('a', 'field', at, 4), node('b', 'field', at + 4, 6)],
        });
      });
    const root = node('f', 'file', 0, 200, {
      children: [node('rows', 'table', 100, 100, { lazy: { count: 10, load: async (s, e) => rows(s, e) } })],
    });
    const problem = { code: 'InvalidValue', message: 'bad b', offset: 136, file: 'f' };
    const cut = { code: 'Truncated', message: 'cut', offset: 200, file: 'f' };
    const result = inspectResult(root, { valid: false, errors: [problem, cut], warnings: [] });
    expect(result.located.map((l) => l.path)).toEqual(['rows', 'rows']);
    const table = root.children![0];
    const loaded = await table.lazy!.load(2, 5);
    // Row 3 holds offset 136; its field b is the deepest node there.
    expect(loaded.map((r) => r.problems)).toEqual([undefined, undefined, undefined]);
    expect(loaded[1].children!.map((c) => c.problems)).toEqual([undefined, [problem]]);
  });

  it('leaves alone a problem the parser already marked', () => {
    const root = archive();
    const problem = { code: 'Truncated', message: 't', offset: 40, file: 'header.sch' };
    const folder = root.children?.[1];
    if (!folder) throw new Error('no folder');
    folder.problems = [problem];
    markProblems(root, { valid: false, errors: [{ ...problem }], warnings: [] });
    expect(root.children?.[0]?.children?.[1]?.problems).toBeUndefined();
  });
});
