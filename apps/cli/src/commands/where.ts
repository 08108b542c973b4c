import {
  type AnyFormatPlugin,
  type DataRecord,
  type FormatReader,
  isBinscopeError,
  parseWhere,
  type RecordOptions,
  type RowFilter,
  type Schema,
} from '@binscope/core';
import type { Context } from '../context.js';
import { CliError, EXIT } from '../errors.js';

/**
 * `cat --where`: records filtered by a predicate (core's language, over the reader's schema).
 * A plugin that declares capabilities.filter takes the filter itself (SCBF skips the column
 * blocks its statistics exclude); for any other, records are filtered here.
 */
export async function whereRecords(
  ctx: Context,
  plugin: AnyFormatPlugin,
  reader: FormatReader,
  schema: Schema,
  where: string,
  window: RecordOptions,
): Promise<AsyncIterable<DataRecord>> {
  let filter: RowFilter;
  try {
    filter = parseWhere(where, schema);
  } catch (error) {
    if (isBinscopeError(error, 'WhereSyntaxError')) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  if (plugin.capabilities?.filter)
    return plugin.records(reader, {
      ...window,
      where: filter,
      onSkip: ({ fields, reason }) =>
        ctx.messages.line(`binscope: skipped unread (${fields.join(', ')}): ${reason}`),
    });
  // Every field the filter reads is asked for; the columns shown are picked after matching.
  return filtered(plugin.records(reader, { table: window.table, signal: window.signal }), filter, window);
}

async function* filtered(
  records: AsyncIterable<DataRecord>,
  filter: RowFilter,
  window: RecordOptions,
): AsyncGenerator<DataRecord> {
  let skip = Math.max(0, window.offset ?? 0);
  let left = window.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  for await (const record of records) {
    if (!filter.matches(record)) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    if (!window.columns) yield record;
    else yield { ...record, values: Object.fromEntries(window.columns.map((c) => [c, record.values[c]])) };
    if (--left <= 0) return;
  }
}
