import { createHash } from 'node:crypto';
import {
  type DataRecord,
  directoryTarget,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  recordToJson,
  toJsonValue,
} from '@binscope/core';
import { openDirectory } from '@binscope/core/node';
import { describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { openScdl, type ScdlReader, scdlFormat, scdlPlugin, writeScdlToMemory } from '../src/index.js';
import { raggedArchive, VECTORS_NEEDED, validCases } from './helpers.js';

/** The records of a reader as the CLI prints them: one JSON line each, through core's rendering. */
async function jsonLines(reader: ScdlReader, options = {}): Promise<string> {
  let out = '';
  for await (const record of scdlPlugin.records(reader, options))
    out += `${JSON.stringify(await recordToJson(reader.schema, record))}\n`;
  return out;
}

/**
 * `binscope cat --format jsonl ARCHIVE` before contract v2 (main at b661e6b), every line:
 * the sha256 of the whole output and its first line.
 */
const TODAY: Record<string, { sha256: string; first: string }> = {
  basic_float32_raw: {
    sha256: 'c1b7a07444be033c26c3566ac4034de5a6a3e1d156593c4f5599bf16f699e78f',
    first: '{"row":0,"indices":[2,4,9],"values":[6,1.25,3.75]}',
  },
  collection_two_files_ragged: {
    sha256: '12af8ec92b15aa58e22813418c9e5a1bbcd37a4f8ea78394b2b7d5aa7442a403',
    first: '{"row":0,"indices":[0,1,4],"values":[26,19,13]}',
  },
  uint16_counts_from_X: {
    sha256: 'af3c28ca3ea48864675962904db53bd3ee4cb0d3c4614e98492b6b3bea83f765',
    first: '{"row":0,"indices":[],"values":[]}',
  },
};

describeWith(VECTORS_NEEDED, 'records print as they always have', () => {
  it('pins every vector', () => {
    expect(validCases().map((c) => c.name)).toEqual(Object.keys(TODAY));
  });
  for (const { name, archive } of validCases()) {
    it(`${name}: the JSON lines of today's cat`, async () => {
      const directory = openDirectory(archive);
      try {
        // The matrix fields as cat has always printed them; the obs columns follow them now.
        const lines = await jsonLines(await openScdl(directory), { columns: ['row', 'indices', 'values'] });
        expect(lines.split('\n')[0]).toBe(TODAY[name].first);
        expect(createHash('sha256').update(lines).digest('hex')).toBe(TODAY[name].sha256);
      } finally {
        await directory.close();
      }
    });
  }
});

/** Today's rendering of a row, before records had a schema: the values through toJsonValue. */
async function todaysRow(reader: ScdlReader, i: number) {
  const row = await reader.row(i);
  return { row: i, indices: toJsonValue(row.indices), values: toJsonValue(row.values) };
}

describe('records of written archives', () => {
  it('uint64 beyond 2^53, float16, NaN, ±Infinity and -0 render as before', async () => {
    for (const [dataDType, data] of [
      ['uint64', new BigUint64Array([2n ** 64n - 1n, 2n ** 53n + 1n, 7n])],
      ['float16', [Number.NaN, -0, 65504]],
      ['float64', [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0]],
    ] as const) {
      const { directory } = await writeScdlToMemory(
        { indptr: [0, 2, 2, 3], indices: [0, 1, 2], data, numCols: 3 },
        { dataDType },
      );
      const reader = await openScdl(directory);
      const records: DataRecord[] = [];
      for await (const record of scdlPlugin.records(reader)) records.push(record);
      expect(records.map((r) => r.index)).toEqual([0, 1, 2]);
      for (const record of records)
        expect(await recordToJson(reader.schema, record), `${dataDType} row ${record.index}`).toEqual(
          await todaysRow(reader, record.index),
        );
      const first = await recordToJson(reader.schema, records[0]);
      if (dataDType === 'uint64') expect(first.values).toEqual(['18446744073709551615', '9007199254740993']);
      if (dataDType === 'float16') expect(first.values).toEqual(['NaN', -0]);
    }
  });

  it('the schema names the three fields with the arrays element types, then the obs columns', async () => {
    const reader = await openScdl(await raggedArchive());
    expect(reader.schema.fields.slice(0, 3).map((f) => [f.name, f.type])).toEqual([
      ['row', { kind: 'int', bits: 64, signed: false }],
      ['indices', { kind: 'list', items: { kind: 'int', bits: 8, signed: false } }],
      ['values', { kind: 'list', items: { kind: 'float', bits: 32 } }],
    ]);
    expect(reader.schema.fields.slice(3).map((f) => [f.name, f.type, f.nullable])).toEqual([
      ['cell', { kind: 'string' }, true],
    ]);
  });

  it('records carry the obs columns of their block, typed from the parquet footers; null where its table lacks one', async () => {
    const { directory } = await writeScdlToMemory(
      { indptr: [0, 1, 2, 3], indices: [0, 1, 0], data: [1, 2, 3], numCols: 2 },
      {
        obs: [
          {
            label: 'a',
            rows: 2,
            columns: [
              { name: 'cell', values: ['c0', 'c1'] },
              { name: 'n', type: 'int64', values: [5n, 2n ** 60n] },
              { name: 'row', type: 'float32', values: [0.5, 1.5] },
            ],
          },
          {
            label: 'b',
            rows: 1,
            columns: [
              { name: 'cell', values: ['d0'] },
              { name: 'ok', values: [true] },
            ],
          },
        ],
      },
    );
    const reader = await openScdl(directory);
    expect(reader.schema.fields.map((f) => [f.name, f.type])).toEqual([
      ['row', { kind: 'int', bits: 64, signed: false }],
      ['indices', { kind: 'list', items: { kind: 'int', bits: 8, signed: false } }],
      ['values', { kind: 'list', items: { kind: 'float', bits: 32 } }],
      ['cell', { kind: 'string' }],
      ['n', { kind: 'int', bits: 64, signed: true }],
      ['obs.row', { kind: 'float', bits: 32 }],
      ['ok', { kind: 'bool' }],
    ]);
    const lines = (await jsonLines(reader)).trim().split('\n');
    expect(lines).toEqual([
      '{"row":0,"indices":[0],"values":[1],"cell":"c0","n":5,"obs.row":0.5,"ok":null}',
      '{"row":1,"indices":[1],"values":[2],"cell":"c1","n":"1152921504606846976","obs.row":1.5,"ok":null}',
      '{"row":2,"indices":[0],"values":[3],"cell":"d0","n":null,"obs.row":null,"ok":true}',
    ]);
    const picked: DataRecord[] = [];
    for await (const record of scdlPlugin.records(reader, { offset: 2, limit: 1, columns: ['ok', 'row'] }))
      picked.push(record);
    expect(picked.map((r) => r.values)).toEqual([{ ok: true, row: 2 }]);
  });

  it('offset, limit and columns choose rows and fields; locations are where locateRecord says', async () => {
    const reader = await openScdl(await raggedArchive());
    const picked: DataRecord[] = [];
    for await (const record of scdlPlugin.records(reader, {
      offset: 2,
      limit: 3,
      columns: ['values', 'row'],
      locations: true,
    }))
      picked.push(record);
    expect(picked.map((r) => r.index)).toEqual([2, 3, 4]);
    for (const record of picked) {
      expect(Object.keys(record.values)).toEqual(['values', 'row']);
      const located = await scdlPlugin.locateRecord(reader, record.index);
      expect(record.locations).toEqual({
        values: located.filter((l) => l.field === 'values'),
        row: located.filter((l) => l.field === 'row'),
      });
    }
    // Row 3 holds entries [3, 5) of data.npy (float32) and col_ptr.npy (uint8).
    expect(picked[1].locations?.values).toEqual([
      { offset: 12, length: 8, file: 'data.npy', field: 'values' },
    ]);
    await expect(async () => {
      for await (const _ of scdlPlugin.records(reader, { table: 'obs' })) break;
    }).rejects.toThrow(/one table/);
  });
});

describe('the target', () => {
  it('a single file that is not header.sch is refused in every verb, as core refuses a wrong kind', async () => {
    const target = fileTarget(new MemorySource(new Uint8Array(16), 'cells.bin'));
    const error = await scdlPlugin.open(target).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'BadMagic')).toBe(true);
    expect((error as Error).message).toMatch(/SCDL is a folder, not a single file/);
    expect((await scdlPlugin.validate(target)).errors[0]).toMatchObject({ code: 'BadMagic' });
    expect((await scdlPlugin.inspectTarget(target)).errors[0]).toMatchObject({ code: 'BadMagic' });
  });

  it('header.sch given as a file opens its folder (the siblings)', async () => {
    const directory = await raggedArchive();
    const header = await directory.open('header.sch');
    const reader = await scdlPlugin.open(fileTarget(header, directory));
    expect(reader.numRows).toBe(6);
    expect((await scdlPlugin.validate(fileTarget(header, directory))).valid).toBe(true);
  });

  it('closing a reader leaves the directory it was handed open', async () => {
    let closed = 0;
    const directory = Object.assign(await raggedArchive(), { close: async () => void closed++ });
    const reader = await openScdl(directory);
    await reader.close();
    expect(closed).toBe(0);
    await reader.ownDirectory().close();
    expect(closed).toBe(1);
  });
});

describe('expectedFiles: what a folder that cannot be listed is opened by', () => {
  it('names header.sch, the arrays, the feature files the header lists and the side files', async () => {
    const directory = await raggedArchive();
    const names = await scdlFormat.expectedFiles!(directory);
    const files = await directory.list();
    // Everything the archive has is named (an HTTP folder then lists it whole) …
    expect(files.filter((f) => !names.includes(f))).toEqual([]);
    // … and what it lacks is only the optional side files (neighbors here).
    expect(names.filter((f) => !files.includes(f)).sort()).toEqual([
      'neighbor_indices.npy',
      'neighbor_indptr.npy',
      'neighbor_values.npy',
    ]);
  });

  it('an archive opened by those names alone reads like the listed one', async () => {
    const directory = await raggedArchive();
    const names = await scdlFormat.expectedFiles!(directory);
    // A folder that lists only what it was told to expect, as HttpDirectory does.
    const told = new MemoryDirectory();
    for (const name of names) if (directory.get(name)) told.set(name, directory.get(name)!);
    expect((await scdlPlugin.validate(directoryTarget(told))).valid).toBe(true);
  });

  it('no header.sch: no names; a header.sch that does not parse: header.sch alone', async () => {
    expect(await scdlFormat.expectedFiles!(new MemoryDirectory({ 'data.npy': new Uint8Array(4) }))).toEqual(
      [],
    );
    const broken = new MemoryDirectory({ 'header.sch': new TextEncoder().encode('SCDX and more') });
    expect(await scdlFormat.expectedFiles!(broken)).toEqual(['header.sch']);
  });
});

describe('capabilities.sample', () => {
  it('writes cells_scdl/ with the package writer: a valid archive of 10 cells with var and obs tables', async () => {
    const out = new MemoryDirectory();
    expect(await scdlPlugin.capabilities?.sample?.(out)).toEqual(['cells_scdl']);
    const files = await out.list();
    expect(files.every((f) => f.startsWith('cells_scdl/'))).toBe(true);
    const archive = new MemoryDirectory(
      new Map(files.map((f) => [f.slice('cells_scdl/'.length), out.get(f)!])),
      'cells_scdl',
    );
    expect((await scdlPlugin.validate(directoryTarget(archive))).valid).toBe(true);
    const reader = await openScdl(archive);
    expect([reader.numRows, await reader.numColumns()]).toEqual([10, 20]);
    expect((await reader.obs(0))?.columns).toEqual(['cell_type', 'n_counts']);
    expect((await reader.features(0))?.columns).toEqual(['gene_name', 'highly_variable']);
  });
});
