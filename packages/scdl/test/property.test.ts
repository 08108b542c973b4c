import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { directoryTarget, MemoryDirectory } from '@binscope/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openScdl, type ScdlDataDType, ScdlWriter, validateScdl } from '../src/index.js';
import { openScdlArchive, writeScdlArchive } from '../src/node.js';

const DTYPES: ScdlDataDType[] = ['uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64'];

/** Values each dtype stores exactly, so the round trip can be compared without re-implementing the cast. */
function valueArb(dtype: ScdlDataDType): fc.Arbitrary<number> {
  switch (dtype) {
    case 'uint8':
      return fc.integer({ min: 1, max: 255 });
    case 'uint16':
      return fc.integer({ min: 1, max: 65535 });
    case 'uint32':
      return fc.integer({ min: 1, max: 2 ** 32 - 1 });
    case 'uint64':
      return fc.maxSafeNat().filter((v) => v > 0);
    case 'float16':
      return fc
        .integer({ min: -2047, max: 2047 })
        .filter((v) => v !== 0)
        .map((v) => v / 4); // 11 significant bits
    case 'float32':
      return fc.float({ noDefaultInfinity: false }).filter((v) => v !== 0);
    case 'float64':
      return fc.double().filter((v) => v !== 0);
  }
}

interface Matrix {
  dtype: ScdlDataDType;
  numCols: number;
  rows: Array<Array<[number, number]>>;
  chunk: number;
  known: boolean;
}

const matrixArb: fc.Arbitrary<Matrix> = fc
  .record({
    dtype: fc.constantFrom(...DTYPES),
    numCols: fc.integer({ min: 1, max: 300 }),
    chunk: fc.integer({ min: 1, max: 7 }),
    known: fc.boolean(),
  })
  .chain(({ dtype, numCols, chunk, known }) =>
    fc.record({
      dtype: fc.constant(dtype),
      numCols: fc.constant(numCols),
      chunk: fc.constant(chunk),
      known: fc.constant(known),
      // Rows of sorted distinct columns; many empty rows and the empty matrix included.
      rows: fc.array(
        fc.oneof(
          fc.constant([] as Array<[number, number]>),
          fc
            .uniqueArray(fc.tuple(fc.integer({ min: 0, max: numCols - 1 }), valueArb(dtype)), {
              selector: (t) => t[0],
              maxLength: 40,
            })
            .map((r) => r.sort((a, b) => a[0] - b[0])),
        ),
        { maxLength: 25 },
      ),
    }),
  );

function csr(m: Matrix) {
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (const row of m.rows) {
    for (const [c, v] of row) {
      indices.push(c);
      data.push(v);
    }
    indptr.push(indices.length);
  }
  return { indptr, indices, data };
}

function expectedValue(dtype: ScdlDataDType, v: number): number | bigint {
  if (dtype === 'uint64') return BigInt(v);
  if (dtype === 'float32') return Math.fround(v);
  return v;
}

async function checkRoundTrip(m: Matrix, reader: Awaited<ReturnType<typeof openScdl>>): Promise<void> {
  expect(reader.numRows).toBe(m.rows.length);
  expect(reader.dataDType).toBe(m.dtype);
  for (let i = 0; i < m.rows.length; i++) {
    const row = await reader.row(i);
    expect(Array.from(row.indices)).toEqual(m.rows[i].map(([c]) => c));
    expect(Array.from(row.values as ArrayLike<number | bigint>)).toEqual(
      m.rows[i].map(([, v]) => expectedValue(m.dtype, v)),
    );
    const padded = Array.from(
      (await reader.rowPadded(i, { width: m.numCols })) as ArrayLike<number | bigint>,
    );
    const zero = m.dtype === 'uint64' ? 0n : 0;
    const dense = Array.from({ length: m.numCols }, () => zero as number | bigint);
    for (const [c, v] of m.rows[i]) dense[c] = expectedValue(m.dtype, v);
    expect(padded).toEqual(dense);
  }
  // Batched reads agree with single rows, for every range split.
  let seen = 0;
  for await (const batch of reader.batches({ batchBytes: 64 })) {
    for (let k = 0; k + 1 < batch.indptr.length; k++) {
      expect(Array.from(batch.row(k).indices)).toEqual(m.rows[batch.start + k].map(([c]) => c));
      seen++;
    }
  }
  expect(seen).toBe(m.rows.length);
}

describe('property: random sparse matrices round-trip write → read', () => {
  it('through the streaming writer in memory (every dtype, empty rows, empty matrix)', async () => {
    await fc.assert(
      fc.asyncProperty(matrixArb, async (m) => {
        const { indptr, indices, data } = csr(m);
        const sink = new MemoryDirectory();
        const writer = new ScdlWriter(sink, {
          dataDType: m.dtype,
          ...(m.known ? { numCols: m.numCols, nnz: data.length } : {}),
        });
        for (let r = 0; r < m.rows.length; r += m.chunk) {
          const end = Math.min(m.rows.length, r + m.chunk);
          await writer.appendRows({
            indptr: indptr.slice(r, end + 1),
            indices: indices.slice(indptr[r], indptr[end]),
            data: data.slice(indptr[r], indptr[end]),
          });
        }
        const result = await writer.finish({
          var: [
            {
              label: 'in.h5ad',
              rows: m.rows.length,
              columns: [{ name: 'gene', values: Array.from({ length: m.numCols }, (_, c) => `g${c}`) }],
            },
          ],
        });
        expect(result.nnz).toBe(data.length);
        expect((await sink.list()).some((p) => p.includes('wide'))).toBe(false);
        const reader = await openScdl(sink);
        await checkRoundTrip(m, reader);
        if (m.rows.length > 0) expect(await reader.numColumns(0)).toBe(m.numCols);
        const report = await validateScdl(directoryTarget(sink));
        expect(report.errors).toEqual([]);
      }),
      { numRuns: 120, seed: 1234 },
    );
  });

  it('through the atomic Node writer (whole matrix)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scdl-prop-'));
    try {
      await fc.assert(
        fc.asyncProperty(matrixArb, async (m) => {
          const target = path.join(dir, 'archive');
          await writeScdlArchive(target, { ...csr(m), numCols: m.numCols }, { dataDType: m.dtype });
          const reader = await openScdlArchive(target);
          try {
            await checkRoundTrip(m, reader);
          } finally {
            await reader.close();
          }
          expect(fs.readdirSync(dir)).toEqual(['archive']);
        }),
        { numRuns: 25, seed: 99 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
