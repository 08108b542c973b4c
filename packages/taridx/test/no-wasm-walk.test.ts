import { FileListDirectory, isBinscopeError, MemoryDirectory } from '@binscope/core';
import { type TarEntry, type TarFormat, tarBytes } from '@binscope/testkit';
import { describe, expect, it, vi } from 'vitest';
import { headerCheck } from '../src/header-wasm.js';
import { indexShards } from '../src/index.js';

// Where WebAssembly SIMD is missing, the walk of synchronous sources checks every header in
// JavaScript. This file's module state is its own: the header module is never compiled here.
vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);

const enc = new TextEncoder();

function fold(format: TarFormat): Uint8Array[] {
  const entries = (shard: number): TarEntry[] =>
    Array.from({ length: 40 }, (_, i) => ({
      name: `${i % 9 === 4 ? `${'deep/'.repeat(25)}` : 'd/'}s${shard}_${i >> 1}.${i % 2 ? 'json' : 'jpg'}`,
      data: new Uint8Array(i % 7 === 3 ? 5000 : i % 5).fill(i),
    }));
  return [tarBytes(entries(0), format), tarBytes(entries(1), format)];
}

describe('the header walk without WebAssembly', () => {
  it('has no header module', () => {
    expect(headerCheck()).toBeUndefined();
  });

  it('indexes memory shards to the bytes the windowed walk of Files gives', async () => {
    for (const format of ['ustar', 'gnu', 'pax'] as const) {
      const [a, b] = fold(format);
      const memory = await indexShards({
        directory: new MemoryDirectory({ 'f_0.tar': a, 'f_1.tar': b }),
        fold: 'f',
      });
      const files = new FileListDirectory([
        new File([new Uint8Array(a)], 'f_0.tar'),
        new File([new Uint8Array(b)], 'f_1.tar'),
      ]);
      const windowed = await indexShards({ directory: files, fold: 'f' });
      expect(memory.bytes, format).toEqual(windowed.bytes);
      // GNU long-name and PAX headers are rows too.
      expect(memory.rows, format).toBe(format === 'ustar' ? 80 : 88);
    }
  });

  it('still refuses a header whose checksum does not match', async () => {
    const tar = tarBytes([
      { name: 'a.jpg', data: new Uint8Array(700).fill(1) },
      { name: 'a.json', data: enc.encode('{"a":1}') },
    ]);
    tar[1536 + 1] ^= 0x01;
    const error = await indexShards({ directory: new MemoryDirectory({ 'f_0.tar': tar }), fold: 'f' }).catch(
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    expect(error).toMatchObject({ code: 'InvalidValue', offset: 1536 + 148 });
  });
});
