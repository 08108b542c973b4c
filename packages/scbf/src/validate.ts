import {
  appendAll,
  type ByteSource,
  type FormatError,
  isFormatError,
  Phase,
  ProblemList,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { checkExtensions } from './extensions-check.js';
import type { ScbfExtensions } from './extensions.js';
import { FORMAT, type LayoutProgress, parseLayoutOrStop, type ScbfLayout } from './layout.js';
import { ScbfReader } from './read.js';
import { type StrUncompMismatch, s4Warning } from './s4.js';
import { columnDecoder } from './stream.js';
import { schemaJson } from './write.js';

/** What the checking parse found, for validate's report and inspect's tree. */
export interface ScbfCheck {
  progress: LayoutProgress;
  layout?: ScbfLayout;
  /** The payload error of each column that does not decode, by column index. */
  payloadErrors: Map<number, FormatError>;
  footer?: ScbfExtensions;
}

/**
 * Every S-rule, each defect with its taxonomy class and byte offset, first defect first in
 * A2's order. Never throws for bad input.
 */
export async function validateScbf(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT, { file: source.name });
  await checkScbf(source, problems, options);
  return problems.report();
}

/**
 * The parse of validate and inspect modes: structure (header, metadata, bounds, counts) from
 * the layout parse; then every readable column is inflated as a stream (bounded memory) to
 * check S3–S5's payload rules: zlib streams, inflated lengths, offsets, UTF-8; then the
 * extension footer.
 */
export async function checkScbf(
  source: ByteSource,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<ScbfCheck> {
  const progress: LayoutProgress = { header: {}, columns: [] };
  const payloadErrors = new Map<number, FormatError>();
  const layout = await parseLayoutOrStop(source, problems, options, progress);
  if (!layout) return { progress, payloadErrors };
  const reader = new ScbfReader(layout);
  const mismatches = await checkPayloads(reader, layout, problems, payloadErrors, options);
  const s4 = s4Warning(mismatches, source.name);
  if (s4) problems.warn(s4.code, s4.message, { offset: s4.offset, file: s4.file });
  // Checked even after payload errors: a block checksum names the block that went bad.
  const footer = await checkExtensions(reader, problems, options);
  warnLegalOddities(layout, problems, footer);
  return { progress, layout, payloadErrors, footer };
}

async function checkPayloads(
  reader: ScbfReader,
  layout: ScbfLayout,
  problems: ProblemList,
  payloadErrors: Map<number, FormatError>,
  options: ValidateOptions,
): Promise<StrUncompMismatch[]> {
  const readWhole = reader.wholeBlockReader(options);
  // S4 mismatches count only for columns that decoded without error: a defective column reports its error alone.
  const mismatches: StrUncompMismatch[] = [];
  for (const column of layout.columns) {
    if (layout.defective.has(column.index)) continue;
    try {
      const found: StrUncompMismatch[] = [];
      await columnDecoder(layout.source, column, readWhole, options.signal, (m) => found.push(m)).finish();
      appendAll(mismatches, found);
    } catch (error) {
      if (!isFormatError(error)) throw error;
      problems.capture(error, { phase: Phase.payload, scope: `column ${column.index}` });
      payloadErrors.set(column.index, error);
    }
    options.onProgress?.({
      phase: 'validate',
      done: column.index + 1,
      total: layout.columns.length,
      unit: 'items',
    });
  }
  return mismatches;
}

/** Legal but worth knowing. */
function warnLegalOddities(
  layout: ScbfLayout,
  problems: ProblemList,
  footer: ScbfExtensions | undefined,
): void {
  const { header, columns, source } = layout;
  if (header.schema && problems.errors.length === 0) {
    const canonical = schemaJson(columns);
    if (canonical !== header.schemaJson) {
      problems.warn(
        'NonCanonicalSchema',
        'schema_json is not written as Python json.dumps writes it (S2); readers accept it',
        { offset: 12 },
      );
    }
  }
  let dataEnd = header.metaTableEnd;
  for (const column of columns)
    for (const block of column.blocks) dataEnd = Math.max(dataEnd, block.offset + block.compressedSize);
  if (problems.errors.length === 0 && dataEnd < source.size && !footer) {
    problems.warn('TrailingBytes', `${source.size - dataEnd} bytes after the last block are ignored (S5)`, {
      offset: dataEnd,
    });
  }
}
