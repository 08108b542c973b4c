import { fileTarget, isBinscopeError, MemoryDirectory, MemorySource } from '@binscope/core';
import { tarBytes } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { indexShards, validateTaridx } from '../src/index.js';

const enc = new TextEncoder();

function shard(): Uint8Array {
  return tarBytes([
    { name: 'a.jpg', data: new Uint8Array(700).fill(1) },
    { name: 'a.json', data: enc.encode('{"a":1}') },
  ]);
}

/** The second header (at 1536) with one name byte changed and its checksum left as it was. */
function corrupt(tar: Uint8Array): Uint8Array {
  const bad = tar.slice();
  bad[1536 + 1] ^= 0x01;
  return bad;
}

describe('tar header checksums: one rule for index and validate --deep', () => {
  it('index refuses a header whose checksum does not match, naming the checksum and its offset', async () => {
    const error = await indexShards({
      directory: new MemoryDirectory({ 'f_0.tar': corrupt(shard()) }),
      fold: 'f',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    expect(error).toMatchObject({ code: 'InvalidValue', file: 'f_0.tar', offset: 1536 + 148 });
    expect(String((error as Error).message)).toMatch(
      /tar header at 1536: bad header checksum: stored \d+, the header sums to \d+/,
    );
  });

  it('validate --deep names a bad checksum as such, not as a moved header', async () => {
    const { bytes } = await indexShards({
      directory: new MemoryDirectory({ 'f_0.tar': shard() }),
      fold: 'f',
    });
    const report = await validateTaridx(
      fileTarget(new MemorySource(bytes, 'f.taridx'), new MemoryDirectory({ 'f_0.tar': corrupt(shard()) })),
    );
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({
        code: 'InvalidValue',
        offset: 1536 + 148,
        message: expect.stringMatching(/row 1: the tar header at 1536 of f_0\.tar: bad header checksum/),
      }),
    ]);
  });
});

describe('validate --deep without shards', () => {
  it('fails when it was asked to check shards and none is there; a default validate only warns', async () => {
    const { bytes } = await indexShards({
      directory: new MemoryDirectory({ 'f_0.tar': shard() }),
      fold: 'f',
    });
    const target = () => fileTarget(new MemorySource(bytes, 'f.taridx'), new MemoryDirectory({}));
    const deep = await validateTaridx(target(), { deep: true });
    expect(deep.valid).toBe(false);
    expect(deep.errors).toEqual([
      expect.objectContaining({ code: 'OutOfBounds', message: expect.stringMatching(/no f_\*\.tar shards/) }),
    ]);
    const plain = await validateTaridx(target());
    expect(plain.valid).toBe(true);
    expect(plain.warnings.map((w) => w.code)).toEqual(['ShardsNotFound']);
  });
});

describe('64-bit header fields in messages', () => {
  it('are printed exactly, not as the nearest double', async () => {
    const { bytes } = await indexShards({
      directory: new MemoryDirectory({ 'f_0.tar': shard() }),
      fold: 'f',
    });
    // n_stems, n_rows, off_crash, off_arr
    for (const at of [16, 24, 40, 48]) {
      const copy = bytes.slice();
      new DataView(copy.buffer).setBigUint64(at, 0xfffffffffffffff1n, true);
      const report = await validateTaridx(fileTarget(new MemorySource(copy, 'f.taridx')));
      const text = report.errors.map((e) => e.message).join('\n');
      expect(text, `field at ${at}`).toContain('18446744073709551601');
      expect(text).not.toContain('18446744073709552000');
    }
  });
});
