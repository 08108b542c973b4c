import type { ReadOptions } from './bytes.js';
import type { Problem } from './errors.js';
import type { JsonValue } from './json.js';
import type { ProgressCallback, Target } from './plugin.js';
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
  /** The input's format id: a format, a detection-only entry ('h5ad', 'tar') or 'csv'. */
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

/**
 * Browser-safe: reads through core's sources, writes to the given sink, spills to the given
 * scratch. It never leaves a half-written output of its own: the app's sink decides what a
 * failed conversion leaves (an atomic file is removed).
 */
export interface Converter {
  convert(input: ConvertInput, output: ConvertOutput, options: ConvertOptions): Promise<ConvertReport>;
}
