import {
  type ByteSource,
  isFormatError,
  ProblemList,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { type Finding, FORMAT, parseLayout, Phase, sortFindings } from './layout.js';
import { ScbfReader } from './read.js';
import { checkExtensions } from './extensions-check.js';
import { type StrUncompMismatch, s4Warning } from './s4.js';
import { columnDecoder } from './stream.js';
import { schemaJson } from './write.js';

/**
 * Every S-rule, each defect with its taxonomy class and byte offset, first defect first in
 * A2's order. Structure (header, metadata, bounds, counts) comes from the layout parse; then
 * every readable column is inflated as a stream (bounded memory) to check S3–S5's payload
 * rules: zlib streams, inflated lengths, offsets, UTF-8. Never throws for bad input.
 */
export async function validateScbf(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT);
  let layout: Awaited<ReturnType<typeof parseLayout>>;
  try {
    layout = await parseLayout(source, options);
  } catch (error) {
    problems.capture(error);
    return problems.report();
  }
  if ('fatal' in layout) {
    for (const finding of layout.fatal) problems.capture(finding.error);
    return problems.report();
  }
  const findings: Finding[] = [...layout.findings];
  const reader = new ScbfReader(layout);
  const readWhole = reader.wholeBlockReader(options);
  // S4 mismatches count only for columns that decoded without error: a defective column reports its error alone.
  const mismatches: StrUncompMismatch[] = [];
  for (const column of layout.columns) {
    if (layout.defective.has(column.index)) continue;
    try {
      const found: StrUncompMismatch[] = [];
      await columnDecoder(source, column, readWhole, options.signal, (m) => found.push(m)).finish();
      mismatches.push(...found);
    } catch (error) {
      if (!isFormatError(error)) throw error;
      findings.push({ phase: Phase.payload, error });
    }
    options.onProgress?.({
      phase: 'validate',
      done: column.index + 1,
      total: layout.columns.length,
      unit: 'items',
    });
  }
  for (const finding of sortFindings(findings)) problems.capture(finding.error);
  const s4 = s4Warning(mismatches, source.name);
  if (s4) problems.warn(s4.code, s4.message, { offset: s4.offset, file: s4.file });
  // Checked even after payload errors: a block checksum names the block that went bad.
  const footer = await checkExtensions(reader, problems, options);

  // Legal but worth knowing.
  const { header, columns } = layout;
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
  return problems.report();
}
