import type { ProblemList, ReadOptions } from '@binscope/core';
import { extensionsOf, verifyBlockChecksums } from './extend.js';
import type { FooterWarning, ScbfExtensions } from './extensions.js';
import type { ScbfReader } from './read.js';

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
    problems.capture(error);
    return undefined;
  }
  for (const w of warnings) problems.warn(w.code, w.message, { offset: w.offset });
  if (footer?.checksums) {
    for (const corrupted of await verifyBlockChecksums(reader, footer.checksums, options))
      problems.capture(corrupted);
  }
  return footer;
}
