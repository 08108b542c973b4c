import { MemoryDirectory, MemorySource, isBinscopeError } from '@binscope/core';
import { expectProgressToEnd, tarBytes } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeTaridx,
  indexShards,
  openTaridx,
  TaridxReader,
  type TaridxSample,
  taridxPlugin,
  validateTaridx,
} from '../src/index.js';
import { fileTarget, type ProgressEvent } from '@binscope/core';

const enc = new TextEncoder();
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

async function fold() {
  const shard0 = tarBytes([
    { name: 'a.jpg', data: bytes(700, 1) },
    { name: 'a.json', data: enc.encode('{"a":1}') },
    { name: 'b.jpg', data: bytes(512, 2) },
    { name: 'b.json', data: enc.encode('{"b":2}') },
  ]);
  const shard1 = tarBytes([
    { name: 'c.jpg', data: bytes(1, 3) },
    { name: 'c.cls', data: enc.encode('7') },
  ]);
  const dir = new MemoryDirectory({ 'f_0.tar': shard0, 'f_1.tar': shard1 });
  const { bytes: index } = await indexShards({ directory: dir, fold: 'f' });
  dir.set('f.taridx', index);
  return { dir, index };
}

async function rejectCode(index: Uint8Array): Promise<string | undefined> {
  const report = await validateTaridx(fileTarget(new MemorySource(index, 'x.taridx')));
  const reader = await openTaridx(new MemorySource(index, 'x.taridx')).catch((e: unknown) => e);
  let readCode: string | undefined;
  if (reader instanceof TaridxReader) {
    readCode = await reader.sampleCount().then(
      () => undefined,
      (e: unknown) => (isBinscopeError(e, 'FormatError') ? e.code : 'not a FormatError'),
    );
  } else {
    readCode = isBinscopeError(reader, 'FormatError') ? reader.code : 'not a FormatError';
  }
  expect(readCode).toBe(report.errors[0]?.code);
  return report.errors[0]?.code;
}

function patch(index: Uint8Array, at: number, write: (view: DataView) => void): Uint8Array {
  const out = index.slice();
  write(new DataView(out.buffer, at));
  return out;
}

describe('reading', () => {
  it('lists records with unknown keys when the folder holds no shards', async () => {
    const { index } = await fold();
    const lonely = new MemoryDirectory({ 'f.taridx': index });
    const target = fileTarget(new MemorySource(index, 'f.taridx'), lonely);
    const reader = await taridxPlugin.open(target);
    const records = [];
    for await (const record of taridxPlugin.records(reader)) records.push(record.values);
    expect(records.map((r) => r.key)).toEqual([null, null, null]);
    expect(records[0].members).toHaveLength(2);
  });

  it('lists samples in order of first appearance, finds them by key and reads payloads', async () => {
    const { dir, index } = await fold();
    const reader = await openTaridx(new MemorySource(index, 'f.taridx'), { shards: dir });
    expect(reader.rowCount).toBe(6);
    expect([...reader.extensions]).toEqual(['jpg', 'json', 'cls']);
    expect(await reader.sampleCount()).toBe(3);
    const keys: string[] = [];
    for await (const s of reader.samples()) keys.push((await reader.key(s))!);
    expect(keys).toEqual(['a', 'b', 'c']);
    const b = await reader.get('b');
    expect(b?.map((m) => [m.ext, m.fid, m.size])).toEqual([
      ['jpg', 0, 512],
      ['json', 0, 7],
    ]);
    expect(b?.[0].data).toEqual(bytes(512, 2));
    const c = await reader.get('c', { ext: 'cls' });
    expect(c?.map((m) => new TextDecoder().decode(m.data))).toEqual(['7']);
    expect(await reader.get('nope')).toBeUndefined();
  });

  it('yields the CLI record shape; the jpg members of a window through the samples table', async () => {
    const { dir, index } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const out = [];
    for await (const r of taridxPlugin.records(reader, { offset: 1, limit: 2 })) out.push(r);
    expect(out).toEqual([
      {
        index: 1,
        values: {
          key: 'b',
          crashid: 0,
          members: [
            { ext: 'jpg', fid: 0, offset: 2560, size: 512 },
            { ext: 'json', fid: 0, offset: 3584, size: 7 },
          ],
        },
      },
      {
        index: 2,
        values: {
          key: 'c',
          crashid: 0,
          members: [
            { ext: 'jpg', fid: 1, offset: 0, size: 1 },
            { ext: 'cls', fid: 1, offset: 1024, size: 1 },
          ],
        },
      },
    ]);
    // Members by extension (once `columns: ['jpg']` of these records): where each payload is.
    const jpgs = [];
    const window = { table: 'samples', offset: 1, limit: 2, columns: ['key', 'jpg'], locations: true };
    for await (const r of taridxPlugin.records(reader, window)) jpgs.push([r.values.key, r.locations?.jpg]);
    expect(jpgs).toEqual([
      ['b', [{ file: 'f_0.tar', offset: 2560 + 512, length: 512 }]],
      ['c', [{ file: 'f_1.tar', offset: 0 + 512, length: 1 }]],
    ]);
    const info = await taridxPlugin.info(reader);
    expect(info.counts).toMatchObject({ rows: 6, samples: 3, extensions: 3, shards: 2 });
  });

  it('gives null keys when no shards are reachable', async () => {
    const { index } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx')));
    const first = await taridxPlugin.records(reader)[Symbol.asyncIterator]().next();
    expect(first.value?.values).toMatchObject({ key: null, crashid: 0 });
  });

  it('inspects header, blocks and rows as byte ranges', async () => {
    const { index } = await fold();
    const reader = (await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx')))) as TaridxReader;
    const tree = await taridxPlugin.inspect(reader);
    const [header, exts, crash, rows] = tree.children!;
    expect(header.children!.find((c) => c.name === 'off_arr')).toMatchObject({
      offset: 48,
      length: 8,
      value: reader.header.offArr,
    });
    expect(exts.children!.map((c) => [c.offset, c.length, c.value])).toEqual([
      [64, 3, 'jpg'],
      [68, 4, 'json'],
      [73, 3, 'cls'],
    ]);
    expect(crash.length).toBe(0);
    expect(rows.lazy!.count).toBe(6);
    const [row5] = await rows.lazy!.load(5, 6);
    expect(row5).toMatchObject({ offset: reader.header.offArr + 5 * 32, length: 32 });
    expect(row5.children!.find((c) => c.name === 'extid')!.value).toBe('2 (cls)');
  });
});

describe('T7/T8 checks, each with its class', () => {
  it('accepts the empty-block cases of T7', async () => {
    // One row whose extension is "" (n_ext 1, empty block) and no crash stems (n_crash 0, empty block).
    const index = encodeTaridx({
      extensions: [''],
      crashStems: [],
      rows: [{ fid: 0, offset: 0, size: 0, extid: 0, crashid: 0, keyhash: 5n }],
    });
    expect(index.byteLength).toBe(64 + 32);
    const reader = await openTaridx(new MemorySource(index, 'x.taridx'));
    expect([...reader.extensions]).toEqual(['']);
    expect((await validateTaridx(fileTarget(new MemorySource(index, 'x.taridx')))).valid).toBe(true);
    const empty = encodeTaridx({ extensions: [], crashStems: [], rows: [] });
    expect((await openTaridx(new MemorySource(empty, 'e.taridx'))).extensions).toEqual([]);
  });

  it('splits text blocks on "\\n" only', async () => {
    const index = encodeTaridx({
      extensions: ['tar gz', 'a\tb'],
      crashStems: ['with space'],
      rows: [{ fid: 0, offset: 0, size: 1, extid: 1, crashid: 0, keyhash: 1n }],
    });
    const reader = await openTaridx(new MemorySource(index, 'x.taridx'));
    expect([...reader.extensions]).toEqual(['tar gz', 'a\tb']);
    expect([...reader.crashStems]).toEqual(['with space']);
  });

  it('reports each defect with the taxonomy class', async () => {
    const { index } = await fold();
    const offArr = new DataView(index.buffer).getUint32(48, true);
    expect(await rejectCode(index)).toBeUndefined();
    expect(await rejectCode(patch(index, 0, (v) => v.setUint8(5, 0x59)))).toBe('BadMagic');
    expect(await rejectCode(index.subarray(0, 40))).toBe('Truncated');
    expect(await rejectCode(patch(index, 8, (v) => v.setUint16(0, 2, true)))).toBe('UnsupportedVersion');
    expect(await rejectCode(patch(index, 12, (v) => v.setUint16(0, 40, true)))).toBe('InvalidValue');
    expect(await rejectCode(patch(index, 14, (v) => v.setUint16(0, 72, true)))).toBe('InvalidValue');
    expect(await rejectCode(patch(index, 40, (v) => v.setUint32(0, 10, true)))).toBe('OutOfBounds');
    expect(await rejectCode(patch(index, 40, (v) => v.setUint32(0, 1 << 30, true)))).toBe('OutOfBounds');
    expect(await rejectCode(patch(index, 48, (v) => v.setUint32(0, 64, true)))).toBe('OutOfBounds');
    expect(await rejectCode(patch(index, 48, (v) => v.setUint32(0, index.byteLength + 32, true)))).toBe(
      'OutOfBounds',
    );
    expect(await rejectCode(index.subarray(0, index.byteLength - 5))).toBe('Truncated');
    expect(await rejectCode(index.subarray(0, index.byteLength - 32))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 24, (v) => v.setUint32(0, 7, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 24, (v) => v.setBigUint64(0, 2n ** 60n, true)))).toBe(
      'CountMismatch',
    );
    expect(await rejectCode(patch(index, 32, (v) => v.setUint32(0, 2, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 32, (v) => v.setUint32(0, 0xffffffff, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 36, (v) => v.setUint32(0, 2, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 16, (v) => v.setUint32(0, 2, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 16, (v) => v.setUint32(0, 9, true)))).toBe('CountMismatch');
    expect(await rejectCode(patch(index, 64, (v) => v.setUint8(0, 0xff)))).toBe('InvalidValue');
    expect(await rejectCode(patch(index, 56, (v) => v.setUint8(0, 0)))).toBe('InvalidValue');
    // Row fields: offset misaligned, offset > 2^53, extid and crashid past their tables.
    expect(await rejectCode(patch(index, offArr + 32, (v) => v.setUint32(2, 700, true)))).toBe('Misaligned');
    expect(await rejectCode(patch(index, offArr + 32, (v) => v.setUint32(6, 0xffffffff, true)))).toBe(
      'OutOfBounds',
    );
    expect(await rejectCode(patch(index, offArr + 32, (v) => v.setUint16(18, 3, true)))).toBe('OutOfBounds');
    expect(await rejectCode(patch(index, offArr + 32, (v) => v.setUint32(20, 1, true)))).toBe('OutOfBounds');
  });

  it('ignores reserved bytes and warns about them and newer minors', async () => {
    const { index } = await fold();
    const odd = patch(index, 0, (v) => {
      v.setUint16(10, 3, true);
      v.setUint8(60, 1);
    });
    const report = await validateTaridx(fileTarget(new MemorySource(odd, 'x.taridx')));
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['NewerMinor', 'ReservedBytes']);
  });
});

describe('writer', () => {
  it('derives n_stems and flags from the rows and round-trips them', async () => {
    const rows = [
      { fid: 0, offset: 0, size: 10, extid: 0, crashid: 0, keyhash: 2n ** 64n - 1n },
      { fid: 0, offset: 1024, size: 3, extid: 1, crashid: 0, keyhash: 7n },
      { fid: 1, offset: 0, size: 10, extid: 0, crashid: 0, keyhash: 2n ** 64n - 1n },
    ];
    const index = encodeTaridx({ extensions: ['jpg', 'json'], crashStems: [], rows });
    const reader = await openTaridx(new MemorySource(index, 'x.taridx'));
    expect(reader.header).toMatchObject({ nStems: 2, nRows: 3, flags: 0, offCrash: 72, offArr: 72 });
    const back = [];
    for await (const r of reader.rows()) back.push(r);
    expect(back).toEqual(rows);
    const sample = await reader.sample(0);
    expect(sample.members.map((m) => m.row)).toEqual([0, 2]);
    const sorted = encodeTaridx({
      extensions: ['jpg', 'json'],
      crashStems: [],
      rows: [rows[0], rows[2], rows[1]],
    });
    expect(sorted[56]).toBe(1);
  });

  it('groups rows into samples in order of first appearance, contiguous or interleaved', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 40 }),
        async (keys) => {
          const rows = keys.map((k, i) => ({
            fid: 0,
            offset: i * 1024,
            size: i,
            extid: 0,
            crashid: 0,
            keyhash: BigInt(k),
          }));
          const reader = await openTaridx(
            new MemorySource(encodeTaridx({ extensions: ['x'], crashStems: [], rows }), 'x.taridx'),
          );
          await reader.load();
          const order = [...new Set(keys)];
          expect(reader.contiguous).toBe(
            keys.filter((k, i) => i === 0 || k !== keys[i - 1]).length === order.length,
          );
          expect(await reader.sampleCount()).toBe(order.length);
          order.forEach((key, i) => {
            const sample = reader.sample(i) as TaridxSample;
            expect(sample.keyhash).toBe(BigInt(key));
            const expected = keys.flatMap((k, row) => (k === key ? [row] : []));
            expect(sample.members.map((m) => m.row)).toEqual(expected);
            expect(sample.members.map((m) => m.size)).toEqual(expected);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses rows it cannot store', () => {
    const row = { fid: 0, offset: 0, size: 1, extid: 0, crashid: 0, keyhash: 1n };
    expect(() => encodeTaridx({ extensions: ['a\nb'], crashStems: [], rows: [row] })).toThrow(/contains/);
    expect(() => encodeTaridx({ extensions: ['a'], crashStems: [], rows: [{ ...row, extid: 1 }] })).toThrow(
      /extid/,
    );
    expect(() => encodeTaridx({ extensions: ['a'], crashStems: [], rows: [{ ...row, fid: 70000 }] })).toThrow(
      /fid/,
    );
    expect(() => encodeTaridx({ extensions: ['a'], crashStems: [], rows: [{ ...row, crashid: 1 }] })).toThrow(
      /crashid/,
    );
  });
});

describe('validate reports progress', () => {
  it('counts the rows, then the tar header of each row in its shard, up to 100 %', async () => {
    const { dir, index } = await fold();
    const events: ProgressEvent[] = [];
    const report = await validateTaridx(fileTarget(new MemorySource(index, 'f.taridx'), dir), {
      onProgress: (e) => events.push(e),
    });
    expect(report.errors).toEqual([]);
    expectProgressToEnd(events);
    expect(events[0].total).toBe(2 * 6);
  });
});
