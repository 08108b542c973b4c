import { FormatError, Phase, type ProblemList, type ReadOptions } from '@binscope/core';
import { firstBadCode } from './dictionary.js';
import { extensionsOf, verifyBlockChecksums } from './extend.js';
import type { FooterWarning, ScbfExtensions } from './extensions.js';
import { FORMAT } from './layout.js';
import type { ScbfReader } from './read.js';
import { StatisticsBuilder, statisticsDiffer } from './statistics.js';
import { Utf8Column } from './utf8.js';

/**
 * validate's part for the extension footer: its structure, every block checksum (each
 * corrupted block named), and warnings for records this reader skips. Returns the footer
 * (undefined when the file has none or it is unreadable).
 */
export async function checkExtensions(
  reader: ScbfReader,
  problems: ProblemList,
  options: ReadOptions = {},
): Promise<ScbfExtensions | undefined> {
  const warnings: FooterWarning[] = [];
  let footer: ScbfExtensions | undefined;
  try {
    footer = await extensionsOf(reader, warnings, options);
  } catch (error) {
    // The reader parses the footer after the layout and before any block (A2: after structure,
    // before payload), so an unreadable footer ranks there.
    problems.capture(error, { phase: Phase.reference });
    return undefined;
  }
  for (const w of warnings) problems.warn(w.code, w.message, { offset: w.offset });
  if (footer?.checksums) {
    for (const corrupted of await verifyBlockChecksums(reader, footer.checksums, options))
      problems.capture(corrupted);
  }
  if (footer?.dictionaries?.size) await checkDictionaries(reader, footer.dictionaries, problems, options);
  if (footer?.statistics && problems.errors.length === 0)
    await checkStatistics(reader, footer, problems, options);
  return footer;
}

/**
 * Statistics that lie would make `cat --where` skip rows that match: recompute each
 * column's, streaming it batch by batch, and compare with what the footer stores.
 */
async function checkStatistics(
  reader: ScbfReader,
  footer: ScbfExtensions,
  problems: ProblemList,
  options: ReadOptions,
): Promise<void> {
  for (const column of reader.columns) {
    const stored = footer.statistics![column.index];
    const builder = new StatisticsBuilder(column.type, footer.nulls?.get(column.index));
    for await (const batch of reader.batches({ columns: [column.index], signal: options.signal })) {
      const values = batch.values[0];
      if (values instanceof Utf8Column) builder.addStrings(values);
      else builder.addNumbers(values);
    }
    const actual = builder.result();
    const field = statisticsDiffer(stored, actual);
    if (field === undefined) continue;
    problems.capture(
      new FormatError(
        'InvalidValue',
        `statistics of column "${column.name}" do not match its data: ${field} is ${JSON.stringify(stored[field])} in the footer, ${JSON.stringify(actual[field])} in the column`,
        { offset: footer.bodyOffset, file: reader.source.name, format: FORMAT },
      ),
    );
  }
}

/**
 * Dictionary columns read as int32 codes by every reader without the extension: warn, since
 * the file is valid SCBF but its text is not where upstream looks. Then every code must
 * index its dictionary (streamed, batch by batch).
 */
async function checkDictionaries(
  reader: ScbfReader,
  dictionaries: ReadonlyMap<number, readonly string[]>,
  problems: ProblemList,
  options: ReadOptions,
): Promise<void> {
  for (const [index, dictionary] of dictionaries) {
    const column = reader.columns[index];
    problems.warn(
      'DictionaryEncoded',
      `column "${column.name}" is dictionary-encoded (extension kind 4): upstream SCBF readers cannot read its text, they return int32 codes`,
      { offset: column.blocks[0].offset },
    );
    // A block already reported as damaged is not read again.
    if (problems.errors.length > 0) continue;
    for await (const batch of reader.batches({ columns: [index], signal: options.signal })) {
      const bad = firstBadCode(batch.values[0] as Int32Array, dictionary.length, batch.start);
      if (!bad) continue;
      problems.capture(
        new FormatError(
          'OutOfBounds',
          `column "${column.name}" row ${bad[0]}: code ${bad[1]} is past its dictionary of ${dictionary.length}`,
          { offset: column.blocks[0].offset, file: reader.source.name, format: FORMAT },
        ),
      );
      break;
    }
  }
}
