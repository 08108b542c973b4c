import { MemoryArchiveSink } from '@binscope/scdl';
import { type BrowserConvertOptions, convertH5adFiles, describeH5adFile } from '@binscope/scdl-h5ad';
import { zipSync, type Zippable } from 'fflate';
import type { ConvertH5adResult, H5adConvertOptions, ViewResult } from '../../protocol';
import { DirectoryHandleSink } from '../directory-sink';
import type { Session } from '../session';
import type { ViewProvider } from '../views';
import type { Json } from './common';

/** The .h5ad files of a session: the dropped file, or every .h5ad of a dropped folder (C12: one archive). */
function inputs(session: Session): File[] {
  const files = session.h5adFiles();
  if (files.length === 0) throw new Error('a .h5ad must be opened from disk (h5wasm reads Files, not URLs)');
  return files;
}

/** Summaries of the inputs, read by h5wasm from the File's byte ranges (no arrays read). */
export const h5adView: ViewProvider = async (session, query): Promise<ViewResult> => {
  if (query.op !== 'describe') throw new Error(`unknown h5ad view query ${query.op}`);
  const summaries: Json[] = [];
  for (const file of inputs(session))
    summaries.push(JSON.parse(JSON.stringify(await describeH5adFile(file))) as Json);
  return { json: { files: summaries } };
};

const archiveName = (session: Session) => {
  const first = session.h5adFiles()[0]?.name ?? 'archive';
  return `${first.replace(/\.h5ad$/i, '') || 'archive'}.scdl`;
};

/**
 * Converts to SCDL. Into a picked folder: streamed there (bounded memory), in a new
 * `<name>.scdl` sub-folder that is removed again if anything fails. Otherwise in memory,
 * zipped with fflate for download, and kept so the page can open the archive right away.
 */
export async function convertH5ad(
  session: Session,
  options: H5adConvertOptions,
  directory: FileSystemDirectoryHandle | undefined,
  signal: AbortSignal,
  onProgress: (event: { phase?: string; done: number; total?: number }) => void,
): Promise<{ result: ConvertH5adResult; zip?: Uint8Array }> {
  const files = inputs(session);
  const warnings: string[] = [];
  const convertOptions: BrowserConvertOptions = {
    dataDtype: options.dataDtype as BrowserConvertOptions['dataDtype'],
    useX: options.useX,
    lossyCast: options.lossyCast,
    neighbors: options.neighbors || undefined,
    signal,
    onProgress,
    onWarning: (message) => warnings.push(message),
  };
  const name = archiveName(session);
  if (directory) {
    const target = await directory.getDirectoryHandle(name, { create: true });
    try {
      const result = await convertH5adFiles(files, new DirectoryHandleSink(target), convertOptions);
      return { result: describeResult(result, warnings, name, 'directory') };
    } catch (error) {
      await directory.removeEntry(name, { recursive: true }).catch(() => {});
      throw error;
    }
  }
  const sink = new MemoryArchiveSink();
  const result = await convertH5adFiles(files, sink, convertOptions);
  session.cache.set('h5ad:archive', sink);
  session.cache.set('h5ad:name', name);
  const entries: Zippable = {};
  for (const path of sink.paths()) entries[`${name}/${path}`] = [sink.file(path), { level: 1 }];
  return { result: describeResult(result, warnings, name, 'zip'), zip: zipSync(entries) };
}

function describeResult(
  result: Awaited<ReturnType<typeof convertH5adFiles>>,
  warnings: string[],
  name: string,
  output: 'zip' | 'directory',
): ConvertH5adResult {
  const plain = JSON.parse(
    JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  ) as Record<string, Json>;
  return {
    name,
    output,
    warnings: [...new Set([...warnings, ...((plain.warnings as string[]) ?? [])])],
    result: plain,
  };
}

export function convertedArchive(session: Session): MemoryArchiveSink | undefined {
  return session.cache.get('h5ad:archive') as MemoryArchiveSink | undefined;
}
