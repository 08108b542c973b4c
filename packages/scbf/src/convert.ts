/**
 * The conversions `/magic` declares (csvToScbfConverter, scbfToCsvConverter), as Converter
 * objects. Browser-safe: they read through core's sources, write to the sink the app gives
 * and spill to its scratch; the Node path helpers (node.ts) run them on files.
 */
import type {
  ByteSink,
  Converter,
  ConvertInput,
  ConvertOptions,
  ConvertOutput,
  ConvertReport,
  OptionValues,
  ScratchFile,
} from '@binscope/core';
import { type CsvBytes, type CsvToScbfOptions, convertCsv } from './csv-convert.js';
import { csvError } from './csv-column.js';
import { scbfToCsvChunks } from './csv.js';
import type { ScbfType } from './layout.js';
import { openScbf, scbfPlugin } from './plugin.js';
import { writeExtended, writeRewritten } from './rewrite.js';

/** CSV bytes read per step from a file. */
const READ_CHUNK = 1 << 20;

/** The CSV's bytes in order: a file read forward through one reused buffer, or a stream as it comes. */
export function csvBytesOf(input: ConvertInput, signal?: AbortSignal): CsvBytes & { name: string } {
  if (input.kind === 'stream') return { chunks: input.chunks, name: input.name };
  if (input.kind !== 'file')
    throw csvError(`CSV is a single file, not a directory (${input.directory.name})`);
  const { source } = input;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const buffer = new Uint8Array(Math.min(READ_CHUNK, Math.max(1, source.size)));
    for (let position = 0; position < source.size; ) {
      signal?.throwIfAborted();
      const bytes = await source.read(position, buffer.byteLength, { into: buffer, signal });
      if (bytes.byteLength === 0) break;
      position += bytes.byteLength;
      yield bytes;
    }
  }
  return { chunks: chunks(), size: source.size, name: source.name.replace(/^.*[\\/]/, '') };
}

/** "id:int32,price:float64" → { id: 'int32', price: 'float64' } (types are checked by the writer). */
export function parseTypeList(spec: string): Record<string, ScbfType> {
  const out: Record<string, ScbfType> = {};
  for (const part of spec.split(',')) {
    const at = part.lastIndexOf(':');
    if (at <= 0 || at === part.length - 1)
      throw csvError(
        `types: ${JSON.stringify(part)} is not NAME:TYPE (e.g. id:int32,price:float64,name:utf8)`,
      );
    out[part.slice(0, at).trim()] = part.slice(at + 1).trim() as ScbfType;
  }
  return out;
}

function fileSink(output: ConvertOutput, to: string): ByteSink {
  if (output.kind !== 'file') throw new TypeError(`${to} is written to a file sink, not a directory`);
  return output.sink;
}

/** A scratch file as a sink: the plain file of a two-pass conversion waits there. */
function scratchSink(file: ScratchFile): ByteSink {
  return {
    get position() {
      return file.size;
    },
    async write(bytes) {
      file.append(bytes);
    },
  };
}

/** The declared options (see csvToScbfConverter) as the converter's settings. */
function csvOptions(values: OptionValues, name: string, options: ConvertOptions): CsvToScbfOptions {
  const level = values.level;
  if (
    level !== undefined &&
    (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > 9)
  )
    throw csvError(`level: ${JSON.stringify(level)} is not a zlib level 0–9`);
  const maxColumns = values.maxColumns;
  if (
    maxColumns !== undefined &&
    (typeof maxColumns !== 'number' || !Number.isSafeInteger(maxColumns) || maxColumns < 1)
  )
    throw csvError(`maxColumns: ${JSON.stringify(maxColumns)} is not a whole number of columns (1 or more)`);
  return {
    types: typeof values.types === 'string' ? parseTypeList(values.types) : undefined,
    level,
    maxColumns,
    pythonZlib: values.zlib === 'python',
    inputName: name,
    signal: options.signal,
    onProgress: options.onProgress,
  };
}

/** CSV → SCBF; with `extensions`, `nulls` or `dictionary: 'auto'`, a second pass adds the footer. */
export const convertCsvToScbf = {
  async convert(input, output, options): Promise<ConvertReport> {
    const sink = fileSink(output, 'SCBF');
    const values = options.values ?? {};
    const csv = csvBytesOf(input, options.signal);
    const settings = csvOptions(values, csv.name, options);
    const nulls = values.nulls === true;
    const dictionary = values.dictionary === 'auto';
    if (values.extensions !== true && !nulls && !dictionary) {
      const result = await convertCsv(csv, sink, options.scratch, settings);
      return { warnings: [], details: { ...result } };
    }
    const staged = options.scratch.file('plain.scbf');
    try {
      const result = await convertCsv(csv, scratchSink(staged), options.scratch, settings);
      const reader = await openScbf(staged, { signal: options.signal });
      let rewritten: { nullColumns: string[]; dictionaryColumns: string[] } | undefined;
      if (nulls || dictionary) {
        rewritten = await writeRewritten(reader, sink, {
          nulls,
          dictionary: dictionary ? 'auto' : 'off',
          // The rewritten blocks are deflated as the first pass deflated them.
          level: settings.level,
          pythonZlib: settings.pythonZlib,
        });
      } else await writeExtended(reader, sink, {}, { signal: options.signal });
      return {
        warnings: [],
        details: {
          ...result,
          scbfBytes: sink.position,
          ...(rewritten && nulls ? { nullColumns: rewritten.nullColumns } : {}),
          ...(rewritten && dictionary ? { dictionaryColumns: rewritten.dictionaryColumns } : {}),
        },
      };
    } finally {
      staged.remove();
    }
  },
} satisfies Converter;

/** SCBF → CSV in the S8 dialect; an upstream file's str_uncomp_size (S4) is reported as a warning. */
export const convertScbfToCsv: Converter = {
  async convert(input, output, options): Promise<ConvertReport> {
    const sink = fileSink(output, 'CSV');
    if (input.kind === 'stream') throw new TypeError('SCBF is read from a file, not a stream');
    const reader = await scbfPlugin.open(input, { signal: options.signal });
    try {
      const encoder = new TextEncoder();
      for await (const chunk of scbfToCsvChunks(reader, { signal: options.signal }))
        if (chunk) await sink.write(encoder.encode(chunk));
      return { warnings: [...reader.warnings], details: { bytes: sink.position } };
    } finally {
      await reader.close();
    }
  },
};
