import {
  type ConvertOptions,
  type ConvertOutput,
  type ConvertReport,
  type Converter,
  FormatError,
  type ImageValue,
  type RecordsInput,
  type TabularOptions,
  withLocation,
  chooseRecords,
  problemError,
} from '@binscope/core';
import { encode } from 'fast-png';
import { BatchBuilder, DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS } from './batches.js';
import { SinkWriter } from './ipc-writer.js';
import { exportSchema } from './schema-out.js';

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
  const chosen = await chooseRecords(input, options.values, { signal: options.signal });
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
  const runs = await input.columns?.({ table: chosen.table, signal: options.signal });
  if (runs) {
    for await (const run of runs) {
      for (let at = 0; at < run.rows; ) {
        const added = batch.appendRun(run, at);
        at += added;
        rows += added;
        if (batch.full) await flush();
      }
    }
  } else {
    for await (const record of input.records({ table: chosen.table, signal: options.signal })) {
      if (record.problem) throw problemError(record.problem, input);
      batch.append(record.values, record.index);
      rows++;
      if (batch.full) await flush();
    }
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
