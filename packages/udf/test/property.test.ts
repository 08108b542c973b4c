import { MemorySource, type NumericArray } from '@binscope/core';
import { MemorySink, TYPED_ARRAY, typedArrayBytes } from '@binscope/core/binary';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arr } from './helpers.js';
import {
  hashName,
  openUdf,
  type Prim,
  type TextEncoding,
  UdfBuilder,
  type UdfDatasetBuilder,
  validateUdf,
} from '../src/index.js';

type Numeric = Exclude<Prim, 'custom'>;

function element(prim: Numeric): fc.Arbitrary<number | bigint> {
  switch (prim) {
    case 'u8':
      return fc.integer({ min: 0, max: 255 });
    case 'i8':
      return fc.integer({ min: -128, max: 127 });
    case 'u16':
      return fc.integer({ min: 0, max: 0xffff });
    case 'i16':
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case 'u32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'i32':
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    case 'u64':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case 'i64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'f32':
      return fc.float();
    case 'f64':
      return fc.double();
  }
}

function typed(prim: Numeric, items: (number | bigint)[]): NumericArray {
  return new (TYPED_ARRAY[prim] as unknown as new (items: unknown[]) => NumericArray)(items);
}

type TableModel =
  | { kind: 'array'; prim: Numeric; dims: number; shape: number[]; hint: number; data: NumericArray }
  | { kind: 'text'; encoding: TextEncoding; value: string | string[] }
  | { kind: 'json'; value: unknown }
  | { kind: 'refs'; refs: number[] }
  | {
      kind: 'indexed';
      hint: 'index' | 'range';
      prim: 'u8' | 'u16' | 'u32' | 'u64';
      length: number;
      values: number[];
    }
  | { kind: 'related'; n: number; coords: number[]; colors: number[] };

const axis = fc.integer({ min: 0, max: 3 });
const values = (prim: Numeric, count: number) =>
  fc.array(element(prim), { minLength: count, maxLength: count }).map((v) => typed(prim, v));
const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

const plainArray = fc
  .record({
    prim: fc.constantFrom<Numeric>('u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f32', 'f64'),
    dims: fc.integer({ min: 0, max: 3 }),
  })
  .chain(({ prim, dims }) =>
    fc
      .array(axis, { minLength: dims, maxLength: dims })
      .chain((shape) =>
        values(prim, count(shape)).map(
          (data): TableModel => ({ kind: 'array', prim, dims, shape, hint: 0, data }),
        ),
      ),
  );

/** Hinted arrays: COORD, RGB, TRANSFORM and a custom hint, with their ghost axes. */
const hintedArray = fc.oneof(
  fc
    .record({
      prim: fc.constantFrom<Numeric>('i8', 'i16', 'i32', 'i64', 'f32', 'f64'),
      n: axis,
      d: fc.integer({ min: 1, max: 4 }),
    })
    .chain(({ prim, n, d }) =>
      values(prim, n * d).map(
        (data): TableModel => ({ kind: 'array', prim, dims: 1, shape: [n, d], hint: 6, data }),
      ),
    ),
  fc
    .record({ prim: fc.constantFrom<Numeric>('u8', 'f32'), n: axis, c: fc.constantFrom(3, 4) })
    .chain(({ prim, n, c }) =>
      values(prim, n * c).map(
        (data): TableModel => ({ kind: 'array', prim, dims: 1, shape: [n, c], hint: 9, data }),
      ),
    ),
  fc
    .record({
      prim: fc.constantFrom<Numeric>('f32', 'f64'),
      n: axis,
      r: fc.integer({ min: 1, max: 3 }),
      c: fc.integer({ min: 1, max: 3 }),
    })
    .chain(({ prim, n, r, c }) =>
      values(prim, n * r * c).map(
        (data): TableModel => ({ kind: 'array', prim, dims: 1, shape: [n, r, c], hint: 8, data }),
      ),
    ),
  fc
    .record({ n: axis, hint: fc.integer({ min: 32, max: 63 }) })
    .chain(({ n, hint }) =>
      values('u8', n).map(
        (data): TableModel => ({ kind: 'array', prim: 'u8', dims: 1, shape: [n], hint, data }),
      ),
    ),
);

const textString = fc.string({ unit: 'grapheme', maxLength: 6 }).filter((s) => !s.endsWith('\0'));
const text = fc
  .record({
    encoding: fc.constantFrom<TextEncoding>('utf8', 'utf16', 'utf32'),
    value: fc.oneof(textString, fc.array(textString, { maxLength: 4 })),
  })
  .map((t): TableModel => ({ kind: 'text', ...t }));

const json = fc.jsonValue({ maxDepth: 2 }).map((value): TableModel => ({ kind: 'json', value }));

const indexed = fc
  .record({
    hint: fc.constantFrom<'index' | 'range'>('index', 'range'),
    prim: fc.constantFrom<'u8' | 'u16' | 'u32' | 'u64'>('u8', 'u16', 'u32', 'u64'),
    length: fc.integer({ min: 1, max: 5 }),
  })
  .chain((t) =>
    (t.hint === 'index'
      ? fc.array(fc.integer({ min: 0, max: t.length - 1 }), { maxLength: 6 })
      : fc
          .array(fc.tuple(fc.integer({ min: 0, max: t.length }), fc.integer({ min: 0, max: t.length })), {
            maxLength: 3,
          })
          .map((pairs) => pairs.flatMap(([a, b]) => [Math.min(a, b), Math.max(a, b)]))
    ).map((v): TableModel => ({ kind: 'indexed', ...t, values: v })),
  );

const related = axis.chain((n) =>
  fc
    .record({
      coords: fc.array(fc.integer({ min: -100, max: 100 }), { minLength: n * 2, maxLength: n * 2 }),
      colors: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: n * 3, maxLength: n * 3 }),
    })
    .map((r): TableModel => ({ kind: 'related', n, ...r })),
);

function tableArb(datasets: number): fc.Arbitrary<TableModel> {
  const refs = fc
    .array(fc.integer({ min: -1, max: datasets - 1 }), { maxLength: 4 })
    .map((r): TableModel => ({ kind: 'refs', refs: r }));
  return fc.oneof(plainArray, hintedArray, text, json, indexed, related, refs);
}

/** Unicode names, distinct by hash (the writer refuses colliding names, as U3 requires). */
const names = (n: number) =>
  fc.uniqueArray(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), {
    minLength: n,
    maxLength: n,
    selector: (s) => hashName(s),
  });

const fileArb = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.record({
    root: fc.integer({ min: -1, max: n - 1 }),
    datasets: fc.array(
      fc
        .array(tableArb(n), { maxLength: 5 })
        .chain((tables) => names(tables.length * 2).map((ns) => ({ tables, names: ns }))),
      { minLength: n, maxLength: n },
    ),
  }),
);

type FileModel = { root: number; datasets: { tables: TableModel[]; names: string[] }[] };

function build(model: FileModel): UdfBuilder {
  const file = new UdfBuilder({ id: 'PROP' });
  const ds: UdfDatasetBuilder[] = model.datasets.map((_, i) => file.dataset({ id: `D${i}` }));
  model.datasets.forEach(({ tables, names: ns }, i) => {
    const d = ds[i];
    tables.forEach((t, k) => {
      const name = ns[2 * k];
      const other = ns[2 * k + 1];
      switch (t.kind) {
        case 'array':
          d.table(name, { prim: t.prim, dims: t.dims, shape: t.shape, hint: t.hint, data: t.data });
          break;
        case 'text':
          d.text(name, t.value, { encoding: t.encoding });
          break;
        case 'json':
          d.json(name, t.value);
          break;
        case 'refs':
          d.datasets(
            name,
            t.refs.map((r) => (r < 0 ? null : ds[r])),
          );
          break;
        case 'indexed':
          d.table(name, {
            prim: t.prim,
            hint: t.hint,
            indexName: other,
            shape: t.hint === 'range' ? [t.values.length / 2, 2] : undefined,
            data: t.values.map((v) => (t.prim === 'u64' ? BigInt(v) : v)) as number[],
          });
          d.table(other, { prim: 'f32', data: new Float32Array(t.length) });
          break;
        case 'related':
          d.table(name, { prim: 'i16', hint: 'coord', shape: [t.n, 2], data: t.coords, relatedName: other });
          d.table(other, { prim: 'u8', hint: 'rgb', shape: [t.n, 3], data: t.colors, relatedName: name });
          break;
      }
    });
  });
  file.setRoot(model.root < 0 ? null : ds[model.root]);
  return file;
}

/** U7 on the model: depth-first pre-order over DATASET references, each dataset once. */
function expectedOrder(model: FileModel): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const visit = (i: number) => {
    if (seen.has(i)) return;
    seen.add(i);
    out.push(i);
    for (const t of model.datasets[i].tables)
      if (t.kind === 'refs') for (const r of t.refs) if (r >= 0) visit(r);
  };
  if (model.root >= 0) visit(model.root);
  return out;
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(typedArrayBytes(a));

describe('property: random dataset graphs round-trip write → read', () => {
  it('every table, name, shape, hint and reference survives; validate finds nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fileArb, async (model) => {
        const builder = build(model);
        const bytes = builder.toBytes();
        const sink = new MemorySink();
        await builder.write(sink);
        expect(Buffer.from(sink.bytes()).equals(Buffer.from(bytes))).toBe(true);

        const report = await validateUdf(new MemorySource(bytes));
        expect(report.errors).toEqual([]);
        expect(report.warnings).toEqual([]);

        const reader = await openUdf(new MemorySource(bytes));
        const walked = await reader.allDatasets();
        const order = expectedOrder(model);
        expect(walked.map((d) => d.id)).toEqual(order.map((i) => `D${i}`));
        for (const [w, i] of order.entries()) {
          const d = walked[w];
          const { tables, names: ns } = model.datasets[i];
          let k = 0;
          for (const [j, t] of tables.entries()) {
            const name = ns[2 * j];
            const info = d.tables[k++];
            expect(info.name).toBe(name);
            const table = await d.read(info);
            switch (t.kind) {
              case 'array':
                expect([info.prim, info.dims, info.hintValue]).toEqual([t.prim, t.dims, t.hint]);
                expect(info.shape).toEqual(t.shape.slice(0, t.dims).concat(t.shape.slice(t.dims)));
                expect(bytesOf(table.values!).equals(bytesOf(t.data))).toBe(true);
                break;
              case 'text':
                expect(table.text).toEqual(t.value);
                break;
              case 'json':
                expect(JSON.stringify(table.json)).toBe(JSON.stringify(t.value));
                break;
              case 'refs': {
                const want = t.refs.map((r) => (r < 0 ? '0:0' : `D${r}`));
                const got = await Promise.all(
                  table.fileOffsets!.map(async (at) =>
                    at.offset === 0 ? '0:0' : (await reader.dataset(at)).id,
                  ),
                );
                expect(got).toEqual(want);
                break;
              }
              case 'indexed':
                expect(table.target?.name).toBe(ns[2 * j + 1]);
                expect(Array.from(table.values! as ArrayLike<number | bigint>, Number)).toEqual(t.values);
                k++;
                break;
              case 'related': {
                expect(info.relatedName).toBe(ns[2 * j + 1]);
                expect(arr(table.values!)).toEqual(t.coords);
                const colors = await d.read(d.tables[k++]);
                expect(arr(colors.values!)).toEqual(t.colors);
                break;
              }
            }
          }
          expect(k).toBe(d.tables.length);
        }
      }),
      { numRuns: Number(process.env.BINSCOPE_PROPERTY_RUNS ?? 200), seed: 4 },
    );
  });
});
