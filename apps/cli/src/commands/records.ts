import {
  type AnyFormatPlugin,
  type FormatReader,
  type RecordOptions,
  recordToJson,
  type Schema,
} from '@binscope/core';
import { type Command, Option } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { type JsonErrorEntry, jsonError } from '../json-errors.js';
import { withReader } from '../open.js';
import { type Action, asOption, examples, exampleFile, list, wholeNumber, withCommon } from '../options.js';
import { RECORD_FORMATS, type RecordFormat, type RecordWriter, recordWriter } from '../render.js';
import { whereRecords } from './where.js';

export interface RecordsOptions extends CommonOptions {
  as?: string;
  offset: number;
  /** At most this many records; undefined for all. */
  limit?: number;
  format?: RecordFormat;
  columns?: string[];
  /** One of the reader's further tables (`--table NAME`). */
  table?: string;
  /** A row predicate in core's --where language, over the schema of the records printed. */
  where?: string;
}

interface RecordCliOptions extends Omit<RecordsOptions, 'limit' | 'columns' | 'format'> {
  lines?: number;
  format?: string;
  columns?: string[];
  fields?: string[];
}

const RECORD_TEXT =
  "Records follow the file's schema (binscope info shows it): each field by its type, bytes and images " +
  'as {"size", "sha256"}, arrays as {"dtype", "shape", "values"}. A table on a terminal, JSON Lines when ' +
  'piped; 64-bit integers above 2^53 are decimal strings and non-finite floats "NaN"/"Infinity"/"-Infinity". ' +
  'Output streams: nothing is read beyond what is printed.';

function recordVerb(program: Command, ctx: Context, name: 'head' | 'cat'): Command {
  const cmd = program
    .command(name)
    .argument('<path>', 'a file or archive directory')
    .addOption(
      new Option(
        '--format <format>',
        'output: table (terminal default), jsonl (pipe default), csv, json',
      ).choices(RECORD_FORMATS as string[]),
    )
    .option('--columns <names>', 'only these columns / fields, comma-separated (repeatable)', list)
    .option('--fields <names>', 'same as --columns', list)
    .option(
      '--table <name>',
      "print this table's records (a file's further tables: binscope info lists them)",
    )
    .option(
      '--offset <k>',
      'skip the first K records (with --where: K matching records)',
      wholeNumber('--offset'),
      0,
    )
    .option(
      '--where <predicate>',
      'only records matching e.g. "score >= 2.5 and name != \'x\'" (any field of the schema; formats that can skip data by it do)',
    )
    .addOption(asOption(ctx.registry));
  return withCommon(cmd);
}

export function registerRecords(program: Command, ctx: Context, action: Action): void {
  const file = exampleFile(ctx.registry, 'table');
  const toOptions = (options: RecordCliOptions): RecordsOptions => {
    const columns = [...(options.columns ?? []), ...(options.fields ?? [])];
    return {
      ...options,
      format: options.format as RecordFormat | undefined,
      limit: options.lines,
      columns: columns.length > 0 ? columns : undefined,
    };
  };
  recordVerb(program, ctx, 'head')
    .summary('print the first records')
    .description(`Print the first records of a file. ${RECORD_TEXT}`)
    .option('-n, --lines <n>', 'how many records', wholeNumber('-n'), 10)
    .addHelpText(
      'after',
      examples(`$ binscope head ${file} -n 5`, `$ binscope head ${file} --fields id,name --format jsonl`),
    )
    .action(action((p: string, options: RecordCliOptions) => recordsCommand(ctx, p, toOptions(options))));
  recordVerb(program, ctx, 'cat')
    .summary('print records, all or a window')
    .description(`Print records, all of them or the window --offset K -n N. ${RECORD_TEXT}`)
    .option('-n, --lines <n>', 'print at most N records', wholeNumber('-n'))
    .addHelpText(
      'after',
      examples(
        `$ binscope cat ${file} --format csv > table.csv`,
        '$ binscope cat archive/ --offset 1000 -n 10 | jq .',
        `$ binscope cat ${file} --where "id >= 100 and city = 'Oslo'"`,
      ),
    )
    .action(action((p: string, options: RecordCliOptions) => recordsCommand(ctx, p, toOptions(options))));
}

/** The schema of the records asked for: the reader's, or the named table's. */
export function tableSchema(reader: FormatReader, table: string | undefined, filePath: string): Schema {
  if (table === undefined) return reader.schema;
  const found = reader.tables?.find((t) => t.name === table);
  if (found) return found.schema;
  const names = (reader.tables ?? []).map((t) => t.name);
  throw new CliError(
    `--table ${table}: ${filePath} has ${names.length > 0 ? `the tables ${names.join(', ')}` : 'no further tables'}`,
    EXIT.usage,
  );
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
  let unreadable = 0;
  try {
    await forPath(filePath, () =>
      withReader(ctx, filePath, { as: options.as }, async (input, reader) => {
        const schema = tableSchema(reader, options.table, filePath);
        if (options.limit === 0) return;
        unreadable = await printRecords(ctx, input.plugin, reader, schema, writer, format, filePath, options);
        // What the reader noticed while reading (SCBF S4: an upstream quirk), on stderr.
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

/** Prints the window; returns how many records stood in for ones the format could not read. */
async function printRecords(
  ctx: Context,
  plugin: AnyFormatPlugin,
  reader: FormatReader,
  schema: Schema,
  writer: RecordWriter,
  format: RecordFormat,
  filePath: string,
  options: RecordsOptions,
): Promise<number> {
  const window: RecordOptions = {
    offset: options.offset,
    limit: options.limit,
    columns: options.columns,
    table: options.table,
  };
  const csv = plugin.capabilities?.csv;
  if (options.where === undefined && format === 'csv' && csv) {
    // The format's own CSV dialect, from the code path its converter uses.
    for await (const chunk of csv(reader, window)) {
      await ctx.out.write(chunk);
      if (ctx.out.closed) break;
    }
    return 0;
  }
  const records =
    options.where === undefined
      ? plugin.records(reader, window)
      : await whereRecords(ctx, plugin, reader, schema, options.where, window);
  let count = 0;
  let unreadable = 0;
  for await (const data of records) {
    // Printed through core's one rendering of records, by the schema.
    const record = await recordToJson(schema, data);
    await writer.write(record);
    count++;
    // A record that stands in for one the format could not read (a table breaking a rule).
    if (data.problem) {
      unreadable++;
      const { code, message } = data.problem;
      ctx.messages.line(`binscope: ${filePath}: record ${options.offset + count - 1}: ${code}: ${message}`);
    }
    if ((options.limit !== undefined && count >= options.limit) || ctx.out.closed) break;
  }
  return unreadable;
}
