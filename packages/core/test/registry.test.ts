import { describe, expect, it } from 'vitest';
import { info, stubPlugin } from './stub.js';
import {
  createRegistry,
  directoryTarget,
  type FormatInfo,
  fileTarget,
  FormatError,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  node,
  nodesAt,
  ProblemList,
  nearMisses,
  rankByMagic,
  toJsonValue,
  toPlainTree,
  withLocation,
} from '../src/index.js';

function fakePlugin(id: string, magic: string, extra: Partial<FormatInfo> = {}) {
  return stubPlugin(info(id, magic, extra));
}

const encoder = new TextEncoder();

describe('registry and detection', () => {
  const short = fakePlugin('aa', 'AB');
  const long = fakePlugin('bb', 'ABCD');
  const registry = createRegistry([short, long]);

  it('ranks longer signatures first and explains the choice', async () => {
    const detection = await registry.detect(fileTarget(new MemorySource(encoder.encode('ABCDEFG'), 'x.bin')));
    expect(detection.format).toBe('bb');
    expect(detection.candidates.map((c) => c.id)).toEqual(['bb', 'aa']);
    expect(detection.candidates[0].reason).toContain('ABCD');
    expect(detection.info?.id).toBe('bb');
    expect(await registry.load('bb')).toBe(long);
  });

  it('breaks ties by extension', async () => {
    const tie = createRegistry([fakePlugin('one', 'ZZ'), fakePlugin('two', 'ZZ')]);
    const detection = await tie.detect(fileTarget(new MemorySource(encoder.encode('ZZZ'), 'data.two')));
    expect(detection.format).toBe('two');
  });

  it('detects a detection-only entry with its role, and will not load a plugin for it', async () => {
    const tar = new Uint8Array(1024);
    tar.set(encoder.encode('ustar'), 257);
    const target = fileTarget(new MemorySource(tar, 'x.tar'));
    // Core itself knows no container format: tar is the entry a package declares.
    expect((await registry.detect(target)).format).toBeNull();
    const shard = info('tar', '', { role: 'container', magic: [{ offset: 257, bytes: 'ustar' }] });
    const withTar = createRegistry([short, long, shard]);
    const detection = await withTar.detect(target);
    expect(detection.format).toBe('tar');
    expect(detection.role).toBe('container');
    expect(detection.candidates[0]).toMatchObject({ id: 'tar', role: 'container' });
    const error = await withTar.load('tar').catch((e: unknown) => e);
    expect(isBinscopeError(error, 'DetectionOnly'), String(error)).toBe(true);
    expect(String(error)).toContain('detected only (role container)');
  });

  it('says unknown with the first bytes in hex', async () => {
    const detection = await registry.detect(
      fileTarget(new MemorySource(new Uint8Array([0xde, 0xad, 0xbe, 0xef]))),
    );
    expect(detection.format).toBeNull();
    expect(detection.headHex).toBe('deadbeef');
  });

  it('asks directory plugins to detect directories', async () => {
    const dirPlugin = fakePlugin('dir', 'x', {
      kind: 'directory',
      magic: [],
      detect: async (target) =>
        target.kind === 'directory' && (await target.directory.has('header.sch')) ? 1 : 0,
    });
    const withDir = createRegistry([short, dirPlugin]);
    const yes = await withDir.detect(
      directoryTarget(new MemoryDirectory({ 'header.sch': new Uint8Array(4) })),
    );
    expect(yes.format).toBe('dir');
    const no = await withDir.detect(directoryTarget(new MemoryDirectory({ 'other.txt': new Uint8Array(4) })));
    expect(no.format).toBeNull();
  });

  it('refuses a plugin written for another version of the contract, naming it', () => {
    const old = { ...fakePlugin('zz', 'ZZZZ'), specificationVersion: 'v1' } as unknown as typeof long;
    expect(() => createRegistry([long, old])).toThrow(
      'plugin "zz" implements specification "v1"; this @binscope/core supports specification 2: a v1 plugin',
    );
    const future = { ...fakePlugin('zz', 'ZZZZ'), specificationVersion: 3 } as unknown as typeof long;
    expect(() => createRegistry([future])).toThrow(
      /implements specification 3; .* supports specification 2$/,
    );
    const error = (() => {
      try {
        createRegistry([future]);
      } catch (e) {
        return e;
      }
    })();
    expect(isBinscopeError(error, 'UnsupportedSpecification')).toBe(true);
    expect(() => createRegistry([long])).not.toThrow();
  });

  it('rankByMagic needs no plugin code', () => {
    expect(rankByMagic([long], encoder.encode('ABCD'))[0].id).toBe('bb');
    expect(rankByMagic([long], encoder.encode('ABC'))).toEqual([]);
  });
});

describe('near misses', () => {
  const nine = fakePlugin('nine', 'ABCDEFGHI');
  const registry = createRegistry([nine, fakePlugin('two', 'QZ')]);
  const detect = (text: string, name = 'x.bin') =>
    registry.detect(fileTarget(new MemorySource(encoder.encode(text), name)));

  it('names the format whose signature a file mostly carries, and the first byte that differs', async () => {
    const d = await detect('ABCDE?GHI rest');
    expect(d.format).toBeNull();
    expect(d.nearMiss).toMatchObject({
      id: 'nine',
      offset: 5,
      expected: 0x46,
      actual: 0x3f,
      matched: 8,
      length: 9,
    });
    expect(d.nearMiss?.message).toBe(
      'BadMagic for NINE: byte 5 is 0x3f, expected 0x46 (8 of 9 signature bytes match)',
    );
  });

  it('names no format when fewer than half the bytes match or the signature is short', async () => {
    expect((await detect('ABCD?????')).nearMiss).toBeUndefined();
    expect((await detect('ABCD?FGHI')).nearMiss?.id).toBe('nine');
    // A 2-byte signature never names a format by bytes alone: one stray byte would.
    expect((await detect('Q?')).nearMiss).toBeUndefined();
  });

  it('names the format of the extension even when no byte matches, and a file cut inside the signature', async () => {
    expect((await detect('zz', 'data.two')).nearMiss).toMatchObject({
      id: 'two',
      offset: 0,
      byExtension: true,
    });
    const cut = await detect('ABCDEF', 'x.bin');
    expect(cut.nearMiss).toMatchObject({ id: 'nine', offset: 6, actual: null });
    expect(cut.nearMiss?.detail).toContain('the file ends before byte 6');
  });

  it('is not reported when a signature matches', async () => {
    expect((await detect('ABCDEFGHI')).nearMiss).toBeUndefined();
    expect(nearMisses([nine], encoder.encode('ABCDEFGHI'))).toEqual([]);
  });
});

describe('errors', () => {
  it('keeps a message that itself contains " (at " whole in detail and toProblem', () => {
    const message = 'column "x (at 3)" has 2 rows, expected 4';
    const error = new FormatError('CountMismatch', message, { offset: 7, file: 'a.scbf', format: 'scbf' });
    expect(error.detail).toBe(message);
    expect(error.toProblem().message).toBe(message);
    const relocated = withLocation(new FormatError('CountMismatch', message, { offset: 7 }), {
      file: 'b.scbf',
    });
    expect((relocated as FormatError).detail).toBe(message);
    // Without a location there is no suffix to tell apart from the message's own " (at ".
    expect(new FormatError('InvalidValue', message).detail).toBe(message);
  });

  it('FormatError carries code, offset, file and format and a readable message', () => {
    const error = new FormatError('CountMismatch', 'rows disagree', {
      offset: 12,
      file: 'a.scbf',
      format: 'scbf',
    });
    expect(error.message).toBe('rows disagree (at a.scbf, byte 12)');
    expect(error.detail).toBe('rows disagree');
    expect(isBinscopeError(error, 'FormatError')).toBe(true);
    expect(isBinscopeError(error, 'BadMagic')).toBe(false);
    expect(isBinscopeError(new RangeError('x'), 'FormatError')).toBe(false);
    expect(error.toProblem()).toEqual({
      code: 'CountMismatch',
      message: 'rows disagree',
      offset: 12,
      file: 'a.scbf',
      format: 'scbf',
    });
  });

  it('withLocation fills in a missing file without losing the offset', () => {
    const inner = new FormatError('Truncated', 'short', { offset: 3 });
    const outer = withLocation(inner, { file: 'f', format: 'x' }) as FormatError;
    expect(outer.file).toBe('f');
    expect(outer.offset).toBe(3);
  });

  it('ProblemList records FormatErrors and rethrows bugs', async () => {
    const problems = new ProblemList('scbf');
    await problems.attempt(() => {
      throw new FormatError('BadMagic', 'nope', { offset: 0 });
    });
    problems.warn('NewerMinor', 'minor 3 is newer');
    const report = problems.report();
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ code: 'BadMagic', offset: 0, format: 'scbf' });
    expect(report.warnings).toHaveLength(1);
    await expect(
      problems.attempt(() => {
        throw new TypeError('bug');
      }),
    ).rejects.toThrow('bug');
  });
});

describe('inspection tree', () => {
  const tree = node('file', 'file', 0, 100, {
    children: [
      node('header', 'header', 0, 16, { children: [node('magic', 'field', 0, 4, { value: 'SCDL' })] }),
      node('data', 'block', 16, 84, { file: 'data.npy' }),
    ],
  });
  it('nodesAt finds the deepest owner of a byte', () => {
    expect(nodesAt(tree, 2).map((n) => n.name)).toEqual(['file', 'header', 'magic']);
    expect(nodesAt(tree, 20).map((n) => n.name)).toEqual(['file', 'data']);
    expect(nodesAt(tree, 20, 'other').map((n) => n.name)).toEqual(['file']);
  });
  it('toPlainTree cuts at a depth and counts lazy children', () => {
    const lazyTree = node('rows', 'table', 0, 10, { lazy: { count: 5, load: async () => [] } });
    expect(toPlainTree(lazyTree)).toEqual({
      name: 'rows',
      kind: 'table',
      offset: 0,
      length: 10,
      childCount: 5,
    });
    expect(toPlainTree(tree, 1).children![0].childCount).toBe(1);
  });
});

describe('toJsonValue', () => {
  it('applies the A5 convention', () => {
    expect(
      toJsonValue({
        a: 2n ** 64n - 1n,
        b: 5n,
        c: Number.NaN,
        d: -Infinity,
        e: new Float32Array([0.5]),
        f: undefined,
      }),
    ).toEqual({ a: '18446744073709551615', b: 5, c: 'NaN', d: '-Infinity', e: [0.5] });
  });
});
