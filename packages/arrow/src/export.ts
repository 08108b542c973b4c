import {
  type ConvertOptions,
  type ConvertOutput,
  type ConvertReport,
  type Converter,
  ERROR_CODES,
  type ErrorCode,
  FormatError,
  type ImageValue,
  type Problem,
  type RecordsInput,
  type Schema,
  type TabularOptions,
  withLocation,
} from '@binscope/core';
import { encode } from 'fast-png';
import { BatchBuilder, DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS } from './batches.js';
import { SinkWriter } from './ipc-writer.js';
import { exportSchema } from './schema-out.js';

/** The records an export writes: a named table or the main records. */
interface Chosen {
  /** undefined: the main records. */
  readonly table: string | undefined;
  readonly schema: Schema;
  readonly count?: number;
}

/**
 * `--table NAME`, else (unless `--index-only`) the table marked primary (TARIDX samples: the
 * data, where the main records are only its index), else the main records.
 */
export async function chooseTable(input: RecordsInput, options: ConvertOptions): Promise<Chosen> {
  const values = options.values ?? {};
  const wanted = typeof values.table === 'string' ? values.table : undefined;
  if (wanted !== undefined && values.indexOnly === true)
    throw new FormatError('InvalidValue', '--table and --index-only exclude each other', {
      file: input.name,
    });
  if (values.indexOnly === true) return { table: undefined, schema: input.schema };
  const seen: string[] = [];
  for await (const t of input.tables({ signal: options.signal })) {
    if (wanted === undefined ? t.primary === true : t.name === wanted)
      return { table: t.name, schema: t.schema, count: t.count };
    if (seen.length < 20) seen.push(JSON.stringify(t.name));
  }
  if (wanted === undefined) return { table: undefined, schema: input.schema };
  const list = seen.length ? `its tables: ${seen.join(', ')}` : 'it has no tables besides its main records';
  throw new FormatError(
    'InvalidValue',
    `${input.format.toUpperCase()} input has no table "${wanted}"; ${list}`,
    {
      file: input.name,
      format: input.format,
    },
  );
}

/** An image as PNG bytes (`--images png`), through fast-png: 8-bit, 1 to 4 channels. */
export function encodePng(image: ImageValue): Uint8Array {
  if (image.channels < 1 || image.channels > 4)
    throw new FormatError(
      'UnsupportedFeature',
      `PNG holds 1 to 4 channels; an image of ${image.channels} channels stays a struct (leave out --images png)`,
    );
  return encode({
    width: image.width,
    height: image.height,
    channels: image.channels,
    depth: 8,
    data: image.pixels,
  });
}

/** A record that stands for one the reader could not read is refused with its own error. */
function refuse(problem: Problem, index: number, input: RecordsInput): FormatError {
  const code: ErrorCode = (ERROR_CODES as readonly string[]).includes(problem.code)
    ? (problem.code as ErrorCode)
    : 'InvalidValue';
  return new FormatError(code, `record ${index} cannot be exported: ${problem.message}`, {
    offset: problem.offset,
    file: problem.file ?? input.name,
    format: problem.format ?? input.format,
  });
}

function limits(options: ConvertOptions): { rows: number; bytes: number } {
  const rows = options.values?.batchRows;
  if (rows === undefined) return { rows: DEFAULT_BATCH_ROWS, bytes: DEFAULT_BATCH_BYTES };
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 1)
    throw new FormatError('InvalidValue', `--batch-rows takes a whole number of rows from 1, got ${rows}`);
  return { rows, bytes: DEFAULT_BATCH_BYTES };
}

/** Records → an Arrow IPC file or stream, one bounded record batch at a time. */
async function exportRecords(
  kind: 'file' | 'stream',
  input: RecordsInput,
  output: ConvertOutput,
  options: ConvertOptions,
): Promise<ConvertReport> {
  try {
    return await writeRecords(kind, input, output, options);
  } catch (error) {
    // Errors raised below the input's reader (a value the mapping refuses) name the input.
    throw withLocation(error, { file: input.name, format: input.format });
  }
}

async function writeRecords(
  kind: 'file' | 'stream',
  input: RecordsInput,
  output: ConvertOutput,
  options: ConvertOptions,
): Promise<ConvertReport> {
  if (output.kind !== 'file')
    throw new FormatError('UnsupportedFeature', 'an Arrow export writes one file, not a folder');
  const bounds = limits(options);
  const chosen = await chooseTable(input, options);
  const tabular: TabularOptions = options.values?.images === 'png' ? { encodeImage: encodePng } : {};
  const schema = exportSchema(chosen.schema, tabular);
  const batch = new BatchBuilder(chosen.schema.fields, schema, tabular, bounds);
  const writer = new SinkWriter(kind, schema.arrow, output.sink);
  let rows = 0;
  let batches = 0;
  const phase = 'writing record batches';
  const flush = async () => {
    await writer.write(batch.flush());
    batches++;
    options.onProgress?.({ phase, done: rows, total: chosen.count, unit: 'items' });
  };
  for await (const record of input.records({ table: chosen.table, signal: options.signal })) {
    if (record.problem) throw refuse(record.problem, record.index, input);
    batch.append(record.values, record.index);
    rows++;
    if (batch.full) await flush();
  }
  if (batch.rows > 0) await flush();
  await writer.close();
  return {
    warnings: [],
    details: {
      table: chosen.table ?? null,
      rows,
      columns: schema.fields.length,
      batches,
      bytes: writer.written,
    },
  };
}

export const arrowFileConverter: Converter = {
  convertRecords: (input, output, options) => exportRecords('file', input, output, options),
};

export const arrowStreamConverter: Converter = {
  convertRecords: (input, output, options) => exportRecords('stream', input, output, options),
};
