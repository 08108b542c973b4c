import type { ByteSource, ReadOptions } from './bytes.js';
import { ERROR_CODES, type ErrorCode, FormatError, type Problem } from './errors.js';
import type { JsonValue } from './json.js';
import type {
  AnyFormatPlugin,
  FormatReader,
  ProgressCallback,
  RecordOptions,
  Summary,
  Target,
} from './plugin.js';
import type { ColumnBatch, DataRecord, Schema, TableInfo } from './schema.js';
import type { Scratch } from './scratch.js';
import type { ByteSink, DirectorySink } from './sink.js';

/** A flag a converter declares, so an app can offer it without knowing the converter. */
export interface OptionSpec {
  /** The option's name in ConvertOptions.values and, kebab-cased, the CLI flag (`--types`). */
  readonly name: string;
  readonly type: 'string' | 'number' | 'boolean';
  readonly description: string;
  /** The values a string option takes, when it takes only these. */
  readonly choices?: readonly string[];
  /** A placeholder for the value in help text ("NAME:TYPE,…"). */
  readonly valueName?: string;
}

/** The values of a converter's declared options, by name, as the app parsed them. */
export type OptionValues = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A conversion a package provides, as data: apps list it, pick it by (detected input format,
 * output kind) and offer its options before anything is imported. Declared by the package
 * that provides the conversion, from an entry that imports no parser (its `/magic`).
 */
export interface ConverterInfo {
  readonly specificationVersion: 2;
  /** 'csv-to-scbf' */
  readonly id: string;
  /**
   * The input's format id: a format, a detection-only entry ('h5ad', 'tar') or 'csv'; or
   * ANY_FORMAT for a converter of records (an export to Parquet), which takes whatever a
   * plugin reads, opened by the app, through `convertRecords`.
   */
  readonly from: string;
  /** The output's format id, or 'csv' (later 'parquet', 'arrow', …). */
  readonly to: string;
  readonly title: string;
  /** A file (written to a ByteSink) or a folder (written to a DirectorySink). */
  readonly output: 'file' | 'directory';
  /** Extensions of what it writes, without the dot; the first is the usual one. */
  readonly extensions: readonly string[];
  /** A CLI verb that names this conversion (`index` for tar → taridx), if it has one. */
  readonly verb?: string;
  readonly options?: readonly OptionSpec[];
  /**
   * Where the output goes when the user names none (a CLI verb's `-o` left out), as a
   * template: `{input}` is the local folder of the input (the input itself when it is a
   * folder; the current folder for URLs and standard input) and `{name}` the value of the
   * declared option `name` (`'{input}/{fold}.taridx'`). Without it, an output must be named.
   */
  readonly defaultOutput?: string;
  /**
   * For `output: 'directory'`: the file that makes the folder complete (SCDL: `header.sch`).
   * An object-storage prefix holds it back until every other file is written, so a reader
   * never takes a half-written prefix for a whole one. Without it, a folder output can only
   * be written where it can be renamed into place (a local folder).
   */
  readonly marker?: string;
  /** The converter itself, imported on first use. */
  load(): Promise<Converter>;
}

/** A byte stream that is not a file (standard input): for converters from a streamed format such as CSV. */
export interface StreamInput {
  kind: 'stream';
  /** What messages call it ("stdin"). */
  name: string;
  chunks: AsyncIterable<Uint8Array>;
}

/** What a converter reads: a target as plugins get it, or a stream for formats read in one pass. */
export type ConvertInput = Target | StreamInput;

/** Where a converter writes: the app's sink, of the kind ConverterInfo.output names. */
export type ConvertOutput = { kind: 'file'; sink: ByteSink } | { kind: 'directory'; sink: DirectorySink };

export interface ConvertOptions extends ReadOptions {
  /** Spill space (Node: temp files beside the output; browser: memory). */
  scratch: Scratch;
  /** The declared options' values. */
  values?: OptionValues;
  onProgress?: ProgressCallback;
}

export interface ConvertReport {
  /** What the conversion noticed but went past (an upstream quirk of the input). */
  warnings: Problem[];
  /** Figures worth printing (rows, columns, bytes), JSON-able, in display order. */
  details: { [key: string]: JsonValue };
}

/** `ConverterInfo.from` of a converter that takes the records of any format a plugin reads. */
export const ANY_FORMAT = '*';

/**
 * An opened input seen only through the contract: its schema, tables and records. What a
 * converter from ANY_FORMAT reads, so an export never knows the format it exports.
 */
export interface RecordsInput {
  readonly kind: 'records';
  /** What messages call the input (its path or URL). */
  readonly name: string;
  /** The input's format id. */
  readonly format: string;
  /** The schema of the main records (`records()` without `table`). */
  readonly schema: Schema;
  /** The tables besides the main records, in order and streamed (a UDF file has one per table). */
  tables(options?: ReadOptions): AsyncIterable<TableInfo>;
  /** Records of the main table or of `options.table`, streamed. */
  records(options?: RecordOptions): AsyncIterable<DataRecord>;
  /**
   * The records as runs of columns, when the input's plugin stores them so (see
   * `PluginCapabilities.columns`); undefined otherwise, and then `records()` is the way.
   */
  columns?(options?: RecordOptions): Promise<AsyncIterable<ColumnBatch> | undefined>;
  /**
   * The stored bytes of one bytes-typed value as a source read in pieces, when the format
   * offers that (a large tar member), so an export need not hold the value whole.
   */
  valueSource?(
    index: number,
    field: string,
    options?: ReadOptions & { table?: string },
  ): Promise<ByteSource | undefined>;
  summary(options?: ReadOptions): Promise<Summary>;
}

/** An opened plugin reader as a RecordsInput; the caller still closes the reader. */
export function recordsInput(plugin: AnyFormatPlugin, reader: FormatReader, name: string): RecordsInput {
  const caps = plugin.capabilities;
  const valueSource = caps?.valueSource;
  const columns = caps?.columns;
  return {
    kind: 'records',
    name,
    format: plugin.id,
    schema: reader.schema,
    tables: caps?.tables
      ? (options) => (caps.tables as NonNullable<typeof caps.tables>)(reader, options)
      : () => listed(reader.tables ?? []),
    records: (options) => plugin.records(reader, options),
    columns: columns ? (options) => columns(reader, options) : undefined,
    valueSource: valueSource
      ? (index, field, options) => valueSource(reader, index, field, options)
      : undefined,
    summary: (options) => plugin.info(reader, options),
  };
}

async function* listed(tables: readonly TableInfo[]): AsyncGenerator<TableInfo> {
  yield* tables;
}

/** The records a converter from ANY_FORMAT reads: a table of the input, or its main records. */
export interface RecordsChoice {
  /** Undefined for the main records. */
  readonly table?: string;
  readonly schema: Schema;
  readonly count?: number;
}

/**
 * What every converter from ANY_FORMAT reads, by the options `table` and `indexOnly`: the table
 * named, else (unless `indexOnly`) the table the input marks primary (TARIDX: its samples,
 * where the main records are only their index), else the main records. An unknown table is
 * refused naming the input's tables.
 */
export async function chooseRecords(
  input: RecordsInput,
  values: OptionValues = {},
  options: ReadOptions = {},
): Promise<RecordsChoice> {
  const wanted = typeof values.table === 'string' && values.table !== '' ? values.table : undefined;
  const where = { file: input.name, format: input.format };
  if (wanted !== undefined && values.indexOnly === true)
    throw new FormatError('InvalidValue', '--table and --index-only exclude each other', where);
  if (values.indexOnly === true) return { schema: input.schema };
  const seen: string[] = [];
  for await (const t of input.tables(options)) {
    if (wanted === undefined ? t.primary === true : t.name === wanted)
      return { table: t.name, schema: t.schema, count: t.count };
    if (seen.length < 20) seen.push(JSON.stringify(t.name));
  }
  if (wanted === undefined) return { schema: input.schema };
  const list = seen.length ? `its tables: ${seen.join(', ')}` : 'it has no tables besides its main records';
  throw new FormatError(
    'InvalidValue',
    `--table ${JSON.stringify(wanted)}: no such table in ${input.name}; ${list}`,
    where,
  );
}

/**
 * A record that stands in for one its format could not read (`DataRecord.problem`), as the
 * typed error a converter stops with: its own class, message and offset.
 */
export function problemError(problem: Problem, input?: RecordsInput): FormatError {
  const code = (ERROR_CODES as readonly string[]).includes(problem.code)
    ? (problem.code as ErrorCode)
    : 'InvalidValue';
  return new FormatError(code, problem.message, {
    offset: problem.offset,
    file: problem.file ?? input?.name,
    format: problem.format ?? input?.format,
  });
}

/**
 * Browser-safe: reads through core's sources, writes to the given sink, spills to the given
 * scratch. It never leaves a half-written output of its own: the app's sink decides what a
 * failed conversion leaves (an atomic file is removed). A converter from a format or a stream
 * has `convert`; one from ANY_FORMAT has `convertRecords`.
 */
export interface Converter {
  convert?(input: ConvertInput, output: ConvertOutput, options: ConvertOptions): Promise<ConvertReport>;
  convertRecords?(
    input: RecordsInput,
    output: ConvertOutput,
    options: ConvertOptions,
  ): Promise<ConvertReport>;
}

/**
 * Runs a loaded converter on its input: records for a converter from ANY_FORMAT, a target or
 * stream for any other. A converter lacking the method its `from` calls for is refused.
 */
export async function runConverter(
  info: ConverterInfo,
  converter: Converter,
  input: ConvertInput | RecordsInput,
  output: ConvertOutput,
  options: ConvertOptions,
): Promise<ConvertReport> {
  if (input.kind === 'records') {
    if (!converter.convertRecords)
      throw new FormatError('UnsupportedFeature', `${info.id} does not convert records`, {
        file: input.name,
      });
    return converter.convertRecords(input, output, options);
  }
  if (!converter.convert)
    throw new FormatError(
      'UnsupportedFeature',
      `${info.id} converts the records of an opened input, not a file`,
    );
  return converter.convert(input, output, options);
}
