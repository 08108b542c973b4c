import {
  type ByteSource,
  type FormatError,
  isBinscopeError,
  Phase,
  type ProblemList,
  type TargetOf,
  type ValidateOptions,
} from '@binscope/core';
import { appendAll } from '@binscope/core/binary';
import { checkExtensions } from './extensions-check.js';
import type { ScbfExtensions } from './extensions.js';
import { type LayoutProgress, parseLayout, type ScbfLayout } from './layout.js';
import { ScbfReader } from './read.js';
import { type StrUncompMismatch, s4Warning } from './s4.js';
import { columnDecoder } from './stream.js';
import { schemaJson } from './write.js';

/**
 * The one SCBF parse, in the three modes of core's definePlugin, and the checks only validate
 * and inspect make. What it found, for the reader (read mode), the report and the tree.
 */
export interface ScbfParse {
  source: ByteSource;
  /** What the layout parse got to, kept when a defect stops it: inspect draws it. */
  progress: LayoutProgress;
  /** The header and metadata table, when they parse. */
  layout?: ScbfLayout;
  /** The payload error of each column that does not decode, by column index (deep checks). */
  payloadErrors: Map<number, FormatError>;
  /** The extension footer, when the deep checks read it. */
  footer?: ScbfExtensions;
}

/**
 * Header and metadata table (S1, S2, S5's counts and sizes, block bounds). Read mode throws
 * the first defect; validate and inspect record every defect and keep what was parsed.
 */
export async function parseScbf(
  input: TargetOf<'file'>,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<ScbfParse> {
  const { source } = input;
  const parsed: ScbfParse = { source, progress: { header: {}, columns: [] }, payloadErrors: new Map() };
  try {
    parsed.layout = await parseLayout(source, problems, options, parsed.progress);
  } catch (error) {
    // A defect that stops the layout parse is recorded already; what was parsed stays in progress.
    if (problems.mode === 'read' || !isBinscopeError(error, 'FormatError')) throw error;
  }
  return parsed;
}

/**
 * Every column inflated as a stream (bounded memory) to check S3–S5's payload rules: zlib
 * streams, inflated lengths, offsets, UTF-8; then the extension footer, then what is legal
 * but worth a warning.
 */
export async function checkScbf(
  parsed: ScbfParse,
  problems: ProblemList,
  options: ValidateOptions = {},
): Promise<void> {
  const { layout, source } = parsed;
  if (!layout) return;
  const reader = new ScbfReader(layout);
  const mismatches = await checkPayloads(reader, layout, problems, parsed.payloadErrors, options);
  const s4 = s4Warning(mismatches, source.name);
  if (s4) problems.warn(s4.code, s4.message, { offset: s4.offset, file: s4.file });
  // Checked even after payload errors: a block checksum names the block that went bad.
  parsed.footer = await checkExtensions(reader, problems, options);
  warnLegalOddities(layout, problems, parsed.footer);
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
      if (!isBinscopeError(error, 'FormatError')) throw error;
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
