import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  fileTarget,
  type InspectResult,
  isBinscopeError,
  MemorySource,
  nodesAlong,
  nodesAt,
  type Problem,
  toPlainTree,
} from '@binscope/core';
import { describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FieldSpec, mldfPlugin, openMldf, validateMldf, writeMldf } from '../src/index.js';
import { MLDF_VECTORS, readBytes, VECTORS_NEEDED, VECTORS_PRESENT, validVectors } from './helpers.js';

const INVALID = path.join(MLDF_VECTORS, 'invalid');

/** The invalid vectors and the class their README expects. */
function invalidVectors(): Array<{ name: string; file: string; code: string }> {
  if (!VECTORS_PRESENT) return [];
  const readme = fs.readFileSync(path.join(INVALID, 'README.md'), 'utf8');
  return [...readme.matchAll(/^\| (\S+\.mldf) \|.*\| (\w+) \|$/gm)].map(([, name, code]) => ({
    name,
    file: path.join(INVALID, name),
    code,
  }));
}

/** The strict reader: open (verifying checksums), then every sample and the allocation table; the error it throws. */
async function strictRead(bytes: Uint8Array): Promise<{ code: string; offset?: number } | undefined> {
  try {
    const reader = await openMldf(new MemorySource(bytes, 'f.mldf'), { verify: true });
    for await (const _ of reader.batches()) {
      // decoding every value is the check
    }
    await reader.checkAllocations();
    return undefined;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { code: error.code, offset: error.offset };
  }
}

/** Whether open alone (the structural parse in read mode, and the checksums) rejects the file. */
async function openError(bytes: Uint8Array): Promise<{ code: string; offset?: number } | undefined> {
  try {
    await openMldf(new MemorySource(bytes, 'f.mldf'), { verify: true });
    return undefined;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { code: error.code, offset: error.offset };
  }
}

const brief = (p: Problem | undefined) => p && { code: p.code, offset: p.offset };

/** Every error is marked on a node below the root that owns its byte (when the byte exists). */
async function expectMarked(result: InspectResult, size: number): Promise<void> {
  expect(result.root.children?.length ?? 0).toBeGreaterThan(0);
  for (const error of result.errors) {
    const at = result.located.find(
      (l) => l.severity === 'error' && l.code === error.code && l.offset === error.offset,
    );
    expect(at, `${error.code} at ${error.offset} is located`).toBeDefined();
    if (error.offset !== undefined && error.offset < size) {
      expect(at!.indexPath.length, `${error.code} at ${error.offset} is below the root`).toBeGreaterThan(0);
      // The path may go into a table's lazy rows (the field that holds the offending value).
      const owner = (await nodesAlong(result.root, at!.indexPath)).at(-1)!;
      expect(error.offset).toBeGreaterThanOrEqual(owner.offset);
      expect(error.offset).toBeLessThan(owner.offset + owner.length);
    }
  }
}

/** Strict read, validate and inspect on one file: the same first error, and a marked tree. */
async function expectAgreement(bytes: Uint8Array): Promise<InspectResult> {
  const source = new MemorySource(bytes, 'f.mldf');
  const result = await mldfPlugin.inspectTarget(fileTarget(source));
  const report = await validateMldf(source);
  expect(result.errors).toEqual(report.errors);
  await expectMarked(result, bytes.byteLength);
  const opened = await openError(bytes);
  // Whatever the structural parse finds, open throws first; past it, reading throws one of
  // validate's errors (reading decodes sample by sample, validate checks every struct first).
  if (opened) expect(opened).toEqual(brief(report.errors[0]));
  else {
    const read = await strictRead(bytes);
    if (read) expect(report.errors.map(brief)).toContainEqual(read);
  }
  return result;
}

describeWith(VECTORS_NEEDED, 'inspect mode over the invalid vectors', () => {
  for (const v of invalidVectors()) {
    it(`${v.name}: a partial tree with the ${v.code} marked on its node, as read and validate report it`, async () => {
      const bytes = readBytes(v.file);
      const result = await expectAgreement(bytes);
      expect(result.valid).toBe(false);
      expect(result.errors[0].code).toBe(v.code);
      expect(brief(result.errors[0])).toEqual((await strictRead(bytes)) ?? 'no error');
      const first = result.located.find((l) => l.code === v.code)!;
      expect(first.path).not.toBe('');
    });
  }
});

describeWith(VECTORS_NEEDED, 'inspect mode over the valid vectors', () => {
  for (const v of validVectors()) {
    it(`${v.name}: valid, and the same tree as inspect of the opened file`, async () => {
      const source = new MemorySource(readBytes(v.file), path.basename(v.file));
      const result = await mldfPlugin.inspectTarget(fileTarget(source));
      expect(result.valid).toBe(true);
      const opened = await mldfPlugin.inspect(await mldfPlugin.open(fileTarget(source)));
      expect(withoutMarks(toPlainTree(result.root))).toEqual(toPlainTree(opened));
    });
  }
});

/** Warnings (non-canonical layout) are marked on valid trees; the structure must match. */
function withoutMarks<T extends { problems?: unknown; children?: T[] }>(n: T): T {
  const { problems: _problems, children, ...rest } = n;
  return { ...rest, ...(children ? { children: children.map(withoutMarks) } : {}) } as T;
}

describe('inspect mode over written files broken on purpose', async () => {
  const fields: FieldSpec[] = [
    { name: 'label', type: 'INT' },
    { name: 'blob', type: 'BYTES' },
    { name: 'meta', type: 'JSON' },
    { name: 'img', type: 'IMAGE_RAW' },
  ];
  const samples = Array.from({ length: 5 }, (_, i) => ({
    label: i,
    blob: Uint8Array.of(i, i + 1, i + 2),
    meta: { i },
    img: { height: 1, width: 2, channels: 1, pixels: Uint8Array.of(i, i) },
  }));
  const good = await writeMldf(fields, samples, { pageSize: 256 });
  const summed = await writeMldf(fields, samples, { pageSize: 256, checksum: true });
  const reader = await openMldf(new MemorySource(good));
  const { metadataPtr, dataPtr } = reader.header;
  const row = (i: number) => metadataPtr + i * reader.rowSize;
  const blobAt = reader.getField('blob').metadataOffset;

  it('the written file inspects valid', async () => {
    const result = await expectAgreement(good);
    expect(result.valid).toBe(true);
    expect(result.located).toEqual([]);
  });

  it('a value pointer past the end: marked on its row field and sample value; other samples keep their nodes', async () => {
    const bad = good.slice();
    new DataView(bad.buffer).setBigUint64(row(2) + blobAt, BigInt(bad.byteLength + 4096), true);
    const result = await expectAgreement(bad);
    expect(result.errors.map((e) => e.code)).toEqual(['OutOfBounds']);
    const table = result.root.children!.find((c) => c.name === 'metadata table')!;
    const rows = await table.lazy!.load(0, table.lazy!.count);
    expect(rows).toHaveLength(5);
    const marked = nodesAt(rows[2], row(2) + blobAt);
    expect(marked.at(-1)!.name).toBe('data_ptr');
    expect(marked.at(-1)!.problems?.[0].code).toBe('OutOfBounds');
    expect(rows.filter((r) => JSON.stringify(r).includes('OutOfBounds'))).toHaveLength(1);
    const region = result.root.children!.find((c) => c.name === 'data region')!;
    const data = await region.lazy!.load(0, region.lazy!.count);
    expect(data).toHaveLength(5);
    const value = data[2].children!.find((c) => c.name === 'blob')!;
    expect(value.problems?.[0].code).toBe('OutOfBounds');
    expect(value.offset + value.length).toBeLessThanOrEqual(bad.byteLength);
    expect(data[3].children!.map((c) => c.name)).toEqual(['blob', 'meta', 'img']);
  });

  it('a JSON value that does not parse is marked on its value node, as validate reports it', async () => {
    const bad = good.slice();
    const metaAt = reader.getField('meta').metadataOffset;
    const ptr = Number(new DataView(bad.buffer).getBigUint64(row(3) + metaAt, true));
    bad[ptr] = 0x5d;
    const result = await expectAgreement(bad);
    expect(result.errors.map((e) => [e.code, e.offset])).toEqual([['InvalidValue', ptr]]);
    const region = result.root.children!.find((c) => c.name === 'data region')!;
    const data = await region.lazy!.load(3, 4);
    expect(data[0].children!.find((c) => c.name === 'meta')!.problems?.[0].code).toBe('InvalidValue');
  });

  it('an allocation mismatch and a JSON value that does not parse: both reported, as the reader meets them', async () => {
    // Found by the property below: validate stopped at the allocation table, while the strict
    // reader, which decodes the values first, threw the JSON error.
    const bad = good.slice();
    const metaAt = reader.getField('meta').metadataOffset;
    const view = new DataView(bad.buffer);
    view.setBigUint64(row(4) + blobAt, view.getBigUint64(row(4) + blobAt, true) + 1n, true);
    const json = Number(view.getBigUint64(row(0) + metaAt, true));
    bad[json] ^= 1;
    const result = await expectAgreement(bad);
    expect(result.errors.map((e) => e.code)).toEqual(['CountMismatch', 'InvalidValue']);
    expect(result.errors[1].offset).toBe(json);
  });

  it('a bad descriptor keeps the other descriptors as nodes and marks its own', async () => {
    const bad = good.slice();
    new DataView(bad.buffer).setUint16(reader.getField('blob').descriptorOffset + 64, 99, true);
    const result = await expectAgreement(bad);
    const table = result.root.children!.find((c) => c.name === 'field descriptors')!;
    expect(table.children!.map((c) => c.name)).toEqual(['label', 'field 1', 'meta', 'img']);
    expect(table.children![1].children!.find((c) => c.name === 'type_id')!.problems?.[0].code).toBe(
      'InvalidValue',
    );
  });

  it('a checksummed file with corrupted data or metadata: the region is marked', async () => {
    const data = summed.slice();
    data[dataPtr + 1] ^= 0xff;
    const dataResult = await expectAgreement(data);
    expect(dataResult.located.map((l) => [l.code, l.path])).toEqual([['InvalidValue', 'data region']]);
    const meta = summed.slice();
    meta[metadataPtr] ^= 0x01;
    const metaResult = await expectAgreement(meta);
    expect(metaResult.located.map((l) => [l.code, l.path])).toEqual([['InvalidValue', 'metadata table']]);
  });

  it('a bad magic or version still shows the header fields, with magic / version_major marked', async () => {
    const magic = good.slice();
    magic[3] = 0;
    const m = await expectAgreement(magic);
    expect(m.located.map((l) => l.path)).toEqual(['magic']);
    expect(m.root.children![1].children!.map((c) => c.name)).toContain('alloc_table_ptr');
    const version = good.slice();
    version[9] = 7;
    const v = await expectAgreement(version);
    expect(v.located.map((l) => l.path)).toEqual(['header/version_major']);
  });

  it('cut at every structure boundary and many points between: never throws, always agrees', async () => {
    const points = new Set([
      0,
      1,
      5,
      9,
      10,
      40,
      72,
      73,
      100,
      281,
      metadataPtr,
      row(1) + 3,
      dataPtr,
      dataPtr + 7,
    ]);
    for (let n = 0; n < good.byteLength; n += 37) points.add(n);
    for (const n of points) {
      const cut = good.subarray(0, Math.min(n, good.byteLength - 1));
      const result = await expectAgreement(cut);
      expect(result.valid, `cut at ${n}`).toBe(false);
    }
  });

  it('reader, validator and inspector cannot disagree (random truncations and byte flips)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.tuple(fc.nat({ max: good.byteLength - 1 }), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat({ max: good.byteLength }),
        async (checksummed, flips, cut) => {
          const bytes = (checksummed ? summed : good).slice(0, Math.max(cut, 1));
          for (const [at, xor] of flips) if (at < bytes.byteLength) bytes[at] ^= xor;
          await expectAgreement(bytes);
        },
      ),
      { numRuns: 300 },
    );
  });
});
