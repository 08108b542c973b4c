import {
  type DirectorySource,
  definePlugin,
  directoryTarget,
  type JsonValue,
  type Summary,
  type Target,
  type TargetOf,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { scdlContentFields } from './content.js';
import { deepChecks } from './deep-checks.js';
import { HEADER_FILE } from './header.js';
import { inspectScdl, scdlTree } from './inspect.js';
import { scdlFormat } from './magic.js';
import { type ArchiveParse, parseArchive } from './parse.js';
import { type ScdlOpenOptions, ScdlReader } from './read.js';
import { scdlLocateRow, scdlRecords } from './records.js';

async function info(reader: ScdlReader): Promise<Summary> {
  const varIndex = reader.varIndex;
  const obsIndex = reader.obsIndex;
  const counts: Record<string, number> = {
    rows: reader.numRows,
    nnz: reader.nnz,
    arrays: reader.header.arrays.length,
    featureIndices: reader.header.featureIndices.length,
  };
  if (varIndex && varIndex.blockCount > 0) counts.columns = await reader.numColumns();
  const properties: Array<[string, JsonValue]> = [
    ['schema version', reader.version],
    ['rows', reader.numRows],
    // Stored entries, explicit zeros included (as scipy's nnz): not all of them are non-zero.
    ['stored values', reader.nnz],
    ['density', reader.numRows && counts.columns ? reader.nnz / (reader.numRows * counts.columns) : null],
    ['data dtype', reader.data.dtype],
    ['row_ptr dtype', reader.rowPtr.dtype],
    ['col_ptr dtype', reader.colPtr.dtype],
    ['var blocks', varIndex?.blockCount ?? 0],
    ['obs blocks', obsIndex?.blockCount ?? 0],
    ['files', reader.files.length],
  ];
  if (reader.warnings.length) properties.push(['warnings', reader.warnings.map((w) => w.message)]);
  const details: { [key: string]: JsonValue } = {
    arrays: reader.header.arrays.map((a) => ({ name: a.name, length: a.length, dtype: a.dtype })),
    featureIndices: reader.header.featureIndices.map((f) => ({
      name: f.name,
      length: f.length,
      files: f.files,
    })),
  };
  for (const [key, index] of [
    ['var', varIndex],
    ['obs', obsIndex],
  ] as const) {
    if (!index) continue;
    const blocks: JsonValue[] = [];
    for (let b = 0; b < index.blockCount; b++) {
      const block = index.block(b);
      blocks.push({
        label: block.label ?? null,
        start: block.start,
        end: block.end,
        columns: await index.columns(b).catch(() => []),
      });
    }
    details[key] = blocks;
  }
  return { format: 'scdl', title: scdlFormat.title, version: reader.version, counts, properties, details };
}

/** An archive folder, or the folder around its header.sch given as a file (with its siblings). */
function archiveInput(target: Target): TargetOf<'directory'> | undefined {
  if (target.kind === 'directory') return target;
  const headerFile = new RegExp(`(^|/)${HEADER_FILE.replace('.', '\\.')}$`);
  if (target.siblings && headerFile.test(target.source.name))
    return { kind: 'directory', directory: target.siblings };
  return undefined;
}

const { load: _load, ...entry } = scdlFormat;

/**
 * The SCDL plugin: one parse of the archive (header.sch, the matrix arrays' sizes and
 * row_ptr's ends, the feature indices) in core's three modes, the checks only validate and
 * inspect make (every row, column indices, neighbors), the tree, and the reader's verbs.
 * Records are rows `{row, indices, values}` and the row's obs feature columns. Capability: a demo sample.
 */
export const scdlPlugin = definePlugin<ArchiveParse, ScdlReader, 'directory'>({
  ...entry,
  kind: 'directory',
  input: archiveInput,
  parse: (input, problems, options) => parseArchive(input.directory, problems, options),
  reader: (parsed, _input, options) => ScdlReader.withObsFields(parsed, options),
  deepChecks: (parsed, _input, problems, options) => deepChecks(parsed, problems, options),
  tree: (parsed, problems) => scdlTree(parsed, problems),
  info,
  inspect: (reader, options) => inspectScdl(reader, options),
  records: scdlRecords,
  contentFields: (reader, options) => scdlContentFields(reader, options),
  locateRecord: (reader, index, options) => scdlLocateRow(reader, index, options),
  capabilities: {
    // Loaded when asked: the writer and its parquet encoder, which readers never need.
    sample: async (out, options) => (await import('./sample.js')).writeScdlSample(out, options),
  },
});

/**
 * Opens an archive from any directory source (Node folder, dropped browser folder, memory,
 * S3 prefix): header, array sizes, row_ptr's ends, feature-index metadata; rows on demand.
 * Throws the first defect as a FormatError. Closing the reader leaves `directory` open: it
 * is the caller's.
 */
export function openScdl(directory: DirectorySource, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
  return scdlPlugin.open(directoryTarget(directory), options);
}

/**
 * Checks an archive in the natural order (A2): header (C1–C3) → array files' sizes (C5)
 * → row_ptr → feature indices (C6) → column indices within their block's features. Never
 * throws for bad input.
 */
export function validateScdl(target: Target, options: ValidateOptions = {}): Promise<ValidationReport> {
  return scdlPlugin.validate(target, options);
}
