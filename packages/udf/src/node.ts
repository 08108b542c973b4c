import { openFile, writeFileAtomic } from '@binscope/core/node';
import { openUdf } from './plugin.js';
import type { UdfOpenOptions, UdfReader } from './read.js';
import type { UdfBuilder } from './write.js';

/**
 * Writes a built UDF file to `path` atomically: into a temp file beside it, then renamed over
 * it, so the path holds the complete previous file or the complete new one, never a part.
 */
export async function writeUdfFile(path: string, builder: UdfBuilder): Promise<void> {
  await writeFileAtomic(path, (sink) => builder.write(sink));
}

/**
 * Opens a local UDF file with positional reads (never the whole file). The reader opened the
 * file, so closing the reader closes it.
 */
export async function openUdfFile(path: string, options?: UdfOpenOptions): Promise<UdfReader> {
  const source = openFile(path);
  try {
    return (await openUdf(source, options)).ownSource();
  } catch (error) {
    await source.close();
    throw error;
  }
}
