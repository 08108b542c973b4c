import {
  ANY_FORMAT,
  basename,
  type ConvertOutput,
  MemoryDirectory,
  memoryScratch,
  type OptionValues,
  type ProgressCallback,
  recordsInput,
  runConverter,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { zipSync, type Zippable } from 'fflate';
import type { ConvertResult, ResponseMap } from '../protocol';
import { DirectoryHandleSink } from './directory-sink';
import { openBytes, openDirectory } from './open-files';
import { registry } from './registry';
import type { Session } from './session';

/** `<input name without its extension>.<ext>`: what a conversion of this session writes. */
function outputName(session: Session, extension: string | undefined): string {
  const input = session.files.main?.path ?? session.name;
  const stem = basename(input).replace(/\.[^.]*$/, '') || 'output';
  return extension ? `${stem}.${extension}` : stem;
}

/**
 * Runs a converter the registry declares for the session's format, on the session's target.
 * A folder output goes into a new sub-folder of the folder the user picked (streamed there,
 * removed again if the conversion fails), or into memory and zipped with fflate; a file
 * output is built in memory for download. What was built in memory can be opened next.
 */
export async function convertSession(
  session: Session,
  request: { converter: string; values: OptionValues; directory?: FileSystemDirectoryHandle },
  signal: AbortSignal,
  onProgress: ProgressCallback,
): Promise<ResponseMap['convert']> {
  const info = registry().converters.find((c) => c.id === request.converter);
  const fromRecords = info?.from === ANY_FORMAT;
  if (!info || (info.from !== session.detection.format && !(fromRecords && session.reader)))
    throw new Error(`no converter ${request.converter} for this file`);
  // An export takes the opened reader's records; any other converter reads the file itself.
  const input =
    fromRecords && session.plugin && session.reader
      ? recordsInput(session.plugin, session.reader, session.name)
      : session.target;
  const converter = await info.load();
  const name = outputName(session, info.extensions[0]);
  const warnings: string[] = [];
  const scratch = memoryScratch();
  const run = async (output: ConvertOutput) => {
    const report = await runConverter(info, converter, input, output, {
      scratch,
      values: request.values,
      signal,
      onProgress,
    });
    for (const w of report.warnings) warnings.push(w.message);
    return report.details;
  };
  const result = (output: ConvertResult['output'], details: ConvertResult['details']): ConvertResult => ({
    name,
    output,
    warnings: [...new Set(warnings)],
    details,
  });
  try {
    if (info.output === 'file') {
      const sink = new MemorySink();
      const details = await run({ kind: 'file', sink });
      const bytes = sink.bytes();
      session.converted = { name, open: (s) => openBytes(name, bytes, s) };
      return { result: result('file', details), bytes: bytes.slice() };
    }
    if (request.directory) {
      const folder = await request.directory.getDirectoryHandle(name, { create: true });
      try {
        const details = await run({ kind: 'directory', sink: new DirectoryHandleSink(folder) });
        return { result: result('directory', details) };
      } catch (error) {
        await request.directory.removeEntry(name, { recursive: true }).catch(() => {});
        throw error;
      }
    }
    const memory = new MemoryDirectory({}, name);
    const details = await run({ kind: 'directory', sink: memory });
    session.converted = { name, open: (s) => openDirectory(memory, s) };
    const entries: Zippable = {};
    for (const path of await memory.list()) entries[`${name}/${path}`] = [memory.get(path)!, { level: 1 }];
    return { result: result('zip', details), bytes: zipSync(entries) };
  } finally {
    scratch.close();
  }
}
