import type { ByteSource, ReadOptions } from './bytes.js';
import type { DirectorySource } from './directory.js';
import { isFormatError, isSourceError, type ValidationReport } from './errors.js';
import type { NearMiss } from './registry.js';
import { type InspectNode, type InspectResult, inspectResult, unparsedResult } from './inspect.js';
import type { JsonValue } from './json.js';

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
 * A format's metadata: everything detection needs, importable without the parser
 * (each package's `/magic` entry exports just this, so apps can detect before importing a parser).
 */
export interface FormatInfo {
  /** Version of this interface the plugin implements. Bumped on breaking changes. */
  readonly specificationVersion: 'v1';
  readonly id: string;
  readonly title: string;
  readonly kind: 'file' | 'directory';
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
}

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

export interface RecordOptions extends ReadOptions {
  /** First record to produce. */
  offset?: number;
  /** How many records at most. */
  limit?: number;
  /** Restrict to these columns / fields (formats that have them). */
  columns?: readonly string[];
}

export interface ValidateOptions extends OpenOptions {
  /** Also check payloads against their containers when they are reachable (shards, blocks). */
  deep?: boolean;
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

export interface FormatReader {
  readonly format: string;
  close?(): Promise<void>;
}

/** A record as the CLI and the web page show it. */
export type JsonRecord = { [key: string]: JsonValue };

/** Where a value is stored: a byte range of the file (or of `file`, inside an archive). */
export interface ByteLocation {
  offset: number;
  length?: number;
  file?: string;
  /**
   * The record field stored here (a column, "values"), when a record is stored in several
   * places: diff shows, for a differing field, the location of that field.
   */
  field?: string;
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

/** One format, implemented by one package. Writers are the packages' own exports. */
export interface FormatPlugin<R extends FormatReader = FormatReader> extends FormatInfo {
  /** Opens lazily: reads the header and what it needs to answer questions, not the data. */
  open(target: Target, options?: OpenOptions): Promise<R>;
  info(reader: R, options?: ReadOptions): Promise<Summary>;
  /** The structure tree of an opened (valid) file, with byte ranges. */
  inspect(reader: R, options?: ReadOptions): Promise<InspectNode>;
  /**
   * Inspect mode of the format's parser, for any file, broken ones above all: the tree as far
   * as the file can be parsed (and around a defect, where the format lets parsing go on), each
   * problem marked on the node it is about. Never throws for bad input.
   */
  inspectTarget(target: Target, options?: ValidateOptions): Promise<InspectResult>;
  /** Every error and warning, with class and offset. Never throws for bad input. */
  validate(target: Target, options?: ValidateOptions): Promise<ValidationReport>;
  /** Rows / samples / tables as JSON-able records, streamed. */
  records(reader: R, options?: RecordOptions): AsyncIterable<JsonRecord>;
  /**
   * Optional: the records as CSV text in the format's own dialect (SCBF: rule S8), streamed in
   * chunks, header line first. Formats that define a CSV form implement it so every CSV they
   * produce (a `cat`, a conversion) is the same text, from one code path.
   */
  csv?(reader: R, options?: RecordOptions): AsyncIterable<string>;
  /**
   * For `diff`: the content as comparable fields (header fields, schema, fields, tables,
   * arrays, counts) with their locations. What only reflects the encoding (compressed sizes,
   * block offsets, padding) is left out, or marked `layout` for `diff --layout`, so files of
   * equal content compare equal.
   */
  contentFields(reader: R, options?: ReadOptions): Promise<ContentField[]>;
  /** For `diff`: where record `index` (numbered as records() yields them) is stored. */
  locateRecord(reader: R, index: number, options?: ReadOptions): Promise<ByteLocation[]>;
  /**
   * Optional, for `diff`: record keys whose values say where something is stored (offsets,
   * sizes) rather than what is stored. `diff` leaves them out of the record comparison and
   * compares them only when asked for layout (`--layout`), like contentFields' layout fields.
   */
  readonly layoutFields?: readonly string[];
}

/** Erases a plugin's reader type so different plugins fit one list. */
export type AnyFormatPlugin = FormatPlugin<FormatReader>;

/** What a package hands to definePlugin: a plugin whose inspect mode may fall back to core's. */
export type PluginDefinition<R extends FormatReader> = Omit<FormatPlugin<R>, 'inspectTarget'> &
  Partial<Pick<FormatPlugin<R>, 'inspectTarget'>>;

export function definePlugin<R extends FormatReader>(definition: PluginDefinition<R>): AnyFormatPlugin {
  const validate = definition.validate;
  const plugin: FormatPlugin<R> = {
    ...definition,
    validate: (target, options) => validateWithoutThrowing(definition.id, validate, target, options),
    inspectTarget: (target, options) =>
      definition.inspectTarget
        ? definition.inspectTarget(target, options)
        : inspectByOpening(plugin, target, options),
  };
  return plugin as unknown as AnyFormatPlugin;
}

/**
 * validate() reports, it does not throw: an I/O failure part-way (a dropped HTTP connection, a
 * server that stalls or changes the file) becomes an error of code `SourceError` in the report.
 * Only the caller's own abort is thrown, since nobody is waiting for a report then.
 */
async function validateWithoutThrowing(
  format: string,
  validate: FormatPlugin['validate'],
  target: Target,
  options?: ValidateOptions,
): Promise<ValidationReport> {
  try {
    return await validate(target, options);
  } catch (error) {
    if (!isSourceError(error) || options?.signal?.aborted) throw error;
    return {
      valid: false,
      errors: [{ code: 'SourceError', message: error.message, file: error.path, format }],
      warnings: [],
    };
  }
}

/**
 * The least an inspect mode does, for a format whose parser cannot yet go past a defect: the
 * tree of the opened file with the validation problems marked, or, when it does not open, the
 * file as one node marked with why.
 */
export async function inspectByOpening<R extends FormatReader>(
  plugin: Pick<FormatPlugin<R>, 'open' | 'inspect' | 'validate'>,
  target: Target,
  options?: ValidateOptions,
): Promise<InspectResult> {
  const report = await plugin.validate(target, options);
  try {
    const reader = await plugin.open(target, options);
    try {
      return inspectResult(await plugin.inspect(reader, options), report);
    } finally {
      await reader.close?.();
    }
  } catch (error) {
    if (isSourceError(error) || !isFormatError(error)) throw error;
    const name = target.kind === 'file' ? target.source.name : target.directory.name;
    const size = target.kind === 'file' ? target.source.size : 0;
    const errors = report.errors.length > 0 ? report.errors : [error.toProblem()];
    return unparsedResult(name, size, { valid: false, errors, warnings: report.warnings });
  }
}
