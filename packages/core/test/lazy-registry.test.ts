import { describe, expect, it } from 'vitest';
import { info, stubPlugin } from './stub.js';
import {
  type AnyFormatPlugin,
  createRegistry,
  DETECTION_SCORE,
  directoryTarget,
  type FormatInfo,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  magicScore,
} from '../src/index.js';

function pluginOf(format: FormatInfo): AnyFormatPlugin {
  return stubPlugin(format);
}

/** A lazy entry whose loader counts its calls, as `() => import('@binscope/<id>')` would run. */
function counted(format: FormatInfo, loaded: AnyFormatPlugin = pluginOf(format)) {
  const calls = { count: 0 };
  const entry = {
    ...format,
    load: async () => {
      calls.count++;
      return loaded;
    },
  };
  return { entry, calls };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('lazy registry', () => {
  it('detects by FormatInfo alone and imports a parser only when asked, once', async () => {
    const aa = counted(info('aa', 'AAAA'));
    const bb = counted(info('bb', 'BBBBBB'));
    const registry = createRegistry([aa.entry, bb.entry]);
    const detection = await registry.detect(fileTarget(new MemorySource(bytes('BBBBBBxx'), 'x.bin')));
    expect(detection.format).toBe('bb');
    expect(detection.info?.title).toBe('BB');
    expect(aa.calls.count + bb.calls.count).toBe(0);
    expect(registry.loadedIds()).toEqual([]);

    const [first, second] = await Promise.all([registry.load('bb'), registry.load('bb')]);
    expect(first).toBe(second);
    expect(first.id).toBe('bb');
    expect(bb.calls.count).toBe(1);
    expect(aa.calls.count).toBe(0);
    expect(registry.loadedIds()).toEqual(['bb']);
  });

  it('runs a FormatInfo detect() for a directory without loading its parser', async () => {
    const dir = counted(
      info('dir', 'DDDD', {
        kind: 'directory',
        detect: async (target) =>
          target.kind === 'directory' && (await target.directory.has('marker')) ? 1 : 0,
        expectedFiles: async () => ['marker', 'data.bin'],
      }),
    );
    const registry = createRegistry([dir.entry]);
    const folder = new MemoryDirectory({ marker: new Uint8Array(1) });
    const d = await registry.detect(directoryTarget(folder));
    expect(d.format).toBe('dir');
    expect(d.role).toBe('format');
    // The files a folder format expects are metadata too: an app asks before any parser loads.
    expect(await registry.info('dir')?.expectedFiles?.(folder)).toEqual(['marker', 'data.bin']);
    expect(dir.calls.count).toBe(0);
  });

  it("keeps a detection-only entry's howToRead, the advice apps show for it", async () => {
    const howToRead = 'read it through its index: make one with binscope index';
    const registry = createRegistry([{ ...info('cc', 'CCCC'), role: 'container', howToRead }]);
    const d = await registry.detect(fileTarget(new MemorySource(bytes('CCCCxx'), 'x.cc')));
    expect(d).toMatchObject({ format: 'cc', role: 'container' });
    expect(d.info?.howToRead).toBe(howToRead);
    expect(registry.info('cc')?.howToRead).toBe(howToRead);
  });

  it('mixes eager plugins and lazy entries', async () => {
    const eager = pluginOf(info('ee', 'EEEE'));
    const lazy = counted(info('ll', 'LLLL'));
    const registry = createRegistry([eager, lazy.entry]);
    expect(registry.formats.map((f) => f.id)).toEqual(['ee', 'll']);
    expect(registry.loadedIds()).toEqual(['ee']);
    expect(await registry.load('ee')).toBe(eager);
    expect((await registry.detect(fileTarget(new MemorySource(bytes('LLLL'))))).format).toBe('ll');
    expect(lazy.calls.count).toBe(0);
  });

  it('refuses a loaded plugin whose id or specification differs from its FormatInfo', async () => {
    const wrongId = counted(info('aa', 'AAAA'), pluginOf(info('zz', 'AAAA')));
    const future = {
      ...pluginOf(info('bb', 'BBBB')),
      specificationVersion: 3,
    } as unknown as AnyFormatPlugin;
    const wrongVersion = counted(info('bb', 'BBBB'), future);
    const registry = createRegistry([wrongId.entry, wrongVersion.entry]);
    const a = await registry.load('aa').catch((e: unknown) => e);
    expect(isBinscopeError(a, 'PluginMismatch')).toBe(true);
    expect((a as Error).message).toContain('returned "zz"');
    const b = await registry.load('bb').catch((e: unknown) => e);
    expect(isBinscopeError(b, 'PluginMismatch')).toBe(true);
    expect((b as Error).message).toContain('(specification 3), expected "bb" (specification 2)');
    expect(registry.loadedIds()).toEqual([]);
  });

  it('turns a failed import into a typed error and lets a later call retry', async () => {
    let fail = true;
    const format = info('aa', 'AAAA');
    const registry = createRegistry([
      {
        ...format,
        load: async () => {
          if (fail) throw new Error('Cannot find module @binscope/aa\nstack...');
          return pluginOf(format);
        },
      },
    ]);
    const error = await registry.load('aa').catch((e: unknown) => e);
    expect(isBinscopeError(error, 'PluginLoadFailed')).toBe(true);
    expect((error as Error).message).toBe('cannot load the aa parser: Cannot find module @binscope/aa');
    fail = false;
    expect((await registry.load('aa')).id).toBe('aa');
  });

  it('names the known formats for an unknown id', async () => {
    const registry = createRegistry([counted(info('aa', 'AAAA')).entry]);
    const error = await registry.load('nope').catch((e: unknown) => e);
    expect(isBinscopeError(error, 'UnknownFormat')).toBe(true);
    expect((error as Error).message).toBe('no such format: nope (known: aa)');
  });
});

describe('one score scale', () => {
  it('orders the named levels and keeps every full signature between magic and magicAndStructure', () => {
    const levels = Object.values(DETECTION_SCORE);
    expect(levels).toEqual([...levels].sort((a, b) => a - b));
    for (const length of [1, 4, 8, 9, 16, 64]) {
      for (const ext of [false, true]) {
        const score = magicScore(length, ext);
        expect(score).toBeGreaterThanOrEqual(DETECTION_SCORE.magic);
        expect(score).toBeLessThan(DETECTION_SCORE.magicAndStructure);
      }
    }
    expect(magicScore(9, false)).toBeGreaterThan(magicScore(8, true));
  });

  it('puts magic scores and detect() confidences on one scale, a full signature over a partial one', async () => {
    const partial = info('pp', 'PPPP', {
      magic: [],
      detect: async (_t, head) => (head[0] === 0x50 ? DETECTION_SCORE.partialMagic : 0),
    });
    const full = info('ff', 'PQ');
    const registry = createRegistry([partial, full].map((f) => pluginOf(f)));
    const d = await registry.detect(fileTarget(new MemorySource(bytes('PQ'), 'x.bin')));
    expect(d.candidates.map((c) => c.id)).toEqual(['ff', 'pp']);
    for (const c of d.candidates) expect(c.score).toBeLessThanOrEqual(1);
  });

  it('scores near misses below every detection: the extension first, then the share of signature bytes', async () => {
    const nine = pluginOf(info('nine', 'ABCDEFGHI'));
    const two = pluginOf(info('two', 'QZ'));
    const registry = createRegistry([nine, two]);
    const mostBytes = await registry.detect(fileTarget(new MemorySource(bytes('ABCDE?GHI'), 'x.bin')));
    expect(mostBytes.nearMiss?.score).toBeCloseTo(0.088, 3);
    // 8 of 9 bytes of one format lose to the extension of another.
    const both = await registry.detect(fileTarget(new MemorySource(bytes('ABCDE?GHI'), 'x.two')));
    expect(both.nearMiss?.id).toBe('two');
    expect(both.nearMiss?.score).toBeGreaterThanOrEqual(DETECTION_SCORE.extension);
    expect(both.nearMiss?.score).toBeLessThan(DETECTION_SCORE.partialMagic);
    expect(mostBytes.nearMiss?.score).toBeLessThan(DETECTION_SCORE.extension);
  });

  it('clamps a detect() answer off the scale', async () => {
    const loud = info('ll', 'LLLL', { magic: [], detect: async () => 7 });
    const registry = createRegistry([pluginOf(loud)]);
    const d = await registry.detect(fileTarget(new MemorySource(bytes('x'))));
    expect(d.candidates[0].score).toBe(1);
  });
});
