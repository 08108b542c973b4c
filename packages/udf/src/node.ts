import { type NodeFileSource, openFile, writeFileAtomic } from '@binscope/core/node';
import { type UdfOpenOptions, UdfReader } from './read.js';
import type { UdfBuilder } from './write.js';

/**
 * Writes a built UDF file to `path` atomically: into a temp file beside it, then renamed over
 * it, so the path holds the complete previous file or the complete new one, never a part.
 */
export async function writeUdfFile(path: string, builder: UdfBuilder): Promise<void> {
  await writeFileAtomic(path, (sink) => builder.write(sink));
}

/** Opens a local UDF file with positional reads (never the whole file). Close it when done. */
export async function openUdfFile(path: string, options?: UdfOpenOptions): Promise<UdfReader> {
  const source: NodeFileSource = openFile(path);
  try {
    return await UdfReader.open(source, options);
  } catch (error) {
    await source.close();
    throw error;
  }
}
