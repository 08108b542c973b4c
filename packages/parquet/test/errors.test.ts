/**
 * A broken Parquet file gets typed errors of the CONFORMANCE taxonomy with byte offsets (never
 * a raw error from hyparquet), and inspect still draws what parsed.
 */
import { fileTarget, isBinscopeError, MemorySource, recordsInput } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { applyMutations, FUZZ_RUNS, fuzzMutations } from '@binscope/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { parquetExport } from '../src/export.js';
import { parquetPlugin } from '../src/plugin.js';
import { options } from './exports.js';

/** A small file of several row groups, written by the export itself from a generated table. */
async function sampleFile(compression: string, plain = false): Promise<Uint8Array> {
  const rows = Array.from({ length: 300 }, (_, i) => ({
    index: i,
    values: plain
      ? { id: i, name: i % 9 ? `row ${i}` : null, x: BigInt(i), f: i / 3 }
      : { id: i, name: i % 9 ? `row ${i} ✓` : null, x: BigInt(i) * 3_000_000_000n, f: i / 3 },
  }));
  const input = recordsInput(
    {
      ...parquetPlugin,
      records: async function* () {
        yield* rows;
      },
    } as never,
    {
      format: 'test',
      warnings: [],
      schema: {
        fields: [
          { name: 'id', type: { kind: 'int', bits: 32, signed: true } },
          { name: 'name', type: { kind: 'string' }, nullable: true },
          { name: 'x', type: { kind: 'int', bits: 64, signed: true } },
          { name: 'f', type: { kind: 'float', bits: 64 } },
        ],
      },
    },
    'sample',
  );
  const sink = new MemorySink();
  await parquetExport.convertRecords!(
    input,
    { kind: 'file', sink },
    options({ compression, rowGroupSize: 100 }),
  );
  return sink.bytes();
}

async function readAll(bytes: Uint8Array): Promise<void> {
  const report = await parquetPlugin.validate(fileTarget(new MemorySource(bytes, 'fuzz.parquet')));
  expect(typeof report.valid).toBe('boolean');
  const inspected = await parquetPlugin.inspectTarget(fileTarget(new MemorySource(bytes, 'fuzz.parquet')));
  expect(inspected.root.kind).toBe('file');
  const reader = await parquetPlugin.open(fileTarget(new MemorySource(bytes, 'fuzz.parquet')));
  for await (const _ of parquetPlugin.records(reader)) void _;
  await parquetPlugin.info(reader);
  if (!report.valid) throw new Error(`read fine but validate found ${JSON.stringify(report.errors)}`);
}

async function firstError(bytes: Uint8Array) {
  const report = await parquetPlugin.validate(fileTarget(new MemorySource(bytes, 'x.parquet')));
  expect(report.valid).toBe(false);
  const error = await parquetPlugin.open(fileTarget(new MemorySource(bytes, 'x.parquet'))).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
  return { code: report.errors[0].code, offset: report.errors[0].offset, message: report.errors[0].message };
}

describe('broken files', () => {
  let good: Uint8Array;
  beforeAll(async () => {
    good = await sampleFile('snappy');
  });

  it('reads the sample back', async () => {
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(good, 'x.parquet')));
    expect(reader.metadata.row_groups.length).toBe(3);
    expect((await parquetPlugin.validate(fileTarget(new MemorySource(good)))).valid).toBe(true);
  });

  it('no PAR1 at the start: BadMagic at 0', async () => {
    const bytes = good.slice();
    bytes[1] = 0x42;
    expect(await firstError(bytes)).toMatchObject({ code: 'BadMagic', offset: 0 });
  });

  it('cut short: Truncated at the end, and inspect draws what is there', async () => {
    const bytes = good.slice(0, good.length - 100);
    expect(await firstError(bytes)).toMatchObject({ code: 'Truncated', offset: bytes.length });
    const { root, errors } = await parquetPlugin.inspectTarget(fileTarget(new MemorySource(bytes)));
    expect(errors[0].code).toBe('Truncated');
    expect(root.children?.[0]).toMatchObject({ name: 'magic', offset: 0, length: 4 });
  });

  it('a footer longer than the file: OutOfBounds at its length field', async () => {
    const bytes = good.slice();
    new DataView(bytes.buffer).setUint32(bytes.length - 8, bytes.length, true);
    expect(await firstError(bytes)).toMatchObject({ code: 'OutOfBounds', offset: bytes.length - 8 });
  });

  it('a footer that does not decode: InvalidValue at the footer', async () => {
    const bytes = good.slice();
    const length = new DataView(bytes.buffer).getUint32(bytes.length - 8, true);
    const footer = bytes.length - 8 - length;
    bytes.fill(0xff, footer, footer + 24);
    const error = await firstError(bytes);
    expect(error).toMatchObject({ code: 'InvalidValue', offset: footer });
    expect(error.message).toMatch(/the footer does not decode/);
  });

  it('a page that does not decompress: DecompressError at its row group', async () => {
    const gzip = await sampleFile('gzip');
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(gzip)));
    const chunk = reader.metadata.row_groups[1].columns[3].meta_data!;
    const start = Number(chunk.dictionary_page_offset ?? chunk.data_page_offset);
    const bytes = gzip.slice();
    // the page's compressed bytes (past its header): gzip's header and deflate data
    bytes.fill(
      0x00,
      start + Number(chunk.total_compressed_size) - 30,
      start + Number(chunk.total_compressed_size),
    );
    const error = await firstError(bytes).catch(() => undefined);
    // Either the group's bytes no longer decode, or (where the zeros fell on padding) the file reads.
    if (error) {
      expect(['DecompressError', 'InvalidValue']).toContain(error.code);
      expect(error.offset).toBe(Number(reader.metadata.row_groups[1].columns[0].meta_data!.data_page_offset));
    }
    const records = parquetPlugin.records(await parquetPlugin.open(fileTarget(new MemorySource(bytes))));
    const thrown = await (async () => {
      for await (const _ of records) void _;
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown === undefined || isBinscopeError(thrown, 'FormatError'), String(thrown)).toBe(true);
    expect(thrown !== undefined || error === undefined).toBe(true);
  });

  it('a page header counting 2^32 - 1 values is refused before hyparquet loops over them', async () => {
    // A mutant the fuzzer found: hyparquet filled an array of the page's stated count for minutes.
    // Found at fixed offsets (1075, 1717) of a file whose first row group was longer; here at the
    // same places: 15 bytes into row group 1's `name` chunk (its page header's row count), the
    // same eight bytes there (the u64 was written big-endian at an odd offset), and 5 bytes
    // before row group 2.
    const sample = await sampleFile('gzip', true);
    const groups = (await parquetPlugin.open(fileTarget(new MemorySource(sample)))).metadata.row_groups;
    const name = Number(groups[1].columns[1].meta_data!.data_page_offset);
    const bytes = applyMutations(sample, [
      { kind: 'u64', at: name + 15, value: (name + 15) % 2 ? 4294967295n : 0xffffffff00000000n },
      { kind: 'copy', from: 8, to: Number(groups[2].columns[0].meta_data!.data_page_offset) - 5, length: 8 },
    ]);
    const report = await parquetPlugin.validate(fileTarget(new MemorySource(bytes)));
    expect(report.errors[0]).toMatchObject({ code: 'InvalidValue', offset: name + 218 });
    expect(report.errors[0].message).toMatch(/column name: a page header does not decode/);
  }, 60_000);

  it('mutated files give a FormatError or a clean read, never a crash', async () => {
    for (const codec of ['snappy', 'gzip']) {
      const bytes = await sampleFile(codec);
      const reader = await parquetPlugin.open(fileTarget(new MemorySource(bytes)));
      const footer = reader.layout.footer!;
      const boundaries = [0, 4, footer.offset, bytes.length - 8, bytes.length - 4];
      for (const g of reader.metadata.row_groups)
        for (const c of g.columns) boundaries.push(Number(c.meta_data!.data_page_offset));
      await fuzzMutations(bytes, readAll, { boundaries, runs: FUZZ_RUNS });
    }
  });
});
