import { MemorySource, type ProgressEvent } from '@binscope/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectProgressToEnd } from '@binscope/testkit';
import {
  type FieldSpec,
  MldfLazyText,
  type MldfSample,
  MldfWriter,
  type NdDtype,
  openMldf,
  validateMldf,
  writeMldf,
} from '../src/index.js';

describe('writer refuses what MLDF cannot hold, with a clear error', () => {
  it('names over 63 UTF-8 bytes, NUL in names, duplicates', () => {
    expect(() => new MldfWriter([{ name: 'x'.repeat(64), type: 'INT' }])).toThrow(
      /64 bytes in UTF-8; MLDF names are at most 63/,
    );
    expect(() => new MldfWriter([{ name: 'é'.repeat(32), type: 'INT' }])).toThrow(/64 bytes/);
    expect(() => new MldfWriter([{ name: 'x'.repeat(63), type: 'INT' }])).not.toThrow();
    expect(() => new MldfWriter([{ name: 'a\0b', type: 'INT' }])).toThrow(/NUL/);
    expect(
      () =>
        new MldfWriter([
          { name: 'a', type: 'INT' },
          { name: 'a', type: 'FLOAT' },
        ]),
    ).toThrow(/duplicate/);
    expect(() => new MldfWriter([{ name: 'a', type: 'AUDIO' as never }])).toThrow(/unknown type/);
    expect(() => new MldfWriter([]).add({})).toThrow(/without fields cannot hold samples/);
  });

  it('NDARRAY fields need a dtype and shape; values must match them', () => {
    expect(() => new MldfWriter([{ name: 'a', type: 'NDARRAY' }])).toThrow(/needs dtype/);
    expect(
      () => new MldfWriter([{ name: 'a', type: 'NDARRAY', dtype: '<f2' as NdDtype, shape: [2] }]),
    ).toThrow(/needs dtype/);
    expect(
      () =>
        new MldfWriter([{ name: 'a', type: 'NDARRAY', dtype: '<f4', shape: [1, 1, 1, 1, 1, 1, 1, 1, 1] }]),
    ).toThrow(/at most 8/);
    expect(() => new MldfWriter([{ name: 'a', type: 'BYTES', dtype: '<f4' }])).toThrow(/NDARRAY fields only/);
    const w = new MldfWriter([{ name: 'a', type: 'NDARRAY', dtype: '<f4', shape: [2, 2] }]);
    expect(() => w.add({ a: new Float64Array(4) })).toThrow(
      /expected a Float32Array \(dtype <f4\), got Float64Array/,
    );
    expect(() => w.add({ a: new Float32Array(5) })).toThrow(/5 elements, but shape \[2, 2\] has 4/);
    expect(() => w.add({ a: { dtype: '<f4', shape: [4], data: new Float32Array(4) } })).toThrow(
      /shape \[4\] does not match the field's \[2, 2\]/,
    );
    expect(() => w.add({ a: { dtype: '<i4', shape: [2, 2], data: new Int32Array(4) } })).toThrow(
      /dtype <i4 does not match/,
    );
    expect(w.samples).toBe(0);
    w.add({ a: new Float32Array(4) });
    expect(w.samples).toBe(1);
  });

  it('values of the wrong type, out-of-range integers, bad images, undeclared fields', () => {
    const w = new MldfWriter([
      { name: 'i', type: 'INT' },
      { name: 'f', type: 'FLOAT' },
      { name: 'b', type: 'BYTES' },
      { name: 't', type: 'TEXT_RAW' },
      { name: 'img', type: 'IMAGE_RAW' },
      { name: 'j', type: 'JSON' },
    ]);
    expect(() => w.add({ i: 2n ** 63n })).toThrow(/does not fit in 64 bits/);
    expect(() => w.add({ i: 1.5 })).toThrow(/bigint or a safe integer/);
    expect(() => w.add({ f: '1' })).toThrow(/expected a number/);
    expect(() => w.add({ b: [1, 2] })).toThrow(/Uint8Array/);
    expect(() => w.add({ t: 5 })).toThrow(/expected a string/);
    expect(() => w.add({ img: { height: 2, width: 2, channels: 3, pixels: new Uint8Array(11) } })).toThrow(
      /needs 12/,
    );
    expect(() =>
      w.add({ img: { height: 70000, width: 1, channels: 1, pixels: new Uint8Array(70000) } }),
    ).toThrow(/0..65535/);
    expect(() => w.add({ j: 1n })).toThrow(/cannot be written as JSON/);
    expect(() => w.add({ nope: 1 })).toThrow(/'nope' is not a declared field/);
    expect(w.samples).toBe(0);
  });

  it('JSON given as raw text is stored byte for byte, once it is known to be JSON', async () => {
    const enc = new TextEncoder();
    const raw = (text: string, type: 'JSON' | 'TEXT_RAW' = 'JSON') => {
      const bytes = enc.encode(text);
      return new MldfLazyText(bytes, 0, bytes.byteLength, type, 'j', 0, undefined);
    };
    // What JSON.parse + JSON.stringify would round, flip or drop.
    const texts = ['{"id": 12345678901234567890, "z": -0.0, "k": 1, "k": 2}', ' [1e400, 0.10] '];
    const file = await writeMldf(
      [{ name: 'j', type: 'JSON' }],
      texts.map((t) => ({ j: raw(t) })),
    );
    const reader = await openMldf(new MemorySource(file));
    for (let i = 0; i < texts.length; i++) {
      const lazy = (await reader.sample(i, { decode: 'lazy' })).j as MldfLazyText;
      expect(new TextDecoder().decode(lazy.bytes)).toBe(texts[i]);
    }
    const w = new MldfWriter([{ name: 'j', type: 'JSON' }]);
    expect(() => w.add({ j: raw('{"a": 1,}') })).toThrow(/sample 0 field 'j' \(JSON\): value is not JSON/);
    expect(() => w.add({ j: raw('"text"', 'TEXT_RAW') })).toThrow(/expected JSON text, got TEXT_RAW/);
    expect(w.samples).toBe(0);
  });

  it('a rejected sample leaves the writer unchanged', async () => {
    const fields: FieldSpec[] = [
      { name: 'b', type: 'BYTES' },
      { name: 'i', type: 'INT' },
    ];
    const w = new MldfWriter(fields);
    w.add({ b: Uint8Array.of(1), i: 1 });
    expect(() => w.add({ b: Uint8Array.of(2, 2), i: 1.5 })).toThrow();
    w.add({ b: Uint8Array.of(3), i: 3 });
    const { MemorySink } = await import('@binscope/core');
    const sink = new MemorySink();
    await w.finish(sink);
    expect(sink.bytes()).toEqual(
      await writeMldf(fields, [
        { b: Uint8Array.of(1), i: 1 },
        { b: Uint8Array.of(3), i: 3 },
      ]),
    );
  });
});

// ---- property tests: random field sets and samples round-trip -----------------------------

const DTYPES: Array<
  [NdDtype, fc.Arbitrary<number | bigint>, (n: number) => ArrayLike<number | bigint> & { length: number }]
> = [
  ['|u1', fc.integer({ min: 0, max: 255 }), (n) => new Uint8Array(n)],
  ['|i1', fc.integer({ min: -128, max: 127 }), (n) => new Int8Array(n)],
  ['<u2', fc.integer({ min: 0, max: 65535 }), (n) => new Uint16Array(n)],
  ['<i2', fc.integer({ min: -32768, max: 32767 }), (n) => new Int16Array(n)],
  ['<u4', fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => new Uint32Array(n)],
  ['<i4', fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => new Int32Array(n)],
  ['<u8', fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => new BigUint64Array(n)],
  ['<i8', fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => new BigInt64Array(n)],
  ['<f4', fc.float({ noNaN: true }), (n) => new Float32Array(n)],
  ['<f8', fc.double(), (n) => new Float64Array(n)],
];

const fieldName = fc
  .string({ unit: 'grapheme', minLength: 0, maxLength: 20 })
  .filter((s) => !s.includes('\0') && new TextEncoder().encode(s).byteLength <= 63);

const fieldArb: fc.Arbitrary<FieldSpec> = fc.oneof(
  fc
    .constantFrom<FieldSpec['type']>('INT', 'FLOAT', 'BYTES', 'JSON', 'IMAGE_RAW', 'TEXT_RAW')
    .map((type) => ({ name: '', type })),
  fc
    .record({
      d: fc.integer({ min: 0, max: DTYPES.length - 1 }),
      shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
    })
    .map(({ d, shape }) => ({ name: '', type: 'NDARRAY' as const, dtype: DTYPES[d][0], shape })),
);

const jsonValue = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

function valueArb(f: FieldSpec): fc.Arbitrary<unknown> {
  switch (f.type) {
    case 'INT':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'FLOAT':
      return fc.double();
    case 'BYTES':
      return fc.oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc.constant(new Uint8Array(0)),
        fc.integer({ min: 4096, max: 20000 }).map((n) => Uint8Array.from({ length: n }, (_, k) => k * 31)),
      );
    case 'TEXT_RAW':
      return fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.constant(''),
        fc.constant('😀'.repeat(2000)),
      );
    case 'JSON':
      return fc.option(jsonValue, { nil: undefined });
    case 'IMAGE_RAW':
      return fc.option(
        fc
          .record({
            height: fc.integer({ min: 0, max: 5 }),
            width: fc.integer({ min: 0, max: 5 }),
            channels: fc.constantFrom(1, 3, 4),
          })
          .chain((g) =>
            fc
              .uint8Array({
                minLength: g.height * g.width * g.channels,
                maxLength: g.height * g.width * g.channels,
              })
              .map((pixels) => ({ ...g, mode: 0, pixels })),
          ),
        { nil: undefined },
      );
    case 'NDARRAY': {
      const [, elem, make] = DTYPES.find(([d]) => d === f.dtype)!;
      const count = f.shape!.reduce((a, b) => a * b, 1);
      return fc.array(elem, { minLength: count, maxLength: count }).map((values) => {
        const data = make(count) as unknown as { [k: number]: number | bigint; length: number };
        for (let k = 0; k < count; k++) data[k] = values[k];
        return { dtype: f.dtype, shape: f.shape, data };
      });
    }
  }
}

const datasetArb = fc
  .uniqueArray(fc.tuple(fieldName, fieldArb), { minLength: 0, maxLength: 6, selector: ([n]) => n })
  .map((pairs) => pairs.map(([name, f]) => ({ ...f, name })))
  .chain((fields) =>
    fc.tuple(
      fc.constant(fields),
      fc.array(
        fc.record(
          Object.fromEntries(fields.map((f) => [f.name, valueArb(f)])) as Record<
            string,
            fc.Arbitrary<unknown>
          >,
        ),
        { maxLength: fields.length ? 12 : 0 },
      ),
      fc.constantFrom(1, 64, 4096, 1 << 16),
    ),
  );

/** What the reader gives back for what was written (missing values → their decoded form). */
function expectedOf(fields: FieldSpec[], sample: Record<string, unknown>): MldfSample {
  const out: MldfSample = {};
  for (const f of fields) {
    const v = sample[f.name];
    switch (f.type) {
      case 'INT':
        out[f.name] = BigInt((v as bigint | undefined) ?? 0n);
        break;
      case 'FLOAT':
        out[f.name] = (v as number | undefined) ?? 0;
        break;
      case 'BYTES':
        out[f.name] = (v as Uint8Array | undefined) ?? new Uint8Array(0);
        break;
      case 'TEXT_RAW':
        out[f.name] = (v as string | undefined) ?? '';
        break;
      case 'IMAGE_RAW': {
        const img = v as { height: number; width: number; channels: number } | undefined;
        out[f.name] =
          img && !(img.height === 0 && img.width === 0 && img.channels === 0) ? (v as never) : undefined;
        break;
      }
      default:
        out[f.name] = v as never;
    }
  }
  return out;
}

describe('property: random field sets and samples round-trip write → read → rewrite', () => {
  it('values come back equal, the file validates, and rewriting gives the same bytes', async () => {
    await fc.assert(
      fc.asyncProperty(datasetArb, async ([fields, samples, pageSize]) => {
        const bytes = await writeMldf(fields, samples as Array<Record<string, unknown>>, { pageSize });
        const report = await validateMldf(new MemorySource(bytes));
        expect(report.errors).toEqual([]);
        const reader = await openMldf(new MemorySource(bytes));
        expect(reader.numSamples).toBe(samples.length);
        const read: MldfSample[] = [];
        for await (const s of reader.iterate()) read.push(s);
        read.forEach((s, i) => {
          const want = expectedOf(fields, samples[i] as Record<string, unknown>);
          for (const f of fields) {
            const got = s[f.name];
            if (f.type === 'NDARRAY' && got !== undefined) {
              const nd = got as { dtype: string; shape: readonly number[]; data: ArrayLike<unknown> };
              const w = want[f.name] as { data: ArrayLike<unknown> };
              expect([nd.dtype, [...nd.shape]]).toEqual([f.dtype, [...f.shape!]]);
              expect(Array.from(nd.data)).toEqual(Array.from(w.data));
            } else {
              expect(got, `${f.type} ${JSON.stringify(f.name)}`).toEqual(want[f.name]);
            }
          }
        });
        if (samples.length > 0)
          expect(await reader.samples([samples.length - 1, 0])).toEqual([read[samples.length - 1], read[0]]);
        const again = await writeMldf(fields, read, { pageSize });
        expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 80, seed: 7 },
    );
  }, 120_000);
});

describe('validate reports progress', () => {
  it('counts samples (and the payload pass) up to 100 %', async () => {
    const samples = Array.from({ length: 300 }, (_, i) => ({ n: i, meta: { i } }));
    const bytes = await writeMldf(
      [
        { name: 'n', type: 'INT' },
        { name: 'meta', type: 'JSON' },
      ],
      samples,
    );
    const events: ProgressEvent[] = [];
    const report = await validateMldf(new MemorySource(bytes), { onProgress: (e) => events.push(e) });
    expect(report.errors).toEqual([]);
    expectProgressToEnd(events);
    expect(events[0].total).toBe(600);
  });
});
