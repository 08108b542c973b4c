import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isBinscopeError, MemoryDirectory } from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { NodeDirectory } from '@binscope/core/node';
import { runUnprivileged, describeWith } from '@binscope/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FeatureBlock,
  openScdl,
  ScdlWriter,
  smallestUnsignedDType,
  writeScdlToMemory,
} from '../src/index.js';
import { createScdlArchiveWriter, openScdlArchive, writeScdlArchive } from '../src/node.js';
import { encodeData } from '../src/write.js';
import { VECTORS_NEEDED, validCases } from './helpers.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scdl-write-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const BYTE_IDENTICAL = [
  'header.sch',
  'data.npy',
  'row_ptr.npy',
  'col_ptr.npy',
  'version.json',
  'var_features/cumulative_sum_index.npy',
  'var_features/version.npy',
  'var_features/labels.json',
  'obs_features/cumulative_sum_index.npy',
  'obs_features/version.npy',
  'obs_features/labels.json',
];

describeWith(VECTORS_NEEDED, 're-writing the vectors reproduces upstream bytes (C9)', () => {
  for (const testCase of validCases()) {
    it(`${testCase.name}: whole and streamed writes`, async () => {
      const source = await openScdlArchive(testCase.archive);
      const all = await source.rows(0, source.numRows);
      const blocks = async (index: typeof source.varIndex): Promise<FeatureBlock[] | undefined> => {
        if (!index) return undefined;
        const out: FeatureBlock[] = [];
        for (let b = 0; b < index.blockCount; b++) {
          const table = await index.table(b);
          const info = await index.parquetInfo(b);
          const type = (t: string) =>
            t === 'string'
              ? 'string'
              : t === 'bool'
                ? 'bool'
                : t === 'double'
                  ? 'float64'
                  : t === 'float'
                    ? 'float32'
                    : t === 'int32'
                      ? 'int32'
                      : 'int64';
          out.push({
            label: index.block(b).label ?? '',
            rows: index.block(b).end - index.block(b).start,
            columns: table.columns.map((name, k) => ({
              name,
              values: table.values[k] as string[],
              type: type(info.columns[k].type),
            })),
          });
        }
        return out;
      };
      const features = { var: await blocks(source.varIndex), obs: await blocks(source.obsIndex) };
      const numCols = await source.numColumns();

      const whole = path.join(tmp, 'whole');
      await writeScdlArchive(
        whole,
        { indptr: all.indptr, indices: all.indices, data: all.values, numCols },
        { dataDType: source.dataDType, ...features },
      );

      const streamed = path.join(tmp, 'streamed');
      const writer = await createScdlArchiveWriter(streamed, { dataDType: source.dataDType });
      for (let i = 0; i < source.numRows; i += 3) {
        const j = Math.min(source.numRows, i + 3);
        const a = all.indptr[i];
        const b = all.indptr[j];
        await writer.appendRows({
          indptr: all.indptr.subarray(i, j + 1),
          indices: all.indices.subarray(a, b),
          data: all.values.subarray(a, b) as Float32Array,
        });
      }
      await writer.finish(features);

      for (const out of [whole, streamed]) {
        for (const file of BYTE_IDENTICAL) {
          const original = path.join(testCase.archive, file);
          if (!fs.existsSync(original)) continue;
          expect(toHex(fs.readFileSync(path.join(out, file))), `${out} ${file}`).toBe(
            toHex(fs.readFileSync(original)),
          );
        }
        expect(JSON.parse(fs.readFileSync(path.join(out, 'metadata.json'), 'utf8'))).toEqual({
          num_rows: source.numRows,
        });
        const reread = await openScdlArchive(out);
        for (let i = 0; i < source.numRows; i++) {
          expect(await reread.row(i)).toEqual(await source.row(i));
          expect(await reread.obs(i)).toEqual(await source.obs(i));
          expect(await reread.features(i)).toEqual(await source.features(i));
        }
        await reread.close();
      }
      await source.close();
    });
  }
});

describe('writer choices', () => {
  it('picks the smallest unsigned dtypes as upstream does (C10)', () => {
    expect([0, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32].map(smallestUnsignedDType)).toEqual([
      'uint8',
      'uint8',
      'uint16',
      'uint16',
      'uint32',
      'uint32',
      'uint64',
    ]);
  });

  it('row_ptr holds nnz and col_ptr holds numCols − 1, streamed or not', async () => {
    for (const [nnz, numCols, rowDType, colDType] of [
      [255, 256, 'uint8', 'uint8'],
      [256, 257, 'uint16', 'uint16'],
    ] as const) {
      const indices = Array.from({ length: nnz }, (_, k) => k % numCols);
      const matrix = { indptr: [0, nnz], indices, data: new Float32Array(nnz).fill(1), numCols };
      const { result } = await writeScdlToMemory(matrix);
      expect([result.rowPtrDType, result.colPtrDType]).toEqual([rowDType, colDType]);
      const sink = new MemoryDirectory();
      const writer = new ScdlWriter(sink, { numCols: undefined });
      await writer.appendRows({ indptr: [0, nnz], indices, data: matrix.data });
      const streamed = await writer.finish({
        var: [
          { label: 'x', rows: 1, columns: [{ name: 'id', values: Array.from({ length: numCols }, String) }] },
        ],
      });
      expect([streamed.rowPtrDType, streamed.colPtrDType]).toEqual([rowDType, colDType]);
      expect((await sink.list()).some((p) => p.includes('wide'))).toBe(false);
    }
  });

  it('writes an empty matrix: 0 rows, row_ptr = [0], header with a 0 feature-index count', async () => {
    const { directory, result } = await writeScdlToMemory({ indptr: [0], indices: [], data: [] });
    expect(result.rows).toBe(0);
    expect(toHex(result.header.subarray(0, 16))).toBe('5343444c000100010000000100000003');
    expect(toHex(result.header.subarray(result.header.byteLength - 4))).toBe('00000000');
    const reader = await openScdl(directory);
    expect(reader.numRows).toBe(0);
    expect(reader.nnz).toBe(0);
    const records = [];
    for await (const batch of reader.batches()) records.push(batch);
    expect(records).toEqual([]);
  });

  it('casts like numpy astype', () => {
    const u8 = encodeData([1.9, -1, 256.5, Number.NaN, 255], 'uint8');
    expect(Array.from(u8)).toEqual([1, 255, 0, 0, 255]);
    const u64 = new BigUint64Array(encodeData(new BigInt64Array([-1n, 5n]), 'uint64').slice().buffer);
    expect(Array.from(u64)).toEqual([2n ** 64n - 1n, 5n]);
    const u64f = new BigUint64Array(encodeData([3.7, 2 ** 53], 'uint64').slice().buffer);
    expect(Array.from(u64f)).toEqual([3n, 2n ** 53n]);
    const f16 = new Uint16Array(encodeData([1, 1 / 3, 65504, 70000, -0], 'float16').slice().buffer);
    expect(Array.from(f16)).toEqual([0x3c00, 0x3555, 0x7bff, 0x7c00, 0x8000]);
    const f32 = new Float32Array(encodeData([0.1], 'float32').slice().buffer);
    expect(f32[0]).toBe(Math.fround(0.1));
  });

  it('refuses inconsistent input with FormatErrors', async () => {
    const bad = [
      { indptr: [0, 2, 1], indices: [0, 1], data: [1, 2] },
      { indptr: [0, 2], indices: [0], data: [1, 2] },
      { indptr: [0, 1], indices: [5], data: [1], numCols: 3 },
      { indptr: [0, 1], indices: [-1], data: [1] },
    ];
    for (const matrix of bad) {
      const error = await writeScdlToMemory(matrix).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
    }
    const blocksWrong = await writeScdlToMemory(
      { indptr: [0, 1, 1], indices: [0], data: [1] },
      { obs: [{ label: 'a', rows: 1, columns: [{ name: 'x', values: ['a'] }] }] },
    ).catch((e: unknown) => e);
    expect(isBinscopeError(blocksWrong, 'CountMismatch')).toBe(true);
  });

  it('stores feature tables of each column type and reads them back', async () => {
    const obs: FeatureBlock = {
      label: 'cells.h5ad',
      rows: 3,
      columns: [
        { name: 'name', values: ['a', 'ü', null] },
        { name: 'flag', values: [true, false, true] },
        { name: 'count', values: [1, 2, 3] },
        { name: 'big', values: new BigInt64Array([2n ** 60n, -1n, 0n]) },
        { name: 'score', values: new Float64Array([0.5, Number.NaN, -0]) },
        { name: 'f32', values: new Float32Array([0.1, 2, 3]) },
        { name: 'i32', values: new Int32Array([-5, 0, 7]) },
      ],
    };
    const { directory } = await writeScdlToMemory(
      { indptr: [0, 0, 0, 0], indices: [], data: [], numCols: 2 },
      { obs: [obs] },
    );
    const reader = await openScdl(directory);
    const rows = await Promise.all([0, 1, 2].map((i) => reader.obs(i)));
    expect(rows[0]?.columns).toEqual(['name', 'flag', 'count', 'big', 'score', 'f32', 'i32']);
    expect(rows[0]?.values).toEqual(['a', true, 1n, 2n ** 60n, 0.5, Math.fround(0.1), -5]);
    expect(rows[1]?.values.slice(0, 5)).toEqual(['ü', false, 2n, -1n, Number.NaN]);
    expect(rows[2]?.values[0]).toBeNull();
    expect(Object.is(rows[2]?.values[4], -0)).toBe(true);
    const info = await reader.obsIndex!.parquetInfo(0);
    expect(info.columns.map((c) => c.type)).toEqual([
      'string',
      'bool',
      'int64',
      'int64',
      'double',
      'float',
      'int32',
    ]);
    expect(new TextDecoder().decode((directory as MemoryDirectory).get('obs_features/labels.json'))).toBe(
      '["cells.h5ad"]',
    );
  });

  it('writes and reads neighbor files (C13)', async () => {
    const { directory, result } = await writeScdlToMemory(
      { indptr: [0, 1, 2], indices: [0, 1], data: [1, 1], numCols: 2 },
      { neighbors: { indptr: [0, 1, 3], indices: [1, 0, 1], values: [0.5, 0.25, 1] } },
    );
    expect(result.files).toContain('neighbor_indptr.npy');
    const reader = await openScdl(directory);
    expect(reader.header.arrays.map((a) => a.name)).toEqual(['DATA', 'ROWPTR', 'COLPTR']);
    const graph = await reader.neighbors();
    expect(graph?.rows).toBe(2);
    const row = await graph!.row(1);
    expect(Array.from(row.indices)).toEqual([0, 1]);
    expect(Array.from(row.values)).toEqual([0.25, 1]);
  });
});

describe('atomic writes to a path', () => {
  const matrix = (v: number) => ({ indptr: [0, 1], indices: [0], data: [v], numCols: 1 });

  it('replaces an existing archive only when the new one is complete', async () => {
    const target = path.join(tmp, 'archive');
    await writeScdlArchive(target, matrix(1));
    const failing = writeScdlArchive(target, { indptr: [0, 1], indices: [4], data: [2], numCols: 1 });
    await expect(failing).rejects.toThrow(/column index 4/);
    expect(fs.readdirSync(tmp)).toEqual(['archive']);
    const reader = await openScdlArchive(target);
    expect(Array.from((await reader.row(0)).values as Float32Array)).toEqual([1]);
    await reader.close();
    await writeScdlArchive(target, matrix(2));
    const again = await openScdlArchive(target);
    expect(Array.from((await again.row(0)).values as Float32Array)).toEqual([2]);
    await again.close();
    expect(fs.readdirSync(tmp)).toEqual(['archive']);
  });

  it('abort leaves nothing behind', async () => {
    const target = path.join(tmp, 'archive');
    const writer = await createScdlArchiveWriter(target);
    await writer.appendRows({ indptr: [0, 1], indices: [0], data: [1] });
    await writer.abort();
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('a missing parent folder is a clear error and creates nothing', async () => {
    const target = path.join(tmp, 'no', 'such', 'archive');
    await expect(writeScdlArchive(target, matrix(1))).rejects.toThrow(
      /cannot create .*no such file or directory/,
    );
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  describe('read-only directory', () => {
    it('fails with a clear error and leaves the target untouched', async () => {
      const target = path.join(tmp, 'archive');
      await writeScdlArchive(target, matrix(1));
      fs.chmodSync(tmp, 0o555);
      // The writer runs as an unprivileged user: root would ignore the folder's permissions.
      const pkg = path.resolve(import.meta.dirname, '..');
      const child = runUnprivileged(
        (locate) => `
        const { writeScdlArchive } = await import(${JSON.stringify(locate(pkg, 'dist/node.js'))});
        try {
          await writeScdlArchive(${JSON.stringify(target)}, { indptr: [0, 1], indices: [0], data: new Float32Array([2]), numCols: 1 });
          console.log('written');
        } catch (error) {
          console.log(error.message);
        }`,
      );
      fs.chmodSync(tmp, 0o755);
      expect(child.stderr).toBe('');
      expect(child.stdout).toMatch(/permission denied/);
      const reader = await openScdl(new NodeDirectory(target));
      expect(Array.from((await reader.row(0)).values as Float32Array)).toEqual([1]);
      expect(fs.readdirSync(tmp)).toEqual(['archive']);
    });
  });
});
