import { ERROR_CODES, type JsonRecord, recordToJson } from '@binscope/core';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { EXIT, type ExitCode } from '../errors.js';
import { type JsonErrorEntry, jsonError } from '../json-errors.js';
import { withReader } from '../open.js';
import { type RecordFormat, recordWriter } from '../render.js';
import { whereRecords } from './where.js';

export interface RecordsOptions extends CommonOptions {
  as?: string;
  offset: number;
  /** At most this many records; undefined for all. */
  limit?: number;
  format?: RecordFormat;
  columns?: string[];
  /** SCBF only: a row predicate (see @binscope/scbf's where.ts). */
  where?: string;
}

/**
 * `head` and `cat`: records streamed from the plugin's iterator straight to stdout. The
 * iterator is asked for exactly the window wanted and abandoned as soon as it is done or
 * the reader of stdout goes away, so `head` and `cat | head` stop reading the file early.
 */
export async function recordsCommand(
  ctx: Context,
  filePath: string,
  options: RecordsOptions,
): Promise<ExitCode> {
  const format: RecordFormat = options.json
    ? 'json'
    : (options.format ?? (ctx.out.isTTY ? 'table' : 'jsonl'));
  const writer = recordWriter(format, ctx.out);
  let failure: JsonErrorEntry | undefined;
  // Records a format could not read but stood in for (a UDF table that breaks a rule).
  let unreadable = 0;
  try {
    await forPath(filePath, () =>
      withReader(filePath, { as: options.as }, async (input, reader) => {
        if (options.limit === 0) return;
        const window = { offset: options.offset, limit: options.limit, columns: options.columns };
        const csv = input.plugin.capabilities?.csv;
        if (options.where === undefined && format === 'csv' && csv) {
          // The format's own CSV dialect, from the code path its converter uses (SCBF: S8).
          for await (const chunk of csv(reader, window)) {
            await ctx.out.write(chunk);
            if (ctx.out.closed) break;
          }
        } else {
          const records =
            options.where === undefined
              ? input.plugin.records(reader, window)
              : await whereRecords(ctx, input.plugin, reader, options.where, window);
          let count = 0;
          for await (const data of records) {
            // Printed through core's one rendering of records, by the reader's schema.
            const record = await recordToJson(reader.schema, data);
            await writer.write(record);
            count++;
            const defect = recordDefect(record);
            if (defect) {
              unreadable++;
              ctx.messages.line(`binscope: ${filePath}: record ${options.offset + count - 1}: ${defect}`);
            }
            if ((options.limit !== undefined && count >= options.limit) || ctx.out.closed) break;
          }
        }
        // What the reader noticed while reading (SCBF S4: an upstream str_uncomp_size), on stderr.
        for (const w of reader.warnings) ctx.messages.line(`binscope: warning: ${w.code}: ${w.message}`);
      }),
    );
  } catch (error) {
    failure = jsonError(error, filePath);
    throw error;
  } finally {
    // Records already read still reach the terminal before the error line (on stderr); a
    // --json array is closed with the error as its last entry, so it parses and says so.
    await writer.end(format === 'json' ? failure : undefined);
  }
  return unreadable > 0 ? EXIT.failed : EXIT.ok;
}

/**
 * "Code: message" when a record stands in for one that could not be read: a top-level
 * `error` of a taxonomy class, as formats that go on past a bad record emit it.
 */
function recordDefect(record: JsonRecord): string | undefined {
  const error = (record as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !(ERROR_CODES as readonly string[]).includes(code)) return undefined;
  return `${code}: ${typeof message === 'string' ? message : 'unreadable'}`;
}
