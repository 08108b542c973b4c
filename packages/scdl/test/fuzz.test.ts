import { directoryTarget, type MemoryDirectory } from '@binscope/core';
import { FUZZ_RUNS, fuzzMutations, describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { scdlPlugin, writeScdlToMemory } from '../src/index.js';
import type { ScdlReader } from '../src/read.js';
import { loadDirectory, validCases, VECTORS_NEEDED, withChanges } from './helpers.js';

/** Structure boundaries in header.sch: every descriptor start and field, so truncation and field overwrites hit them. */
async function headerBoundaries(dir: MemoryDirectory): Promise<number[]> {
  const reader = (await scdlPlugin.open(directoryTarget(dir))) as unknown as ScdlReader;
  const out = new Set<number>([0, 4, 7, 8, 12, 16]);
  for (const d of [...reader.header.arrays, ...reader.header.featureIndices]) {
    out.add(d.span.offset);
    for (const f of Object.values(d.fields)) out.add(f.offset);
  }
  return [...out].sort((a, b) => a - b);
}

/** Open, read every record and lookup, inspect: success or FormatError only. validate and inspectTarget must never throw. */
async function readAll(dir: MemoryDirectory): Promise<void> {
  const target = directoryTarget(dir);
  const report = await scdlPlugin.validate(target).catch((error: unknown) => {
    throw new Error(`validate threw: ${(error as Error)?.stack ?? error}`);
  });
  expect(typeof report.valid).toBe('boolean');
  // Inspect mode is the same parse: never throws, same problems, a tree around them.
  const inspected = await scdlPlugin.inspectTarget(target).catch((error: unknown) => {
    throw new Error(`inspectTarget threw: ${(error as Error)?.stack ?? error}`);
  });
  expect(inspected.errors).toEqual(report.errors);
  expect(inspected.root.children?.length).toBeGreaterThan(0);
  const reader = (await scdlPlugin.open(target)) as unknown as ScdlReader;
  let n = 0;
  for await (const _ of scdlPlugin.records(reader)) if (++n > 10_000) break;
  await scdlPlugin.inspect(reader);
  await scdlPlugin.info(reader);
  for (const i of [0, reader.numRows - 1]) {
    if (i < 0) continue;
    await reader.rowPadded(i);
    await reader.features(i);
    await reader.obs(i);
  }
  await (await reader.neighbors())?.row(0);
}

const TARGET_FILES = [
  'header.sch',
  'row_ptr.npy',
  'col_ptr.npy',
  'data.npy',
  'var_features/cumulative_sum_index.npy',
  'var_features/version.npy',
  'var_features/labels.json',
  'var_features/dataframe_0.parquet',
  'obs_features/dataframe_0.parquet',
  'neighbor_indptr.npy',
];

async function fuzzArchive(base: MemoryDirectory): Promise<void> {
  const files = await base.list();
  const boundaries = await headerBoundaries(base);
  for (const file of TARGET_FILES) {
    if (!files.includes(file)) continue;
    const valid = base.get(file)!;
    await fuzzMutations(valid, async (bytes) => readAll(await withChanges(base, { [file]: bytes })), {
      boundaries: file === 'header.sch' ? boundaries : [0, 8, 10, 128],
      runs: file === 'header.sch' ? FUZZ_RUNS : Math.ceil(FUZZ_RUNS / 3),
      seed: 7,
    });
  }
}

describe('fuzz: mutated archives read or fail with a FormatError', () => {
  it('a writer-made archive (ragged var blocks, obs, neighbors)', async () => {
    const { directory } = await writeScdlToMemory(
      { indptr: [0, 2, 3, 3, 5], indices: [0, 3, 2, 1, 2], data: [1, 2, 3, 4, 5], numCols: 4 },
      {
        dataDType: 'float16',
        var: [
          { label: 'a', rows: 2, columns: [{ name: 'gene', values: ['g0', 'g1', 'g2', 'g3'] }] },
          {
            label: 'b',
            rows: 2,
            columns: [
              { name: 'gene', values: ['h0', 'h1', 'h2'] },
              { name: 'n', values: [1, 2, 3] },
            ],
          },
        ],
        obs: [
          {
            label: 'a',
            rows: 4,
            columns: [
              { name: 'cell', values: ['c0', 'c1', 'c2', 'c3'] },
              { name: 'ok', values: [true, false, true, true] },
            ],
          },
        ],
        neighbors: { indptr: [0, 1, 2, 2, 3], indices: [1, 0, 3], values: [1, 1, 0.5] },
      },
    );
    await fuzzArchive(directory);
  }, 300_000);

  describeWith(VECTORS_NEEDED, 'the vectors', () => {
    for (const testCase of validCases()) {
      it(testCase.name, async () => {
        await fuzzArchive(loadDirectory(testCase.archive));
      }, 300_000);
    }
  });
});
