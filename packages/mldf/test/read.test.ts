import { describeWith } from '@binscope/testkit';
import {
  CountingSource,
  MemorySource,
  type ByteSource,
  isBinscopeError,
  nodesAt,
  toPlainTree,
} from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { type FieldSpec, inspectMldf, type MldfSample, openMldf, writeMldf } from '../src/index.js';
import { readBytes, specsOf, VECTORS_NEEDED, validVectors } from './helpers.js';

/** A source without readSync: exercises the promise path (Blob/HTTP-like). */
function asyncOnly(bytes: Uint8Array, name = 'async'): ByteSource {
  const inner = new MemorySource(bytes, name);
  return { size: inner.size, name, read: async (o, l) => inner.read(o, l) };
}

async function all(bytes: Uint8Array, source: ByteSource = new MemorySource(bytes)): Promise<MldfSample[]> {
  const reader = await openMldf(source);
  const out: MldfSample[] = [];
  for await (const s of reader.iterate()) out.push(s);
  return out;
}

describeWith(VECTORS_NEEDED, 'MLDF vectors', () => {
  for (const v of validVectors()) {
    it(`${v.name}: rewriting its decoded samples with the same fields and page size gives the same bytes`, async () => {
      const bytes = readBytes(v.file);
      const reader = await openMldf(new MemorySource(bytes, v.name));
      const samples = await all(bytes);
      const out = await writeMldf(specsOf(reader), samples, { pageSize: reader.header.pageSize });
      expect(out.byteLength).toBe(bytes.byteLength);
      expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
    });

    it(`${v.name}: the promise-only path reads the same samples as the readSync path`, async () => {
      const bytes = readBytes(v.file);
      expect(await all(bytes, asyncOnly(bytes))).toEqual(await all(bytes));
    });

    it(`${v.name}: concurrent sample(i) calls on a promise-only source do not share a sample's state`, async () => {
      const bytes = readBytes(v.file);
      const reader = await openMldf(asyncOnly(bytes));
      const indices = Array.from({ length: reader.numSamples }, (_, i) => reader.numSamples - 1 - i);
      const together = await Promise.all(indices.map((i) => reader.sample(i)));
      const sync = await openMldf(new MemorySource(bytes));
      for (const [k, i] of indices.entries()) expect(together[k]).toEqual(await sync.sample(i));
    });

    it(`${v.name}: inspect covers header, descriptors, rows, values and allocation entries`, async () => {
      const bytes = readBytes(v.file);
      const reader = await openMldf(new MemorySource(bytes, v.name));
      const tree = await inspectMldf(reader);
      const names = tree.children!.map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'magic',
          'header',
          'field descriptors',
          'metadata table',
          'data region',
          'allocation table',
        ]),
      );
      expect(nodesAt(tree, 9 + 8).map((n) => n.name)).toEqual([v.name, 'header', 'num_samples']);
      const plain = toPlainTree(tree);
      expect(plain.children!.find((c) => c.name === 'metadata table')!.childCount ?? 0).toBe(
        reader.numSamples,
      );
      const data = tree.children!.find((c) => c.name === 'data region')!;
      const alloc = tree.children!.find((c) => c.name === 'allocation table')!;
      if (data.lazy && alloc.lazy) {
        const samples = await data.lazy.load(0, data.lazy.count);
        const entries = await alloc.lazy.load(0, alloc.lazy.count);
        // Every value's byte range is one allocation entry's range.
        const ranges = samples.flatMap((s) => s.children!.map((c) => `${c.offset}+${c.length}`));
        expect(ranges.sort()).toEqual(
          entries.map((e) => String(e.value).replace(/ptr (\d+), size (\d+)/, '$1+$2')).sort(),
        );
        for (const entry of entries)
          expect(entry.offset + entry.length).toBeLessThanOrEqual(bytes.byteLength);
      }
      const meta = tree.children!.find((c) => c.name === 'metadata table')!;
      if (meta.lazy) {
        const rows = await meta.lazy.load(0, 1);
        expect(rows[0].length).toBe(reader.rowSize);
        expect(rows[0].children!.map((c) => c.name)).toEqual(reader.fields.map((f) => f.name));
      }
    });
  }
});

const mixedFields: FieldSpec[] = [
  { name: 'label', type: 'INT' },
  { name: 'score', type: 'FLOAT' },
  { name: 'blob', type: 'BYTES' },
  { name: 'meta', type: 'JSON' },
  { name: 'caption', type: 'TEXT_RAW' },
  { name: 'vec', type: 'NDARRAY', dtype: '<f4', shape: [2, 3] },
  { name: 'image', type: 'IMAGE_RAW' },
];

function mixedSample(i: number): MldfSample {
  return {
    label: BigInt(i) * 1_000_000_007n - 5n,
    score: i / 7,
    blob: Uint8Array.from({ length: (i * 37) % 300 }, (_, k) => (k * i) & 0xff),
    meta: i % 5 === 0 ? undefined : { i, tags: ['x', 'ü'.repeat(i % 3)] },
    caption: i % 4 === 0 ? '' : `caption ${i} ✓`,
    vec: { dtype: '<f4', shape: [2, 3], data: Float32Array.from({ length: 6 }, (_, k) => k * i + 0.5) },
    image: {
      height: 2,
      width: 1 + (i % 3),
      channels: 3,
      mode: 0,
      pixels: Uint8Array.from({ length: 6 * (1 + (i % 3)) }, (_, k) => k + i),
    },
  };
}

async function mixedFile(n = 200, pageSize = 4096): Promise<Uint8Array> {
  return writeMldf(
    mixedFields,
    Array.from({ length: n }, (_, i) => mixedSample(i)),
    { pageSize },
  );
}

describe('reading', () => {
  it('open reads only the header and descriptors; sample(i) reads its row page and one data range', async () => {
    const bytes = await mixedFile(2000);
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openMldf(source);
    expect(source.bytesRead).toBe(73 + 208 * mixedFields.length);
    const before = source.reads;
    const s = await reader.sample(1234);
    expect(s).toEqual(mixedSample(1234));
    // one metadata page + one coalesced read of the sample's values
    expect(source.reads - before).toBe(2);
    const beforeField = source.reads;
    const bytesBefore = source.bytesRead;
    expect(await reader.field(1234, 'caption')).toBe('caption 1234 ✓');
    expect(source.reads - beforeField).toBe(1);
    expect(source.bytesRead - bytesBefore).toBe(new TextEncoder().encode('caption 1234 ✓').byteLength);
  });

  it('samples(indices) returns the asked order and coalesces nearby ranges into few reads', async () => {
    const bytes = await mixedFile(2000);
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openMldf(source);
    const indices = [1999, 3, 500, 4, 1000, 2, 0, 1998];
    await reader.sample(0); // load the metadata page
    const before = source.reads;
    const got = await reader.samples(indices);
    expect(got).toEqual(indices.map(mixedSample));
    expect(source.reads - before).toBeLessThan(indices.length);
  });

  it('sequential batches read the data region in large windows', async () => {
    const bytes = await mixedFile(1200);
    const source = new CountingSource(new MemorySource(bytes));
    const reader = await openMldf(source);
    let n = 0;
    for await (const batch of reader.batches({ batchSize: 100, windowSize: 16 << 10 })) {
      for (const s of batch) expect(s).toEqual(mixedSample(n++));
    }
    expect(n).toBe(1200);
    const dataBytes = reader.layout.dataEnd - reader.header.dataPtr;
    // windows + metadata pages + header/descriptors, far fewer than one read per sample
    expect(source.reads).toBeLessThan(Math.ceil(dataBytes / (16 << 10)) + 10);
    expect(source.reads).toBeGreaterThan(Math.floor(dataBytes / (16 << 10)));
  });

  it('field subsets, start/end ranges and out-of-range indices', async () => {
    const reader = await openMldf(new MemorySource(await mixedFile(50)));
    const part = [];
    for await (const s of reader.iterate({ start: 10, end: 13, fields: ['caption', 'label'] })) part.push(s);
    expect(part).toEqual(
      [10, 11, 12].map((i) => ({ caption: mixedSample(i).caption, label: mixedSample(i).label })),
    );
    await expect(reader.sample(50)).rejects.toThrow(RangeError);
    await expect(reader.field(0, 'nope')).rejects.toThrow(/no field named 'nope'/);
  });

  it('a metadata cache smaller than the table still reads every sample right', async () => {
    const reader = await openMldf(new MemorySource(await mixedFile(40000 / 10)), { metadataCacheBytes: 1 });
    for (const i of [0, 3999, 17, 2500, 1]) expect(await reader.sample(i)).toEqual(mixedSample(i));
  });

  it('missing values: ptr 0 and size 0, decoded as undefined or the empty value', async () => {
    const bytes = await writeMldf(mixedFields, [{}]);
    const reader = await openMldf(new MemorySource(bytes));
    expect(await reader.sample(0)).toEqual({
      label: 0n,
      score: 0,
      blob: new Uint8Array(0),
      meta: undefined,
      caption: '',
      vec: undefined,
      image: undefined,
    });
    expect(reader.layout.allocCount).toBe(0);
    expect((await reader.valueInfo(0, 'blob')).ptr).toBe(0);
  });
});

/** Patches bytes of a valid file; returns the first validate error code and what reading raises. */
async function defect(bytes: Uint8Array, patch: (view: DataView, bytes: Uint8Array) => void) {
  const copy = bytes.slice();
  patch(new DataView(copy.buffer), copy);
  const { validateMldf } = await import('../src/index.js');
  const report = await validateMldf(new MemorySource(copy, 'defect'));
  let readError: unknown;
  try {
    const reader = await openMldf(new MemorySource(copy, 'defect'));
    for await (const _ of reader.batches()) {
      // decode all
    }
    await reader.checkAllocations();
  } catch (error) {
    readError = error;
  }
  return {
    first: report.errors[0]?.code,
    report,
    readError: isBinscopeError(readError, 'FormatError') ? readError.code : readError,
  };
}

describe('validation: one defect per file, the right class first (A2), reading fails the same way', async () => {
  const fields: FieldSpec[] = [
    { name: 'label', type: 'INT' },
    { name: 'blob', type: 'BYTES' },
    { name: 'meta', type: 'JSON' },
    { name: 'text', type: 'TEXT_RAW' },
    { name: 'arr', type: 'NDARRAY', dtype: '<i2', shape: [4] },
    { name: 'img', type: 'IMAGE_RAW' },
  ];
  const samples = Array.from({ length: 6 }, (_, i) => ({
    label: i,
    blob: Uint8Array.of(i, i + 1, i + 2),
    meta: { i },
    text: `t${i}`,
    arr: Int16Array.of(i, -i, 7, 8),
    img: { height: 1, width: 2, channels: 1, pixels: Uint8Array.of(i, i) },
  }));
  const good = await writeMldf(fields, samples, { pageSize: 256 });
  const reader = await openMldf(new MemorySource(good));
  const H = 9;
  const { metadataPtr, dataPtr, allocTablePtr } = reader.header;
  const row = (i: number) => metadataPtr + i * reader.rowSize;
  const off = (name: string) => reader.getField(name).metadataOffset;
  const desc = (name: string) => reader.getField(name).descriptorOffset;

  const cases: Array<[string, string, (v: DataView, b: Uint8Array) => void]> = [
    ['bad magic', 'BadMagic', (_v, b) => (b[1] = 0x4e)],
    ['major version 2', 'UnsupportedVersion', (v) => v.setUint16(H, 2, true)],
    ['compressed flag', 'UnsupportedFeature', (v) => v.setUint32(H + 4, 3, true)],
    ['encrypted flag', 'UnsupportedFeature', (v) => v.setUint32(H + 4, 9, true)],
    ['header pad', 'ReservedNonZero', (v) => v.setUint16(H + 18, 1, true)],
    ['header reserved', 'ReservedNonZero', (_v, b) => (b[H + 60] = 1)],
    ['metadata_ptr misaligned', 'Misaligned', (v) => v.setBigUint64(H + 32, BigInt(metadataPtr + 8), true)],
    ['data_ptr misaligned', 'Misaligned', (v) => v.setBigUint64(H + 40, BigInt(dataPtr + 64), true)],
    ['num_samples huge', 'Truncated', (v) => v.setBigUint64(H + 8, 2n ** 60n, true)],
    ['metadata runs into data', 'OutOfBounds', (v) => v.setBigUint64(H + 8, 10n, true)],
    ['samples without fields', 'CountMismatch', (v) => v.setUint16(H + 16, 0, true)],
    [
      'alloc_table_ptr before data',
      'OutOfBounds',
      (v) => v.setBigUint64(H + 48, BigInt(dataPtr - 256), true),
    ],
    [
      'listed but unimplemented type id',
      'UnsupportedFeature',
      (v) => v.setUint16(desc('img') + 64, 11, true),
    ],
    ['unknown type id', 'InvalidValue', (v) => v.setUint16(desc('img') + 64, 99, true)],
    ['metadata_size wrong', 'CountMismatch', (v) => v.setUint32(desc('blob') + 68, 24, true)],
    ['descriptor pad', 'ReservedNonZero', (v) => v.setUint32(desc('blob') + 72, 1, true)],
    ['descriptor tail', 'ReservedNonZero', (v) => v.setUint32(desc('blob') + 204, 1, true)],
    ['arguments on a BYTES field', 'ReservedNonZero', (_v, b) => (b[desc('blob') + 80] = 1)],
    ['ndarray dtype', 'InvalidValue', (_v, b) => (b[desc('arr') + 76 + 1] = 'q'.charCodeAt(0))],
    ['ndarray ndim > 8', 'InvalidValue', (v) => v.setUint32(desc('arr') + 76 + 8, 9, true)],
    ['name without NUL', 'InvalidValue', (_v, b) => b.fill(0x41, desc('label'), desc('label') + 64)],
    [
      'duplicate name',
      'InvalidValue',
      (_v, b) => b.copyWithin(desc('blob'), desc('label'), desc('label') + 64),
    ],
    [
      'value ptr past the data region',
      'OutOfBounds',
      (v) => v.setBigUint64(row(2) + off('blob'), BigInt(allocTablePtr + 100), true),
    ],
    [
      'value ptr into the metadata',
      'OutOfBounds',
      (v) => v.setBigUint64(row(2) + off('blob'), BigInt(metadataPtr), true),
    ],
    ['empty value with a ptr', 'InvalidValue', (v) => v.setUint32(row(1) + off('blob') + 8, 0, true)],
    ['value padding', 'ReservedNonZero', (v) => v.setUint32(row(1) + off('blob') + 12, 5, true)],
    ['image mode JPEG', 'UnsupportedFeature', (v) => v.setUint8(row(0) + off('img') + 17, 1)],
    ['image mode unknown', 'InvalidValue', (v) => v.setUint8(row(0) + off('img') + 17, 9)],
    ['image geometry vs size', 'CountMismatch', (v) => v.setUint16(row(0) + off('img') + 12, 3, true)],
    ['text encoding token ids', 'UnsupportedFeature', (v) => v.setUint8(row(3) + off('text') + 14, 1)],
    ['ndarray value size', 'CountMismatch', (v) => v.setUint32(row(4) + off('arr') + 8, 6, true)],
    [
      'alloc table unsorted',
      'InvalidValue',
      (_v, b) => {
        const a = b.slice(allocTablePtr, allocTablePtr + 16);
        b.copyWithin(allocTablePtr, allocTablePtr + 16, allocTablePtr + 32);
        b.set(a, allocTablePtr + 16);
      },
    ],
    ['alloc entry size disagrees', 'CountMismatch', (v) => v.setUint32(allocTablePtr + 16 * 3 + 8, 2, true)],
    // M7: the size is compared with the value's before entries are compared with each other.
    [
      'alloc entry size too big, so it also overlaps the next entry',
      'CountMismatch',
      (v) => v.setUint32(allocTablePtr + 16 * 3 + 8, v.getUint32(allocTablePtr + 16 * 3 + 8, true) + 5, true),
    ],
    ['alloc entry padding', 'ReservedNonZero', (v) => v.setUint32(allocTablePtr + 12, 1, true)],
    ['file cut inside the allocation table', 'Truncated', () => {}],
    [
      'bad UTF-8 text',
      'InvalidValue',
      (_v, b) => (b[Number(new DataView(b.buffer).getBigUint64(row(2) + off('text'), true))] = 0xff),
    ],
    [
      'bad JSON',
      'InvalidValue',
      (_v, b) => (b[Number(new DataView(b.buffer).getBigUint64(row(2) + off('meta'), true))] = 0x5d),
    ],
  ];
  for (const [what, code, patch] of cases) {
    it(`${what} → ${code}`, async () => {
      const source = what.startsWith('file cut') ? good.subarray(0, good.byteLength - 5) : good;
      const { first, report, readError } = await defect(source, patch);
      expect(first, JSON.stringify(report.errors)).toBe(code);
      expect(report.valid).toBe(false);
      expect(typeof report.errors[0].offset).toBe('number');
      expect(readError).toBe(code);
    });
  }

  it('the unchanged file validates clean', async () => {
    const { report, readError } = await defect(good, () => {});
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
    expect(readError).toBeUndefined();
  });

  it('a newer minor version is a warning, not an error', async () => {
    const { report } = await defect(good, (v) => v.setUint16(H + 2, 3, true));
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['NewerMinorVersion']);
  });
});

describe('a source that returns fewer bytes than asked (the file shrank after open)', () => {
  /** Synchronous, like a local file; once `shrunk`, every read stops `cut` bytes short. */
  function shrinking(bytes: Uint8Array, cut: number) {
    const inner = new MemorySource(bytes, 'shrinking');
    const state = { shrunk: false };
    const source: ByteSource = {
      size: inner.size,
      name: 'shrinking',
      read: (o, l, request) => {
        const got = inner.read(o, state.shrunk ? Math.max(0, l - cut) : l);
        if (!request?.into) return got;
        request.into.set(got);
        return request.into.subarray(0, got.byteLength);
      },
    };
    return { source, state };
  }

  for (const [mode, options] of [
    ['fresh buffers', {}],
    ['reuse', { reuse: true }],
    ['reuse, lazy', { reuse: true, decode: 'lazy' }],
  ] as const) {
    it(`sample(i) with ${mode} rejects with Truncated, not a short value`, async () => {
      const bytes = await mixedFile(50);
      const { source, state } = shrinking(bytes, 7);
      const reader = await openMldf(source);
      await reader.sample(3, options); // rows cached before the file shrinks
      state.shrunk = true;
      const error = await reader.sample(4, options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBinscopeError(error, 'FormatError') ? error.code : error).toBe('Truncated');
    });
  }
});
