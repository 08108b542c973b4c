import { isBinscopeError, MemorySource, type ProgressEvent } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { expectProgressToEnd } from '@binscope/testkit';
import { arr } from './helpers.js';
import { openUdf, type TableInfo, UdfBuilder, type UdfDataset, validateUdf } from '../src/index.js';

function baseFile(): Uint8Array {
  const file = new UdfBuilder({ id: 'BASE' });
  const child = file.dataset({ id: 'KID' });
  child.table('vals', { prim: 'i32', data: [1, 2, 3] });
  const root = file.dataset({ id: 'ROOT' });
  root.table('pts', { prim: 'f32', hint: 'coord', shape: [4, 2], data: [0, 0, 1, 0, 1, 1, 0, 1] });
  root.table('tri', { prim: 'u16', hint: 'index', indexName: 'pts', data: [0, 1, 2, 3] });
  root.table('spans', { prim: 'u32', hint: 'range', indexName: 'pts', shape: [2, 2], data: [0, 2, 2, 4] });
  root.text('name', 'hello');
  root.text('list32', ['ab', 'c'], { encoding: 'utf32' });
  root.json('meta', [1, 2]);
  root.table('ids', { prim: 'u8', data: [1, 2, 3, 4], relatedName: 'pts' });
  root.table('rgb', { prim: 'u8', hint: 'rgb', shape: [4, 3], data: new Uint8Array(12) });
  root.datasets('kids', [child]);
  file.setRoot(root);
  return file.toBytes();
}

interface Ctx {
  bytes: Uint8Array;
  view: DataView;
  root: UdfDataset;
  t: (name: string) => TableInfo;
  /** Absolute offset of the lookup entry for `name`. */
  entry: (name: string) => number;
}

async function context(): Promise<Ctx> {
  const bytes = baseFile();
  const reader = await openUdf(new MemorySource(bytes.slice()));
  const root = (await reader.root())!;
  const lookupAt = root.fileOffset.offset + 0x18 + 0x30 * root.header.descsLen;
  return {
    bytes,
    view: new DataView(bytes.buffer),
    root,
    t: (name) => root.table(name)!,
    entry: (name) => lookupAt + 8 * root.names.findIndex((n) => n.string === name),
  };
}

async function strictRead(bytes: Uint8Array): Promise<void> {
  const reader = await openUdf(new MemorySource(bytes));
  for await (const d of reader.walk()) for (const t of d.tables) await d.read(t);
}

type Case = [
  name: string,
  mutate: (c: Ctx) => Uint8Array | undefined,
  code: string,
  offset: (c: Ctx) => number,
];

const cases: Case[] = [
  ['bad magic', (c) => void c.bytes.set([0x55, 0x44, 0x58, 0x30], 0), 'BadMagic', () => 2],
  ['not UDF at all', (c) => void c.bytes.set([0x50, 0x4b], 0), 'BadMagic', () => 0],
  ['a later revision', (c) => void (c.bytes[3] = 0x31), 'UnsupportedVersion', () => 3],
  ['file shorter than its header', (c) => c.bytes.slice(0, 40), 'Truncated', () => 0],
  ['non-printable file id', (c) => void (c.bytes[5] = 0x07), 'InvalidValue', () => 4],
  ['file header reserved', (c) => void c.view.setUint32(0x30, 1, true), 'ReservedNonZero', () => 0x30],
  ['root offset 0 with a size', (c) => void c.view.setUint32(0x10, 0, true), 'InvalidValue', () => 0x10],
  [
    'misaligned root',
    (c) => void c.view.setUint32(0x10, c.root.fileOffset.offset + 8, true),
    'Misaligned',
    () => 0x10,
  ],
  ['root into the file header', (c) => void c.view.setUint32(0x10, 0x20, true), 'OutOfBounds', () => 0x10],
  ['root past the end', (c) => void c.view.setUint32(0x14, 1, true), 'OutOfBounds', () => 0x10],
  ['truncated root', (c) => c.bytes.slice(0, c.root.fileOffset.offset + 64), 'Truncated', () => 0x10],
  [
    'bad check value',
    (c) => void (c.bytes[c.root.fileOffset.offset] ^= 1),
    'InvalidValue',
    (c) => c.root.fileOffset.offset,
  ],
  [
    'header_size not a multiple of 8',
    (c) => void c.view.setUint16(c.root.fileOffset.offset + 0x0c, c.root.header.headerSize + 4, true),
    'Misaligned',
    (c) => c.root.fileOffset.offset + 0x0c,
  ],
  [
    'header_size too small (U2)',
    (c) => void c.view.setUint16(c.root.fileOffset.offset + 0x0c, c.root.header.headerSize - 8, true),
    'CountMismatch',
    (c) => c.root.fileOffset.offset + 0x0c,
  ],
  [
    'header_size past the dataset',
    (c) => void c.view.setUint16(c.root.fileOffset.offset + 0x0c, c.root.fileOffset.size + 8, true),
    'OutOfBounds',
    (c) => c.root.fileOffset.offset + 0x0c,
  ],
  [
    'type_info bit 6',
    (c) => void (c.bytes[c.t('ids').descriptorOffset + 4] |= 0x40),
    'ReservedNonZero',
    (c) => c.t('ids').descriptorOffset + 4,
  ],
  [
    'type_info bit 15',
    (c) => void (c.bytes[c.t('ids').descriptorOffset + 5] |= 0x80),
    'ReservedNonZero',
    (c) => c.t('ids').descriptorOffset + 4,
  ],
  [
    'reserved primitive 1',
    (c) => void (c.bytes[c.t('ids').descriptorOffset + 4] = 0x11),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset + 4,
  ],
  [
    'reserved primitive 13',
    (c) => void (c.bytes[c.t('ids').descriptorOffset + 4] = 0x1d),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset + 4,
  ],
  [
    'primitive X bit',
    (c) => void (c.bytes[c.t('ids').descriptorOffset + 4] |= 0x80),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset + 4,
  ],
  [
    'compressed table (U12)',
    (c) => void c.view.setUint16(c.t('ids').descriptorOffset + 6, 1, true),
    'UnsupportedFeature',
    (c) => c.t('ids').descriptorOffset + 6,
  ],
  [
    'TEXT of f32',
    (c) => void (c.bytes[c.t('name').descriptorOffset + 4] = 0x0a),
    'InvalidValue',
    (c) => c.t('name').descriptorOffset + 4,
  ],
  [
    'RGB with 5 channels',
    (c) => void c.view.setUint32(c.t('rgb').descriptorOffset + 0x18, 5, true),
    'InvalidValue',
    (c) => c.t('rgb').descriptorOffset + 0x14,
  ],
  [
    'JSON with a ghost axis',
    (c) => void c.view.setUint32(c.t('meta').descriptorOffset + 0x18, 1, true),
    'InvalidValue',
    (c) => c.t('meta').descriptorOffset + 0x14,
  ],
  [
    'index_name on a NONE table',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset + 0x1c, c.t('pts').keyHash, true),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset + 0x1c,
  ],
  [
    'INDEX without index_name',
    (c) => void c.view.setUint32(c.t('tri').descriptorOffset + 0x1c, 0, true),
    'InvalidValue',
    (c) => c.t('tri').descriptorOffset + 0x1c,
  ],
  [
    'mem_end below mem_start',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset + 0x0c, c.t('ids').memStart - 1, true),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset + 0x0c,
  ],
  [
    'data past the dataset',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset + 0x0c, 100_000, true),
    'OutOfBounds',
    // The byte of mem_end, the value that runs past (mem_start is in range).
    (c) => c.t('ids').descriptorOffset + 0x0c,
  ],
  [
    'data_size over its blocks',
    (c) => void c.view.setUint32(c.t('name').descriptorOffset + 0x10, 9, true),
    'OutOfBounds',
    (c) => c.t('name').descriptorOffset + 0x10,
  ],
  [
    'data_size vs shape',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset + 0x10, 3, true),
    'CountMismatch',
    (c) => c.t('ids').descriptorOffset + 0x10,
  ],
  [
    'lookup hash 0',
    (c) => void c.view.setUint32(c.entry('ids'), 0, true),
    'InvalidValue',
    (c) => c.entry('ids'),
  ],
  [
    'duplicate lookup hash',
    (c) => void c.view.setUint32(c.entry('ids'), c.t('pts').keyHash, true),
    'InvalidValue',
    (c) => c.entry('ids'),
  ],
  [
    'name past the string blob',
    (c) => void c.view.setUint16(c.entry('ids') + 4, 0xff00, true),
    'OutOfBounds',
    (c) => c.entry('ids') + 4,
  ],
  [
    'key_name not in the lookup table',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset, 12345, true),
    'InvalidValue',
    (c) => c.t('ids').descriptorOffset,
  ],
  [
    'INDEX target not 1D',
    (c) => void c.view.setUint32(c.t('tri').descriptorOffset + 0x1c, c.t('name').keyHash, true),
    'InvalidValue',
    (c) => c.t('tri').descriptorOffset + 0x1c,
  ],
  [
    'related shape differs (U14)',
    (c) => void c.view.setUint32(c.t('ids').descriptorOffset + 0x20, c.t('name').keyHash, true),
    'CountMismatch',
    (c) => c.t('ids').descriptorOffset + 0x20,
  ],
  [
    'INDEX value ≥ target length (U13)',
    (c) => void c.view.setUint16(c.t('tri').dataOffset + 4, 4, true),
    'OutOfBounds',
    (c) => c.t('tri').dataOffset + 4,
  ],
  [
    'RANGE start after end',
    (c) => void c.view.setUint32(c.t('spans').dataOffset, 3, true),
    'InvalidValue',
    (c) => c.t('spans').dataOffset,
  ],
  [
    'RANGE end past target',
    (c) => void c.view.setUint32(c.t('spans').dataOffset + 12, 5, true),
    'OutOfBounds',
    (c) => c.t('spans').dataOffset + 12,
  ],
  [
    'bad UTF-8 text',
    (c) => void (c.bytes[c.t('name').dataOffset + 1] = 0xff),
    'InvalidValue',
    (c) => c.t('name').dataOffset,
  ],
  [
    'bad UTF-32 text',
    (c) => void c.view.setUint32(c.t('list32').dataOffset, 0xd800, true),
    'InvalidValue',
    (c) => c.t('list32').dataOffset,
  ],
  [
    'bad JSON',
    (c) => void (c.bytes[c.t('meta').dataOffset] = 0x7b),
    'InvalidValue',
    (c) => c.t('meta').dataOffset,
  ],
  [
    'JSON length vs shape (U11)',
    (c) => void c.view.setUint32(c.t('meta').descriptorOffset + 0x14, 3, true),
    'CountMismatch',
    (c) => c.t('meta').dataOffset,
  ],
  [
    'misaligned child (DATASET)',
    (c) => void c.view.setUint32(c.t('kids').dataOffset, 72, true),
    'Misaligned',
    (c) => c.t('kids').dataOffset,
  ],
  [
    'child offset 0 with a size',
    (c) => void c.view.setUint32(c.t('kids').dataOffset, 0, true),
    'InvalidValue',
    (c) => c.t('kids').dataOffset,
  ],
  [
    'child past the end',
    (c) => void c.view.setUint32(c.t('kids').dataOffset + 4, 1, true),
    'OutOfBounds',
    (c) => c.t('kids').dataOffset,
  ],
];

describe('validate and the strict reader agree on every rule', () => {
  it('accepts the base file', async () => {
    const c = await context();
    const report = await validateUdf(new MemorySource(c.bytes));
    expect(report).toEqual({ valid: true, errors: [], warnings: [] });
    await strictRead(c.bytes);
  });

  for (const [name, mutate, code, offset] of cases) {
    it(`${name} → ${code}`, async () => {
      const c = await context();
      const bytes = mutate(c) ?? c.bytes;
      const report = await validateUdf(new MemorySource(bytes));
      expect(report.valid).toBe(false);
      expect(report.errors[0], JSON.stringify(report.errors)).toMatchObject({
        code,
        offset: offset(c),
        format: 'udf',
      });
      const error = await strictRead(bytes).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBinscopeError(error, 'FormatError'), String(error)).toBe(true);
      expect((error as { code: string }).code).toBe(code);
    });
  }
});

describe('only reported (U8)', () => {
  const warned: [string, (c: Ctx) => void][] = [
    ['file header next', (c) => c.view.setUint32(8, 7, true)],
    ['dataset header reserved', (c) => c.view.setUint16(c.root.fileOffset.offset + 0x14, 1, true)],
    ['descriptor reserved', (c) => c.view.setUint32(c.t('ids').descriptorOffset + 0x2c, 1, true)],
  ];
  for (const [name, mutate] of warned) {
    it(`${name} is a warning, and the file still reads`, async () => {
      const c = await context();
      mutate(c);
      const report = await validateUdf(new MemorySource(c.bytes));
      expect(report.errors).toEqual([]);
      expect(report.warnings.length).toBe(1);
      expect(report.warnings[0].code).toBe('ReservedNonZero');
      await strictRead(c.bytes);
    });
  }

  it('checksums are opaque: any value reads and validates (U4)', async () => {
    const c = await context();
    c.view.setUint32(c.root.fileOffset.offset + 4, 0xdeadbeef, true);
    c.view.setUint32(c.t('ids').descriptorOffset + 0x28, 0x12345678, true);
    expect((await validateUdf(new MemorySource(c.bytes))).valid).toBe(true);
  });

  it('unknown hints decode as plain arrays (U8)', async () => {
    const c = await context();
    c.bytes[c.t('ids').descriptorOffset + 5] = 0x0c; // hint 12: reserved
    expect((await validateUdf(new MemorySource(c.bytes))).valid).toBe(true);
    const reader = await openUdf(new MemorySource(c.bytes));
    const ids = await (await reader.root())!.read('ids');
    expect(arr(ids.values!)).toEqual([1, 2, 3, 4]);
  });

  it('reports several defects in different datasets and tables', async () => {
    const c = await context();
    c.view.setUint16(c.t('tri').dataOffset, 9, true);
    c.bytes[c.t('name').dataOffset] = 0xff;
    const kid = (await (await openUdf(new MemorySource(baseFile()))).allDatasets())[1];
    c.bytes[kid.table('vals')!.descriptorOffset + 4] |= 0x40;
    const report = await validateUdf(new MemorySource(c.bytes));
    expect(report.errors.map((e) => e.code)).toEqual(['OutOfBounds', 'InvalidValue', 'ReservedNonZero']);
  });
});

describe('validate reports progress', () => {
  it('counts the bytes of the tables checked up to the file size', async () => {
    const bytes = baseFile();
    const events: ProgressEvent[] = [];
    const report = await validateUdf(new MemorySource(bytes), { onProgress: (e) => events.push(e) });
    expect(report.errors).toEqual([]);
    expectProgressToEnd(events);
    expect(events[0].total).toBe(bytes.byteLength);
  });
});
