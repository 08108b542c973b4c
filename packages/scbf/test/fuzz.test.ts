import * as fs from 'node:fs';
import { MemorySource } from '@binscope/core';
import { FUZZ_RUNS, fuzzMutations, describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { inspectScbf } from '../src/inspect.js';
import { scbfPlugin } from '../src/plugin.js';
import { openScbf } from '../src/plugin.js';
import { Utf8Column } from '../src/utf8.js';
import { validateScbf } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';
import { VECTORS_NEEDED, vectorCases } from './helpers.js';

/** Open, read every column and row, inspect; and validate, which must never throw. */
async function readEverything(bytes: Uint8Array): Promise<void> {
  const report = await validateScbf(new MemorySource(bytes, 'fuzz.scbf'));
  expect(typeof report.valid).toBe('boolean');
  const reader = await openScbf(new MemorySource(bytes, 'fuzz.scbf'));
  inspectScbf(reader);
  for (const column of reader.columns) {
    const values = await reader.readColumn(column.index);
    if (values instanceof Utf8Column) values.toArray();
  }
  for await (const _ of scbfPlugin.records(reader as never, {})) {
    // every row
  }
  // A file that reads fine must also validate clean.
  if (!report.valid) throw new Error(`read fine but validate found ${JSON.stringify(report.errors)}`);
}

async function boundaries(bytes: Uint8Array): Promise<number[]> {
  const reader = await openScbf(new MemorySource(bytes));
  const { header } = reader;
  const out = [
    0,
    8,
    12,
    header.headerLength - 20,
    header.headerLength - 16,
    header.headerLength - 8,
    header.metaTableOffset,
  ];
  for (const column of reader.columns) {
    out.push(
      column.entryOffset,
      column.entryOffset + 2 + column.nameLength,
      column.entryOffset + 3 + column.nameLength,
    );
    for (const block of column.blocks) {
      out.push(
        block.fieldOffset,
        block.fieldOffset + 8,
        block.fieldOffset + 16,
        block.offset,
        block.offset + 2,
        block.offset + block.compressedSize - 4,
      );
    }
  }
  return out;
}

async function fuzz(bytes: Uint8Array, runs: number): Promise<void> {
  await fuzzMutations(bytes, readEverything, { boundaries: await boundaries(bytes), runs });
}

describe('mutated files give a FormatError or a clean read, never a crash', () => {
  it('a file written by this package', async () => {
    const bytes = await encodeScbf([
      { name: 'id', values: Int32Array.from({ length: 300 }, (_, i) => i - 150) },
      { name: 'text', values: Array.from({ length: 300 }, (_, i) => (i % 7 ? `v${i}✓` : '')) },
      { name: 'x', values: Float64Array.from({ length: 300 }, (_, i) => i / 7) },
    ]);
    await fuzz(bytes, FUZZ_RUNS);
  });

  describeWith(VECTORS_NEEDED, 'vectors', () => {
    for (const testCase of vectorCases()) {
      it(testCase.name, async () => {
        const bytes = new Uint8Array(fs.readFileSync(testCase.scbf));
        // Large files cost more per case; keep CI fast (BINSCOPE_FUZZ_RUNS raises FUZZ_RUNS).
        await fuzz(bytes, bytes.byteLength > 100_000 ? Math.max(10, Math.round(FUZZ_RUNS / 5)) : FUZZ_RUNS);
      });
    }
  });
});
