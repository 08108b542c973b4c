import { MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import {
  type FieldSpec,
  MldfReader,
  openMldf,
  storedChecksums,
  validateMldf,
  writeMldf,
} from '../src/index.js';

const fields: FieldSpec[] = [
  { name: 'label', type: 'INT' },
  { name: 'text', type: 'TEXT_RAW' },
  { name: 'blob', type: 'BYTES' },
];
const samples = Array.from({ length: 40 }, (_, i) => ({
  label: i,
  text: `sample number ${i}`,
  blob: i % 3 === 0 ? undefined : new Uint8Array(i).fill(i),
}));

const source = (bytes: Uint8Array) => new MemorySource(bytes, 'x.mldf');

async function flipped(bytes: Uint8Array, at: (r: MldfReader) => number): Promise<Uint8Array> {
  const reader = await openMldf(source(bytes));
  const copy = bytes.slice();
  copy[at(reader)] ^= 0x40;
  return copy;
}

describe('MLDF checksums (FLAG_CHECKSUMMED)', () => {
  it('without the option the file is byte-identical and flag 0x4 / reserved bytes stay 0', async () => {
    const plain = await writeMldf(fields, samples);
    const explicit = await writeMldf(fields, samples, { checksum: false });
    expect(explicit).toEqual(plain);
    const reader = await openMldf(source(plain));
    expect(reader.header.flags).toBe(1);
    expect([...reader.header.reserved]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(storedChecksums(reader.header)).toBeUndefined();
  });

  it('the checksummed file differs only in flags and the 8 reserved bytes, and reads the same', async () => {
    const plain = await writeMldf(fields, samples);
    const summed = await writeMldf(fields, samples, { checksum: true });
    expect(summed.byteLength).toBe(plain.byteLength);
    const differing = [...summed.keys()].filter((i) => summed[i] !== plain[i]);
    expect(differing.every((i) => i === 13 || (i >= 65 && i < 73))).toBe(true);
    const reader = await openMldf(source(summed), { verify: true });
    expect(reader.header.flags).toBe(0x5);
    const sums = storedChecksums(reader.header)!;
    expect(sums.data).not.toBe(0);
    expect(sums.metadata).not.toBe(0);
    for (let i = 0; i < samples.length; i++) {
      const got = await reader.sample(i);
      expect(got.label).toBe(BigInt(i));
      expect(got.text).toBe(samples[i].text);
    }
    const report = await validateMldf(source(summed));
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('a flipped data byte is found by validate and by verify, naming the data region', async () => {
    const summed = await writeMldf(fields, samples, { checksum: true });
    const bad = await flipped(summed, (r) => r.header.dataPtr + 5);
    // Structure is untouched: a reader that does not verify reads it without complaint.
    await expect(openMldf(source(bad))).resolves.toBeInstanceOf(MldfReader);
    const report = await validateMldf(source(bad));
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0].code).toBe('InvalidValue');
    expect(report.errors[0].message).toMatch(/^data region \[\d+, \d+\) is corrupted/);
    await expect(openMldf(source(bad), { verify: true })).rejects.toMatchObject({
      code: 'InvalidValue',
      message: expect.stringMatching(/data region/),
    });
  });

  it('a changed INT in the metadata table is found and named as the metadata region', async () => {
    const summed = await writeMldf(fields, samples, { checksum: true });
    const bad = await flipped(summed, (r) => r.header.metadataPtr + 3 * r.rowSize);
    const report = await validateMldf(source(bad));
    expect(report.errors.map((e) => e.message.split(' ')[0])).toEqual(['metadata']);
    expect(report.errors[0].offset).toBe((await openMldf(source(bad))).header.metadataPtr);
  });

  it('a changed stored checksum is a mismatch too; an empty file checksums to 0', async () => {
    const summed = await writeMldf(fields, samples, { checksum: true });
    const bad = summed.slice();
    bad[66] ^= 1;
    expect((await validateMldf(source(bad))).errors[0].message).toMatch(/^data region/);
    const empty = await writeMldf(fields, [], { checksum: true });
    const reader = await openMldf(source(empty), { verify: true });
    expect(storedChecksums(reader.header)).toEqual({ data: 0, metadata: 0 });
    expect((await validateMldf(source(empty))).valid).toBe(true);
  });

  it('reserved bytes without the flag are still ReservedNonZero', async () => {
    const plain = await writeMldf(fields, samples);
    const bad = plain.slice();
    bad[66] = 7;
    await expect(openMldf(source(bad))).rejects.toMatchObject({ code: 'ReservedNonZero' });
  });
});
