import {
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
