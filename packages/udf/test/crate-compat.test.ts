import { isBinscopeError, MemorySource, walk } from '@binscope/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decompress, SIMPLE_F32, SIMPLE_U16, SIMPLE_U32 } from '../src/compress.js';
import { encodeSimpleF32, encodeSimpleU16, encodeSimpleU32 } from '../src/compress-encode.js';
import { openUdf, UdfBuilder, udfPlugin, validateUdf } from '../src/index.js';
import { arr, jsonRecords } from './helpers.js';

/**
 * Files as the udf crate (CasualX/UntitledDataFormat, `rust/src`) writes them. There is no Rust
 * toolchain here, so each fixture reproduces the crate's bytes with binscope's builder: the
 * table layout comes from the crate's `AsDataRef` impls (asdata.rs), which `Dataset::add_table`
 * copies into the descriptor unchanged (type_info, `Shape::encode()` as data_shape, the bytes'
 * length as data_size), and compressed streams from its `compress` module.
 */

async function open(bytes: Uint8Array) {
  const reader = await openUdf(new MemorySource(bytes));
  return { reader, root: (await reader.root())! };
}

const f32 = (xs: number[]) => xs.map((x) => Math.fround(x));

/** The crate's convenience layouts, one table each. */
function convenienceFile(): Uint8Array {
  const file = new UdfBuilder({ id: 'CRAT' });
  const root = file.dataset({ id: 'ROOT' });
  // `[f32; 6].as_data_ref()`: NONE | DIM_SCALAR | F32, Shape::D1(6) → data_shape [6, 0].
  root.table('arr6', { prim: 'f32', dims: 0, shape: [6], data: [1, 2, 3, 4, 5, 6] });
  // `<[[u16; 3]]>::as_data_ref()` of 2 rows: NONE | DIM_1D | U16, Shape::D2(2, 3) → [2, 3].
  root.table('rows', { prim: 'u16', dims: 1, shape: [2, 3], data: [1, 2, 3, 4, 5, 6] });
  // `[[i32; 2]; 3].as_data_ref()`: NONE | DIM_SCALAR | I32, Shape::D2(3, 2) → [3, 2].
  root.table('grid', { prim: 'i32', dims: 0, shape: [3, 2], data: [1, -2, 3, -4, 5, -6] });
  // `<[[[u8; 2]; 2]]>::as_data_ref()` of 1: NONE | DIM_1D | U8, Shape::D3(1, 2, 2).
  root.table('cube', { prim: 'u8', dims: 1, shape: [1, 2, 2], data: [9, 8, 7, 6] });
  // `Transform2F32.as_data_ref()`: TRANSFORM | DIM_SCALAR | F32, Shape::D1(6): ONE ghost axis of 6.
  root.table('xf', { prim: 'f32', hint: 'transform', dims: 0, shape: [6], data: [1, 0, 0, 0, 1, 0] });
  // `<[Transform2F32]>::as_data_ref()` of 1: TRANSFORM | DIM_1D | F32, Shape::D2(1, 6).
  root.table('xfs', { prim: 'f32', hint: 'transform', dims: 1, shape: [1, 6], data: [2, 0, 1, 0, 2, 1] });
  // `<[Transform3F32]>::as_data_ref()` of 1: Shape::D2(1, 12).
  root.table('xf3', { prim: 'f32', hint: 'transform', dims: 1, shape: [1, 12], data: new Float32Array(12) });
  // `Index2U32.as_data_ref()`: INDEX | DIM_SCALAR | U32, Shape::D1(2), into `rows`... a 1D target.
  root.table('pair', { prim: 'u32', hint: 'index', dims: 0, shape: [2], data: [0, 1], indexName: 'rows' });
  // `<[HatchF32]>::as_data_ref()` of 1: hint 7 (the spec's LINE) | DIM_1D | F32, Shape::D2(1, 4).
  root.table('hatch', { prim: 'f32', hint: 'line', dims: 1, shape: [1, 4], data: [0, 0, 1, 1] });
  file.setRoot(root);
  return file.toBytes();
}

describe('files written through the udf crate convenience API read in full (U15)', () => {
  it('ghost axes under NONE, [[T; M]] slices, 6- and 12-value transforms: valid, every value read', async () => {
    const bytes = convenienceFile();
    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(true);
    const { root } = await open(bytes);
    const arr6 = root.table('arr6')!;
    expect(arr6.dataShapeRaw).toEqual([6, 0]);
    expect(arr6.typeInfo).toBe(0x000a);
    expect([arr6.dims, arr6.shape, arr6.ghostDims, arr6.elementCount]).toEqual([0, [6], 1, 6]);
    expect(arr((await root.read('arr6')).values)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(arr((await root.read('rows')).values)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(root.table('rows')!.dataShapeRaw).toEqual([2, 3]);
    expect(arr((await root.read('grid')).values)).toEqual([1, -2, 3, -4, 5, -6]);
    expect(root.table('cube')!.shape).toEqual([1, 2, 2]);
    expect(arr((await root.read('cube')).values)).toEqual([9, 8, 7, 6]);
    const xf = root.table('xf')!;
    expect([xf.typeInfo, xf.dataShapeRaw, xf.elementCount]).toEqual([0x080a, [6, 0], 6]);
    expect(arr((await root.read('xf')).values)).toEqual([1, 0, 0, 0, 1, 0]);
    expect(arr((await root.read('xfs')).values)).toEqual([2, 0, 1, 0, 2, 1]);
    expect((await root.read('xf3')).values!.length).toBe(12);
    expect(arr((await root.read('pair')).values)).toEqual([0, 1]);
  });

  it('cat shows a crate ghost-axis table as its values', async () => {
    const reader = await openUdf(new MemorySource(convenienceFile()));
    const records = await jsonRecords(reader);
    expect(records.map((r) => r.table)).toEqual([
      'arr6',
      'rows',
      'grid',
      'cube',
      'xf',
      'xfs',
      'xf3',
      'pair',
      'hatch',
    ]);
    expect(records[0]).toMatchObject({ shape: [6], values: [1, 2, 3, 4, 5, 6] });
    expect(records.some((r) => 'error' in r)).toBe(false);
  });

  it('a data_size that disagrees counts ghost axes in the rule and the message', async () => {
    const bytes = convenienceFile();
    const { root } = await open(bytes);
    // `[Transform2F32]` of 1 holds 6 values (24 bytes); claim 20.
    const at = root.table('xfs')!.descriptorOffset + 0x10;
    new DataView(bytes.buffer).setUint32(at, 20, true);
    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: 'CountMismatch', offset: at });
    expect(report.errors[0].message).toContain('data_size 20 != 6 elements × 4 bytes');
    expect(report.errors[0].message).toContain('declared axes [1] × ghost axis [6]');
    expect(report.errors[0].message).not.toMatch(/\b0 elements/);
  });

  it('what stays invalid: a transform with three ghost axes, JSON with one', async () => {
    const file = new UdfBuilder();
    const root = file.dataset();
    expect(() =>
      root.table('xf', {
        prim: 'f32',
        hint: 'transform',
        dims: 0,
        shape: [1, 2, 3],
        data: new Float32Array(6),
      }),
    ).toThrow(/1 to 2 ghost axes/);
    root.table('xf', { prim: 'f32', hint: 'transform', dims: 0, shape: [2, 3], data: new Float32Array(6) });
    root.json('meta', [1]);
    file.setRoot(root);
    const bytes = file.toBytes();
    const { root: r } = await open(bytes);
    const view = new DataView(bytes.buffer);
    view.setUint32(r.table('xf')!.descriptorOffset + 0x18, (1 << 24) | 3, true); // [2, 3, 1]
    view.setUint32(r.table('meta')!.descriptorOffset + 0x18, 5, true); // [1, 5]
    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors.map((e) => e.code)).toEqual(['InvalidValue', 'InvalidValue']);
    expect(report.errors[0].message).toContain('needs 1 to 2 ghost axes');
  });
});

// Streams worked out by hand from the crate's `compress` module (simplu32.rs, simplu16.rs,
// simpf32.rs), opcode by opcode; comments give the call that writes them.
const GOLDEN = {
  // SimpleU32.compress(&mut buf, &[0, 1]) (its REGRESSION1): a run of one 0, which bumps the
  // last value to 1, then a run of one 1.
  u32Runs: { values: [0, 1], stream: [0xe0, 0xe0] },
  // SimpleU32.compress(&mut buf, &[16209, 59, 3994, 59]) (its REGRESSION2): a 20-bit delta,
  // a negative 20-bit delta, a 14-bit delta, then 59 again from lookup slot hash32(59) % 64 = 56.
  u32Mixed: { values: [16209, 59, 3994, 59], stream: [0xc0, 0x3f, 0x50, 0xcf, 0xc0, 0xea, 0x4f, 0x5e, 0xb8] },
  // SimpleU32.compress(&mut buf, &[0x9000_0000]): beyond 28-bit deltas, one raw value.
  u32Raw: { values: [0x90000000], stream: [0xf0, 0x00, 0x00, 0x00, 0x90] },
  // SimpleU16::compress(&mut buf, &[0, 1, 1000, 40000]): a run of 0, a run of 1 (each bumps the
  // last value), a 14-bit delta from 2, a raw value.
  u16: { values: [0, 1, 1000, 40000], stream: [0xc0, 0xc0, 0x43, 0xe5, 0xe0, 0x40, 0x9c] },
  // SimpleF32 { unit: 0.5 }.compress(&mut buf, &[1.0, 1.5, -2.0]): unit 0.5 (00 00 00 3f), then
  // SimpleU32 over 2, 3, -4: deltas +2, +1, -7.
  f32: { values: [1, 1.5, -2], unit: 0.5, stream: [0x00, 0x00, 0x00, 0x3f, 0x01, 0x00, 0x39] },
};

function compressedFile(): Uint8Array {
  const file = new UdfBuilder({ id: 'COMP' });
  const root = file.dataset({ id: 'ROOT' });
  root.table('plain', { prim: 'u8', data: [7, 8] });
  root.table('ids', { prim: 'u32', data: GOLDEN.u32Mixed.values, compress: 'simple-u32' });
  root.table('zeros', { prim: 'u32', data: new Uint32Array(100), compress: 'simple-u32' });
  root.table('short', { prim: 'u16', data: GOLDEN.u16.values, compress: 'simple-u16' });
  root.table('pos', {
    prim: 'f32',
    hint: 'coord',
    dims: 1,
    shape: [3, 1],
    data: GOLDEN.f32.values,
    compress: { scheme: 'simple-f32', unit: GOLDEN.f32.unit },
  });
  root.table('big', {
    prim: 'i32',
    data: Int32Array.from({ length: 70_000 }, (_, i) => i - 5),
    compress: 'simple-u32',
  });
  file.setRoot(root);
  return file.toBytes();
}

describe("tables compressed with the crate's schemes (U12)", () => {
  it('the encoders write the streams the crate writes', () => {
    expect([...encodeSimpleU32(Uint32Array.from(GOLDEN.u32Runs.values))]).toEqual(GOLDEN.u32Runs.stream);
    expect([...encodeSimpleU32(Uint32Array.from(GOLDEN.u32Mixed.values))]).toEqual(GOLDEN.u32Mixed.stream);
    expect([...encodeSimpleU32(Uint32Array.from(GOLDEN.u32Raw.values))]).toEqual(GOLDEN.u32Raw.stream);
    expect([...encodeSimpleU16(Uint16Array.from(GOLDEN.u16.values))]).toEqual(GOLDEN.u16.stream);
    expect([...encodeSimpleF32(Float32Array.from(GOLDEN.f32.values), GOLDEN.f32.unit)]).toEqual(
      GOLDEN.f32.stream,
    );
  });

  it('the crate streams decode to their values', () => {
    const dec = (scheme: typeof SIMPLE_U32, stream: number[], count: number) => {
      const r = decompress(scheme, Uint8Array.from(stream), count);
      if (!r.ok) throw new Error(r.message);
      return r.bytes;
    };
    const u32 = (b: Uint8Array) => [...new Uint32Array(b.buffer)];
    expect(u32(dec(SIMPLE_U32, GOLDEN.u32Runs.stream, 2))).toEqual(GOLDEN.u32Runs.values);
    expect(u32(dec(SIMPLE_U32, GOLDEN.u32Mixed.stream, 4))).toEqual(GOLDEN.u32Mixed.values);
    expect(u32(dec(SIMPLE_U32, GOLDEN.u32Raw.stream, 1))).toEqual(GOLDEN.u32Raw.values);
    expect([...new Uint16Array(dec(SIMPLE_U16, GOLDEN.u16.stream, 4).buffer)]).toEqual(GOLDEN.u16.values);
    expect([...new Float32Array(dec(SIMPLE_F32, GOLDEN.f32.stream, 3).buffer)]).toEqual(GOLDEN.f32.values);
  });

  it('a file with compressed tables validates and reads every value; sizes compare after decoding', async () => {
    const bytes = compressedFile();
    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors).toEqual([]);
    const { root } = await open(bytes);
    const ids = root.table('ids')!;
    expect([ids.compressInfo, ids.dataSize]).toEqual([17, GOLDEN.u32Mixed.stream.length]);
    const idsTable = await root.read('ids');
    expect(arr(idsTable.values)).toEqual(GOLDEN.u32Mixed.values);
    expect([...idsTable.compressed!]).toEqual(GOLDEN.u32Mixed.stream);
    // 100 zeros: six maximal runs and one of 4, 7 bytes for 400.
    expect(root.table('zeros')!.dataSize).toBe(7);
    expect(arr((await root.read('zeros')).values)).toEqual(new Array(100).fill(0));
    expect(root.table('short')!.compressInfo).toBe(16);
    expect(arr((await root.read('short')).values)).toEqual(GOLDEN.u16.values);
    expect(root.table('pos')!.compressInfo).toBe(19);
    expect(arr((await root.read('pos')).values)).toEqual(f32(GOLDEN.f32.values));
    expect(arr((await root.read('plain')).values)).toEqual([7, 8]);
    // A counting sequence costs one 1-byte delta per value.
    expect(root.table('big')!.dataSize).toBe(70_000);
    expect(arr(await root.readValues('big', 69_998, 80_000))).toEqual([69_993, 69_994]);
    const records = await jsonRecords(root.reader);
    expect(records.find((r) => r.table === 'ids')).toMatchObject({ values: GOLDEN.u32Mixed.values });
    expect(records.find((r) => r.table === 'big')).toMatchObject({
      values_head: Array.from({ length: 64 }, (_, i) => i - 5),
    });
  });

  it('SimpleU32/U16 round-trip any values; SimpleF32 any multiple of its unit', () => {
    const runs = fc.array(
      fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 }), fc.nat(), fc.constant(0xffffffff)),
      {
        maxLength: 300,
      },
    );
    fc.assert(
      fc.property(runs, fc.boolean(), (values, counting) => {
        const words = Uint32Array.from(counting ? values.map((v, i) => v + i) : values);
        const back = decompress(SIMPLE_U32, encodeSimpleU32(words), words.length);
        expect(back.ok && [...new Uint32Array(back.bytes.buffer)]).toEqual([...words]);
        const halves = Uint16Array.from(words);
        const back16 = decompress(SIMPLE_U16, encodeSimpleU16(halves), halves.length);
        expect(back16.ok && [...new Uint16Array(back16.bytes.buffer)]).toEqual([...halves]);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }), { maxLength: 200 }), (steps) => {
        const values = Float32Array.from(steps, (s) => s * 0.25);
        const back = decompress(SIMPLE_F32, encodeSimpleF32(values, 0.25), values.length);
        expect(back.ok && [...new Float32Array(back.bytes.buffer)]).toEqual([...values]);
      }),
    );
  });

  async function patched(patch: (view: DataView, root: Awaited<ReturnType<typeof open>>['root']) => void) {
    const bytes = compressedFile();
    const { root } = await open(bytes);
    patch(new DataView(bytes.buffer), root);
    return bytes;
  }

  const badStreams: [
    string,
    (v: DataView, r: Awaited<ReturnType<typeof open>>['root']) => void,
    string,
    RegExp,
  ][] = [
    [
      'a stream that decodes to fewer values than the shape',
      (v, r) => v.setUint32(r.table('ids')!.descriptorOffset + 0x14, 5, true),
      'CountMismatch',
      /decodes to 4 values, its shape declares 5/,
    ],
    [
      'a stream that decodes to more values than the shape',
      (v, r) => v.setUint32(r.table('ids')!.descriptorOffset + 0x14, 3, true),
      'CountMismatch',
      /more than the 3 values/,
    ],
    [
      'a stream cut inside an opcode',
      (v, r) => v.setUint32(r.table('ids')!.descriptorOffset + 0x10, 2, true),
      'DecompressError',
      /ends inside the opcode at byte 0/,
    ],
    [
      'a shape no stream of that size can fill (checked before allocating)',
      (v, r) => v.setUint32(r.table('ids')!.descriptorOffset + 0x14, 0xffffffff, true),
      'CountMismatch',
      /cannot hold the 4294967295 values/,
    ],
  ];
  for (const [name, patch, code, message] of badStreams) {
    it(`${name} → ${code}, the other tables still read`, async () => {
      const bytes = await patched(patch);
      const report = await validateUdf(new MemorySource(bytes));
      expect(report.errors).toHaveLength(1);
      expect(report.errors[0].code).toBe(code);
      expect(report.errors[0].message).toMatch(message);
      const { root } = await open(bytes);
      const error = await (async () => root.read('ids'))().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBinscopeError(error, 'FormatError') && error.code).toBe(code);
      expect(arr((await root.read('zeros')).values)).toEqual(new Array(100).fill(0));
    });
  }

  const badInfo: [string, number, string, RegExp][] = [
    ['SIMPLE_U64 (named by the crate, no algorithm)', 18, 'UnsupportedFeature', /18 \(SIMPLE_U64\)/],
    ['SIMPLE_F64 (named by the crate, no algorithm)', 20, 'UnsupportedFeature', /20 \(SIMPLE_F64\)/],
    ['a value the crate does not define', 99, 'UnsupportedFeature', /not a scheme of the udf crate/],
    ['SimpleF32 on a u32 table', 19, 'InvalidValue', /SimpleF32\) decodes f32 values, not u32/],
    ['SimpleU16 on a u32 table', 16, 'InvalidValue', /SimpleU16\) decodes u16\/i16 values, not u32/],
  ];
  for (const [name, info, code, message] of badInfo) {
    it(`compress_info ${name} → ${code}`, async () => {
      const bytes = await patched((v, r) => v.setUint16(r.table('ids')!.descriptorOffset + 6, info, true));
      const { root } = await open(bytes);
      const report = await validateUdf(new MemorySource(bytes));
      expect(report.errors).toHaveLength(1);
      expect(report.errors[0]).toMatchObject({ code, offset: root.table('ids')!.descriptorOffset + 6 });
      expect(report.errors[0].message).toMatch(message);
    });
  }

  it('the builder refuses a scheme for a primitive it does not decode', () => {
    const root = new UdfBuilder().dataset();
    expect(() => root.table('t', { prim: 'u8', data: [1], compress: 'simple-u32' })).toThrow(/not u8/);
    expect(() =>
      root.table('t', { prim: 'f32', data: [1], compress: { scheme: 'simple-f32', unit: 0 } }),
    ).toThrow(/unit > 0/);
  });
});

describe('one bad table never hides the others (U15)', () => {
  function threeTables(): { bytes: Uint8Array } {
    const file = new UdfBuilder({ id: 'BAD' });
    const root = file.dataset({ id: 'ROOT' });
    root.table('first', { prim: 'u8', data: [1, 2] });
    root.table('middle', { prim: 'u8', data: [3, 4] });
    root.text('last', 'ok');
    file.setRoot(root);
    return { bytes: file.toBytes() };
  }

  it('a descriptor that breaks a rule: read, cat, inspect and validate give the other tables and report it', async () => {
    const { bytes } = threeTables();
    const { root: intact } = await open(bytes);
    const desc = intact.table('middle')!.descriptorOffset;
    bytes[desc + 4] |= 0x40; // type_info bit 6 (U8)

    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: 'ReservedNonZero', offset: desc + 4 });

    const reader = await openUdf(new MemorySource(bytes));
    const root = (await reader.root())!;
    expect(root.tableNames()).toEqual(['first', 'middle', 'last']);
    expect(arr((await root.read('first')).values)).toEqual([1, 2]);
    expect((await root.read('last')).text).toBe('ok');
    const error = await (async () => root.read('middle'))().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError') && [error.code, error.offset]).toEqual([
      'ReservedNonZero',
      desc + 4,
    ]);

    const records = await jsonRecords(reader);
    expect(records.map((r) => r.table)).toEqual(['first', 'middle', 'last']);
    expect(records[0]).toMatchObject({ values: [1, 2] });
    expect(records[1]).toMatchObject({ error: { code: 'ReservedNonZero', offset: desc + 4 } });
    expect(records[2]).toMatchObject({ text: 'ok' });

    const tree = await udfPlugin.inspect(reader);
    const errors: string[] = [];
    const descriptors: string[] = [];
    walk(tree, (n) => {
      if (n.kind === 'error') errors.push(String(n.value));
      if (n.kind === 'descriptor') descriptors.push(n.name);
      return true;
    });
    expect(descriptors).toEqual(['first', 'middle', 'last']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^ReservedNonZero: table 1: type_info/);
  });

  it('a DATASET table with a bad FileOffset: cat and inspect go on with the other datasets', async () => {
    const file = new UdfBuilder({ id: 'KIDS' });
    const a = file.dataset({ id: 'A' }).table('a', { prim: 'u8', data: [1] });
    const b = file.dataset({ id: 'B' }).table('b', { prim: 'u8', data: [2] });
    const root = file.dataset({ id: 'ROOT' }).datasets('kids', [a, b]);
    file.setRoot(root);
    const bytes = file.toBytes();
    const intact = (await open(bytes)).root;
    const entry = intact.table('kids')!.dataOffset;
    const view = new DataView(bytes.buffer);
    view.setUint32(entry, view.getUint32(entry, true) + 8, true); // child A misaligned

    const reader = await openUdf(new MemorySource(bytes));
    const records = await jsonRecords(reader);
    expect(records.map((r) => r.table ?? 'error')).toEqual(['kids', 'error', 'b']);
    expect(records[1]).toMatchObject({ referenced_at: entry, error: { code: 'Misaligned', offset: entry } });
    expect(records[2]).toMatchObject({ values: [2] });

    const tree = await udfPlugin.inspect(reader);
    const kinds: string[] = [];
    walk(tree, (n, path) => {
      if (path.length === 2 && path[1].name === 'datasets') kinds.push(`${n.kind} ${n.name}`);
      return true;
    });
    expect(kinds).toEqual([
      'dataset dataset "ROOT"',
      `error dataset at ${view.getUint32(entry, true)}`,
      'dataset dataset "B"',
    ]);
    const summary = await udfPlugin.info(reader);
    expect(summary.counts).toEqual({ datasets: 2, tables: 2 });
    expect(JSON.stringify(summary.details)).toContain('Misaligned');
    const report = await validateUdf(new MemorySource(bytes));
    expect(report.errors.map((e) => [e.code, e.offset])).toEqual([['Misaligned', entry]]);
  });

  it('a table whose payload breaks a rule: cat gives the others and the error', async () => {
    const { bytes } = threeTables();
    const { root: intact } = await open(bytes);
    bytes[intact.table('last')!.dataOffset] = 0xff; // not UTF-8
    const reader = await openUdf(new MemorySource(bytes));
    const records = await jsonRecords(reader);
    expect(records.map((r) => ('error' in r ? 'error' : r.values))).toEqual([[1, 2], [3, 4], 'error']);
    expect(records[2]).toMatchObject({ table: 'last', error: { code: 'InvalidValue' } });
  });
});
