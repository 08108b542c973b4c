import type { ByteSource, ReadOptions } from './bytes.js';
import type { DirectorySource } from './directory.js';
import type { Problem, ValidationReport } from './errors.js';
import type { InspectNode, InspectResult } from './inspect.js';
import type { JsonValue } from './json.js';
import type { NearMiss } from './registry.js';
import type { ByteLocation, ColumnBatch, DataRecord, Schema, TableInfo } from './schema.js';
import type { DirectorySink } from './sink.js';
import type { RowFilter } from './where.js';

/** The version of the contract this core drives: FormatInfo, FormatPlugin and ConverterInfo. */
export const SPECIFICATION_VERSION = 2;

/** What a plugin is asked to read: one file (maybe with its folder), or a directory archive. */
export type Target =
  | {
      kind: 'file';
      source: ByteSource;
      /** The folder the file sits in, for formats that point into sibling files (TARIDX shards). */
      siblings?: DirectorySource;
    }
  | { kind: 'directory'; directory: DirectorySource };

export function fileTarget(source: ByteSource, siblings?: DirectorySource): Target {
  return { kind: 'file', source, siblings };
}

export function directoryTarget(directory: DirectorySource): Target {
  return { kind: 'directory', directory };
}

/** A signature as data: `bytes` (or Latin-1 text) expected at `offset`. */
export interface MagicSignature {
  offset: number;
  bytes: Uint8Array | string;
}

/**
 * What an entry of the format list is for: `format` a plugin reads it (the default);
 * `container` detected, read through another format (tar shards, through a TARIDX index);
 * `convertible` detected, converted into a format binscope reads (`.h5ad` → SCDL).
 */
export type FormatRole = 'format' | 'container' | 'convertible';

/**
 * A format's metadata: everything detection needs, importable without the parser (each
 * package's `/magic` entry exports it, with `load`, so apps detect before importing a parser).
 */
export interface FormatInfo {
  /** The contract version (2): the registry refuses any other. */
  readonly specificationVersion: 2;
  readonly id: string;
  readonly title: string;
  readonly kind: 'file' | 'directory';
  /** Default 'format'. */
  readonly role?: FormatRole;
  readonly extensions: readonly string[];
  readonly mimeTypes?: readonly string[];
  readonly magic: readonly MagicSignature[];
  /**
   * What signatures cannot express, e.g. "a directory holding header.sch that starts with
   * SCDL". Returns a score on the DETECTION_SCORE scale (e.g. partialMagic, magicAndStructure),
   * or 0 for no. Runs before any parser is loaded: it must not need parser code.
   */
  detect?(target: Target, head: Uint8Array, options?: ReadOptions): Promise<number>;
  /**
   * For formats whose signature is not at the start of the target (a folder's header file):
   * how a target nothing detected nearly is this format, for detection's near-miss report.
   * File formats leave it out; core compares their signatures with the head itself.
   */
  nearMiss?(target: Target, options?: ReadOptions): Promise<NearMiss | undefined>;
  /**
   * A folder format's files, as relative paths, read from what it can see of `directory`
   * (SCDL: header.sch and the arrays and feature files it names), so a folder that cannot be
   * listed (HTTP without an index page) can still be opened: apps pass the names to
   * `HttpDirectory.expect`. Must not need parser code beyond what detection reads.
   */
  expectedFiles?(directory: DirectorySource, options?: ReadOptions): Promise<string[]>;
  /**
   * For an entry no plugin reads on its own (a `container` or `convertible`): how a person
   * reads it instead, as one clause apps append to "<path>: <title>" when a verb is given
   * such a file (a tar shard: "binscope reads shards through their index: binscope index DIR
   * --fold NAME, then use the .taridx"). Data, so apps never word a format's advice themselves.
   */
  readonly howToRead?: string;
}

/**
 * An entry of the format list: metadata now, the plugin on first use. `load` is absent for
 * detection-only entries (a `container` or `convertible` nothing reads directly).
 */
export type LazyFormat = FormatInfo & { load?(): Promise<AnyFormatPlugin> };

export interface ProgressEvent {
  phase?: string;
  done: number;
  total?: number;
  unit?: 'bytes' | 'items';
}
export type ProgressCallback = (event: ProgressEvent) => void;

export interface OpenOptions extends ReadOptions {
  onProgress?: ProgressCallback;
}

export interface ValidateOptions extends OpenOptions {
  /** Also check payloads against their containers when they are reachable (shards, blocks). */
  deep?: boolean;
}

export interface RecordOptions extends ReadOptions {
  /** First record to produce. */
  offset?: number;
  /** How many records at most. */
  limit?: number;
  /** Only these fields, in this order (the record's values then hold them in it). */
  columns?: readonly string[];
  /**
   * One of `reader.tables` (or of `capabilities.tables`) by name; default: the reader's main
   * records (`reader.schema`).
   */
  table?: string;
  /**
   * Only records this filter matches; `offset` and `limit` then count matching records. Given
   * only to plugins that declare `capabilities.filter`: apps filter for every other plugin.
   */
  where?: RowFilter;
  /** Fill `DataRecord.locations`. */
  locations?: boolean;
  /**
   * Told when a `where` the plugin took over let it skip data unread (SCBF: a column's
   * statistics exclude a condition, so no block is read); `reason` says why, for a person.
   */
  onSkip?(skipped: { fields: readonly string[]; reason: string }): void;
}

/** A human + machine summary: `info`. */
export interface Summary {
  format: string;
  title: string;
  version?: string;
  /** The format's headline counts: rows, columns, samples, fields, datasets, arrays, ... */
  counts: Record<string, number>;
  /** Label/value pairs for a human reader, in display order. */
  properties: Array<[string, JsonValue]>;
  /** Structured detail (schema, fields, tables), JSON-able. */
  details?: { [key: string]: JsonValue };
}

/**
 * An opened file or archive. It closes only what it opened itself (TARIDX shards opened from
 * `siblings`), never its target: whoever opens a source closes it.
 */
export interface FormatReader {
  readonly format: string;
  /** The schema of `records()` without `table`. */
  readonly schema: Schema;
  /**
   * Further record tables known at open (TARIDX: 'samples'). Tables found only by reading the
   * file (UDF: one per table of every dataset) come from the plugin's `capabilities.tables`.
   */
  readonly tables?: readonly TableInfo[];
  /** What reading has noticed so far (SCBF S4): values, part of the contract, never console output. */
  readonly warnings: readonly Problem[];
  close?(): Promise<void>;
}

/** A value `diff` compares, named by a path that is the same in every file of the format. */
export interface ContentField {
  /** "header.version", "schema.columns[2].type", "counts.rows", ... */
  path: string;
  value: JsonValue;
  location?: ByteLocation;
  /**
   * A field that says where or how something is stored (an offset, a size, a compression)
   * rather than what: `diff` compares it only when asked for layout (`--layout`).
   */
  layout?: boolean;
}

/** Optional abilities a plugin declares; apps use them only when declared, never by duck typing. */
export interface PluginCapabilities<R extends FormatReader = FormatReader> {
  /**
   * `records()` honours `options.where` itself, faster than filtering every record (SCBF skips
   * column blocks its statistics exclude). Apps then pass the filter down instead of applying it.
   */
  readonly filter?: boolean;
  /**
   * The records as CSV text in the format's own dialect (SCBF: S8), header line first, streamed
   * in chunks: every CSV of the format (a `cat`, a conversion) is the same text.
   */
  csv?(reader: R, options?: RecordOptions): AsyncIterable<string>;
  /**
   * Writes a small sample of the format with its own writer (for `demo` and the web page's
   * samples) and returns the paths to show, in order (a format's companions, such as the CSV an
   * SCBF sample was made from, are written but not listed).
   */
  sample?(out: DirectorySink, options?: ReadOptions): Promise<string[]>;
  /**
   * The reader's further tables when they are known only by reading the file (UDF: one per
   * table of every dataset, found by walking its graph), in order and streamed: `open` stays
   * lazy and a file of a million tables lists them in bounded memory. A plugin declaring it
   * leaves `reader.tables` unset; `records(reader, { table })` and `locateRecord` take these names.
   */
  tables?(reader: R, options?: ReadOptions): AsyncIterable<TableInfo>;
  /**
   * The records of `options.table` (or the main records) as runs of columns, for a table the
   * format stores by column (UDF's numeric tables): a columnar export then copies arrays instead
   * of building a record a row. Undefined when the records asked for are not stored that way;
   * the caller then reads `records()`. The batches hold exactly the values `records()` gives
   * and raise the same errors; `offset` and `limit` count records, `where` is never passed.
   */
  columns?(reader: R, options?: RecordOptions): Promise<AsyncIterable<ColumnBatch> | undefined>;
  /**
   * The position of the record whose `schema.key` field equals `key` (in `options.table`'s
   * records when given), found without scanning every record where the format can (TARIDX
   * hashes the key); undefined when there is none. What `get FILE KEY` uses.
   */
  lookup?(reader: R, key: string, options?: ReadOptions & { table?: string }): Promise<number | undefined>;
  /**
   * The stored bytes of one bytes-typed value (record `index`, field `field`), as a source the
   * caller reads in pieces and closes: values of any size (a 4 GiB tar member) stream without
   * being held in memory. Undefined when the record has no such value.
   */
  valueSource?(
    reader: R,
    index: number,
    field: string,
    options?: ReadOptions & { table?: string },
  ): Promise<ByteSource | undefined>;
}

/** One format, implemented by one package. Writers are the packages' own exports. */
export interface FormatPlugin<R extends FormatReader = FormatReader> extends FormatInfo {
  /** Opens lazily: reads the header and what it needs to answer questions, not the data. */
  open(target: Target, options?: OpenOptions): Promise<R>;
  /** Every error and warning, with class and offset. Never throws for bad input. */
  validate(target: Target, options?: ValidateOptions): Promise<ValidationReport>;
  /**
   * Inspect mode of the format's parser, for any file, broken ones above all: the tree as far
   * as the file can be parsed, each problem marked on the node it is about. Never throws for
   * bad input.
   */
  inspectTarget(target: Target, options?: ValidateOptions): Promise<InspectResult>;
  /** The structure tree of an opened (valid) file, with byte ranges. */
  inspect(reader: R, options?: ReadOptions): Promise<InspectNode>;
  info(reader: R, options?: ReadOptions): Promise<Summary>;
  /** Records of `reader.schema` (or of `options.table`'s), streamed. */
  records(reader: R, options?: RecordOptions): AsyncIterable<DataRecord>;
  /**
   * For `diff`: the content as comparable fields (header fields, schema, fields, tables,
   * arrays, counts) with their locations. What only reflects the encoding (compressed sizes,
   * block offsets, padding) is left out, or marked `layout` for `diff --layout`, so files of
   * equal content compare equal.
   */
  contentFields(reader: R, options?: ReadOptions): Promise<ContentField[]>;
  /** Where record `index` (numbered as records() yields them) is stored. */
  locateRecord(reader: R, index: number, options?: ReadOptions & { table?: string }): Promise<ByteLocation[]>;
  /**
   * Optional, for `diff`: record fields whose values say where something is stored (offsets,
   * sizes) rather than what is stored. `diff` leaves them out of the record comparison and
   * compares them only when asked for layout (`--layout`), like contentFields' layout fields.
   */
  readonly layoutFields?: readonly string[];
  readonly capabilities?: PluginCapabilities<R>;
}

/** Erases a plugin's reader type so different plugins fit one list. */
export type AnyFormatPlugin = FormatPlugin<FormatReader>;
