import * as fs from 'node:fs';
import {
  type AnyFormatPlugin,
  type ConvertOptions,
  MemoryDirectory,
  memoryScratch,
  type OptionValues,
  type RecordsInput,
  recordsInput,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { openPath } from '@binscope/core/node';
import { mldfFormat } from '@binscope/mldf/magic';
import { scbfFormat } from '@binscope/scbf/magic';
import { scdlFormat } from '@binscope/scdl/magic';
import { taridxFormat } from '@binscope/taridx/magic';
import { udfFormat } from '@binscope/udf/magic';
import { parquetExport, parquetFolderExport } from '../src/export.js';
import { parquetFormat } from '../src/magic.js';

/** The plugins whose vectors the tests export, by the vectors folder's name. */
export const FORMATS = {
  scbf: scbfFormat,
  udf: udfFormat,
  mldf: mldfFormat,
  taridx: taridxFormat,
  scdl: scdlFormat,
  parquet: parquetFormat,
};

export async function pluginFor(format: string): Promise<AnyFormatPlugin> {
  const entry = FORMATS[format as keyof typeof FORMATS];
  if (!entry?.load) throw new Error(`no plugin for ${format}`);
  return entry.load();
}

/** Opens `target` with `format`'s plugin as a RecordsInput; `close` closes reader and source. */
export async function openInput(
  format: string,
  target: string,
): Promise<{ input: RecordsInput; close(): Promise<void> }> {
  const plugin = await pluginFor(format);
  const opened = openPath(target);
  const reader = await plugin.open(opened);
  return {
    input: recordsInput(plugin, reader, target),
    close: async () => {
      await reader.close?.();
      if (opened.kind === 'file') await opened.source.close?.();
    },
  };
}

export function options(values: OptionValues = {}): ConvertOptions {
  return { scratch: memoryScratch(), values };
}

/** Exports to one Parquet file at `out`; returns the converter's report. */
export async function exportFile(input: RecordsInput, out: string, values: OptionValues = {}) {
  const sink = new MemorySink();
  const report = await parquetExport.convertRecords!(input, { kind: 'file', sink }, options(values));
  fs.writeFileSync(out, sink.bytes());
  return report;
}

/** Exports to a folder of Parquet files (in memory); returns the files by name. */
export async function exportFolder(
  input: RecordsInput,
  values: OptionValues = {},
): Promise<Map<string, Uint8Array>> {
  const folder = new MemoryDirectory({}, 'out');
  await parquetFolderExport.convertRecords!(input, { kind: 'directory', sink: folder }, options(values));
  const out = new Map<string, Uint8Array>();
  for (const name of await folder.list()) out.set(name, folder.get(name)!);
  return out;
}
