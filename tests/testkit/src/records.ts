import {
  type ColumnBatch,
  type ConverterInfo,
  type ConvertReport,
  type DataRecord,
  type Field,
  memoryScratch,
  type OptionValues,
  type RecordsInput,
  runConverter,
  type TableInfo,
  type Value,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';

/**
 * A RecordsInput over rows made on demand (so a test can stream many), with optional extra
 * tables: what a converter from any format sees, without a format behind it.
 */
export function syntheticRecords(
  fields: Field[],
  rows: (i: number) => Record<string, Value>,
  count: number,
  tables: { info: TableInfo; rows: Record<string, Value>[] }[] = [],
): RecordsInput {
  return {
    kind: 'records',
    name: 'synthetic',
    format: 'test',
    schema: { fields },
    async *tables() {
      for (const t of tables) yield t.info;
    },
    async *records(options = {}) {
      const table =
        options.table === undefined ? undefined : tables.find((t) => t.info.name === options.table);
      if (options.table !== undefined && !table) throw new Error(`no table ${options.table}`);
      const total = table ? table.rows.length : count;
      const end = Math.min(total, (options.offset ?? 0) + (options.limit ?? total));
      for (let i = options.offset ?? 0; i < end; i++)
        yield { index: i, values: table ? table.rows[i] : rows(i) } satisfies DataRecord;
    },
    summary: async () => ({ format: 'test', title: 'test', counts: {}, properties: [] }),
  };
}

/** Runs a converter from any format on records into memory: the bytes it wrote and its report. */
export async function convertRecordsInMemory(
  info: ConverterInfo,
  input: RecordsInput,
  values: OptionValues = {},
): Promise<{ bytes: Uint8Array; report: ConvertReport }> {
  const sink = new MemorySink();
  const scratch = memoryScratch();
  try {
    const report = await runConverter(
      info,
      await info.load(),
      input,
      { kind: 'file', sink },
      { scratch, values },
    );
    return { bytes: sink.bytes(), report };
  } finally {
    scratch.close();
  }
}

/**
 * A RecordsInput over columns (`columns[field][i]` is record i's value); with `run`, it also
 * offers them as column runs of `run` rows (typed arrays as subarrays, other arrays as slices),
 * so a test can export the same table both ways and compare.
 */
export function columnarRecords(
  fields: Field[],
  columns: Record<string, ArrayLike<Value | undefined>>,
  count: number,
  run?: number,
): RecordsInput {
  return {
    kind: 'records',
    name: 'columnar',
    format: 'test',
    schema: { fields },
    async *tables() {},
    async *records() {
      for (let i = 0; i < count; i++) {
        const values: Record<string, Value | undefined> = {};
        for (const f of fields) values[f.name] = columns[f.name][i];
        yield { index: i, values } satisfies DataRecord;
      }
    },
    columns: run === undefined ? undefined : async () => columnRuns(columns, count, run),
    summary: async () => ({ format: 'test', title: 'columnar', counts: {}, properties: [] }),
  };
}

/** `columns` as runs of `run` rows. */
export async function* columnRuns(
  columns: Record<string, ArrayLike<Value | undefined>>,
  count: number,
  run: number,
): AsyncGenerator<ColumnBatch> {
  for (let at = 0; at < count; at += run) {
    const end = Math.min(count, at + run);
    const slice: Record<string, ArrayLike<Value | undefined>> = {};
    for (const [name, values] of Object.entries(columns))
      slice[name] = ArrayBuffer.isView(values)
        ? (values as Float64Array).subarray(at, end)
        : Array.prototype.slice.call(values, at, end);
    yield { offset: at, rows: end - at, columns: slice };
  }
}
