import { type ByteSource, isBinscopeError, MemoryDirectory, MemorySource } from '@binscope/core';
import { tarBytes } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexShards, TaridxReader, type TaridxSample } from '../src/index.js';
import { nameEnd, plainOctalSize, scanName, sizeField, splitName } from '../src/tar.js';

const enc = new TextEncoder();
const where = { file: 'x.tar', offset: 0 };

/** One shard of two samples; `edit` changes the tar after indexing, as a rewritten shard would. */
async function readAfterEdit(edit: (tar: Uint8Array) => void, sample = 0) {
  const tar = tarBytes([
    { name: 'dir/a.jpg', data: new Uint8Array(700).fill(1) },
    { name: 'dir/a.json', data: enc.encode('{"a":1}') },
    { name: 'b.x.jpg', data: new Uint8Array(3).fill(2) },
  ]);
  const { bytes: index } = await indexShards({
    directory: new MemoryDirectory({ 'f_0.tar': tar }),
    fold: 'f',
  });
  const edited = tar.slice();
  edit(edited);
  const outcomes: string[] = [];
  for (const sync of [false, true]) {
    const shard = new MemorySource(edited, 'f_0.tar');
    // The same bytes answered at once, or only later (the awaited path of the one method).
    const later: ByteSource = {
      name: shard.name,
      size: shard.size,
      read: async (o, l, r) => shard.read(o, l, r),
    };
    const reader = await TaridxReader.open(new MemorySource(index, 'f.taridx'), {
      shards: [sync ? shard : later],
    });
    await reader.load();
    try {
      const read = reader.readSample((await reader.sample(sample)) as TaridxSample);
      expect(read instanceof Promise).toBe(!sync);
      const got = await read;
      outcomes.push(`ok ${got.map((m) => m.data.byteLength).join(',')}`);
    } catch (error) {
      outcomes.push(
        isBinscopeError(error, 'FormatError') ? `${error.code}: ${error.message}` : `raw ${String(error)}`,
      );
    }
  }
  // The sync and awaited paths must agree on every edit.
  expect(outcomes[1]).toBe(outcomes[0]);
  return outcomes[0];
}

const write = (tar: Uint8Array, at: number, text: string) => tar.set(enc.encode(text), at);
// Header offsets: dir/a.jpg at 0 (700 payload bytes → 1024), dir/a.json next (7 → 512), then b.x.jpg.
const SECOND = 512 + 1024;
const THIRD = SECOND + 512 + 512;

describe('reading checks each member header against its row', () => {
  it('reads untouched members', async () => {
    expect(await readAfterEdit(() => {})).toBe('ok 700,7');
    expect(await readAfterEdit(() => {}, 1)).toBe('ok 3');
  });

  it('accepts the same size written with trailing spaces or in base-256', async () => {
    expect(await readAfterEdit((tar) => write(tar, 124, '1274     \0\0\0'))).toBe('ok 700,7');
    const base256 = (tar: Uint8Array) => {
      tar.fill(0, 124, 136);
      tar[124] = 0x80;
      tar[134] = 700 >> 8;
      tar[135] = 700 & 0xff;
    };
    expect(await readAfterEdit(base256)).toBe('ok 700,7');
  });

  it('names a size that differs from the row', async () => {
    expect(await readAfterEdit((tar) => write(tar, 124, '00000001275\0'))).toMatch(
      /^InvalidValue: row 0: tar header says 701 bytes, the index 700/,
    );
    expect(await readAfterEdit((tar) => write(tar, 124, '0000 0001274'))).toMatch(
      /no tar header at the row offset/,
    );
  });

  it('names an extension that differs', async () => {
    expect(await readAfterEdit((tar) => write(tar, 6, 'jpx'))).toMatch(
      /"dir\/a.jpx" does not have extension "jpg"/,
    );
    expect(await readAfterEdit((tar) => write(tar, THIRD + 2, 'y'), 1)).toMatch(
      /does not have extension "x.jpg"/,
    );
    expect(await readAfterEdit((tar) => write(tar, 6, 'JPG'))).toBe('ok 700,7');
  });

  it('names a stem that is not the key, on the first and on a later member', async () => {
    expect(await readAfterEdit((tar) => write(tar, 4, 'z'))).toMatch(/stem "z" is not the sample's key/);
    expect(await readAfterEdit((tar) => write(tar, SECOND + 4, 'z'))).toMatch(/different stems/);
    // The directory is not part of the stem.
    expect(await readAfterEdit((tar) => write(tar, 0, 'xyz/'))).toBe('ok 700,7');
    // Multi-dot names: the stem ends at the first dot of the base name.
    expect(await readAfterEdit((tar) => write(tar, THIRD, 'c'), 1)).toMatch(
      /stem "c" is not the sample's key/,
    );
  });
});

describe('plainOctalSize', () => {
  it('is -1 or what sizeField reads, for any 12 bytes', () => {
    const field = fc.oneof(
      fc.uint8Array({ minLength: 12, maxLength: 12 }),
      fc
        .tuple(fc.stringMatching(/^[ 0-7]{0,12}$/), fc.constantFrom('\0', ' ', '\t', ''))
        .map(([digits, end]) => enc.encode(`${digits}${end}`.padEnd(12, '\0').slice(0, 12))),
    );
    fc.assert(
      fc.property(field, (bytes) => {
        const block = new Uint8Array(512);
        block.set(bytes, 124);
        const fast = plainOctalSize(block, 0);
        if (fast === -1) return;
        expect(fast).toBe(sizeField(block, 0, where));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads what tar writers emit', () => {
    const block = new Uint8Array(512);
    block.set(enc.encode('00000001274\0'), 124);
    expect(plainOctalSize(block, 0)).toBe(700);
    block.set(enc.encode('77777777777 '), 124);
    expect(plainOctalSize(block, 0)).toBe(8 ** 11 - 1);
  });
});

describe('scanName', () => {
  it('finds what nameEnd and splitName find, in one pass', () => {
    const nameByte = fc.constantFrom(0x2f, 0x2e, 0x00, 0x61, 0x41, 0xc3, 0xa9, 0x20);
    fc.assert(
      fc.property(fc.array(nameByte, { maxLength: 110 }), fc.nat(20), (bytes, at) => {
        const block = new Uint8Array(at + 512);
        block.set(bytes.slice(0, 100), at);
        const end = nameEnd(block, at);
        const { stemStart, dot } = splitName(block, at, end);
        expect({ ...scanName(block, at) }).toEqual({ stemStart, dot, end });
      }),
      { numRuns: 2000 },
    );
  });
});
