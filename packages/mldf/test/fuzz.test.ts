import { MemorySource } from '@binscope/core';
import { fuzzMutations, describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { type FieldSpec, mldfPlugin, openMldf, validateMldf, writeMldf } from '../src/index.js';
import { readBytes, VECTORS_NEEDED, validVectors } from './helpers.js';

/** open + every record + inspect (lazy children loaded) + validate: FormatError or success only. */
async function readEverything(bytes: Uint8Array): Promise<void> {
  const source = new MemorySource(bytes, 'fuzz');
  const report = await validateMldf(source);
  expect(typeof report.valid).toBe('boolean');
  const reader = await openMldf(source);
  for await (const _record of mldfPlugin.records(reader)) {
    // decoding is the check
  }
  const tree = await mldfPlugin.inspect(reader);
  for (const child of tree.children ?? [])
    if (child.lazy) await child.lazy.load(0, Math.min(child.lazy.count, 64));
  await reader.samples([0, reader.numSamples - 1].filter((i) => i >= 0 && i < reader.numSamples));
  await reader.checkAllocations();
  // A file that reads fully and validates clean must really be readable sample by sample.
  if (report.valid) for (let i = 0; i < Math.min(reader.numSamples, 16); i++) await reader.sample(i);
}

/** Structure boundaries of an MLDF file: header fields, descriptor fields, section starts. */
async function boundaries(bytes: Uint8Array): Promise<number[]> {
  const out = [0, 9, 17, 25, 29, 33, 41, 49, 57, 65, 73];
  try {
    const reader = await openMldf(new MemorySource(bytes));
    for (const f of reader.fields)
      out.push(
        f.descriptorOffset + 64,
        f.descriptorOffset + 68,
        f.descriptorOffset + 76,
        f.descriptorOffset + 84,
        f.descriptorOffset + 92,
      );
    const { metadataPtr, dataPtr, allocTablePtr } = reader.header;
    out.push(
      metadataPtr,
      metadataPtr + 8,
      metadataPtr + reader.rowSize,
      dataPtr,
      allocTablePtr,
      allocTablePtr + 8,
    );
  } catch {
    // a vector we cannot open still fuzzes with the header boundaries
  }
  return out.filter((b) => b < bytes.byteLength);
}

describeWith(VECTORS_NEEDED, 'fuzz: mutated vectors read or fail with FormatError only', () => {
  for (const v of validVectors()) {
    it(v.name, async () => {
      const bytes = readBytes(v.file);
      await fuzzMutations(bytes, readEverything, { boundaries: await boundaries(bytes) });
    }, 120_000);
  }
});

describe('fuzz: mutated writer output reads or fails with FormatError only', () => {
  it('a file with every field type', async () => {
    const fields: FieldSpec[] = [
      { name: 'label', type: 'INT' },
      { name: 'score', type: 'FLOAT' },
      { name: 'blob', type: 'BYTES' },
      { name: 'arr', type: 'NDARRAY', dtype: '<u8', shape: [2] },
      { name: 'meta', type: 'JSON' },
      { name: 'img', type: 'IMAGE_RAW' },
      { name: 'text', type: 'TEXT_RAW' },
    ];
    const bytes = await writeMldf(
      fields,
      Array.from({ length: 12 }, (_, i) => ({
        label: -i,
        score: i / 3,
        blob: i % 3 ? Uint8Array.of(i, i) : undefined,
        arr: BigUint64Array.of(BigInt(i), 2n ** 64n - 1n),
        meta: { i, s: 'ü' },
        img: { height: 1, width: i % 4, channels: 3, pixels: new Uint8Array(3 * (i % 4)) },
        text: 'naïve'.repeat(i),
      })),
      { pageSize: 512 },
    );
    await fuzzMutations(bytes, readEverything, { boundaries: await boundaries(bytes) });
  }, 120_000);
});
