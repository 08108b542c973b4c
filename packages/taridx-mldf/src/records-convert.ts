/**
 * Records of any format → one MLDF file (the `records-to-mldf` conversion `/magic` declares):
 * a Hugging Face-style table (image bytes, label, text) becomes a training set. Records are
 * read once, one at a time; values go to the app's scratch (ScratchSpill) as they come and
 * only the metadata rows stay in memory, as for TARIDX → MLDF. Browser-safe. Field mapping
 * and refusals: records-fields.ts.
 */
import {
  type Converter,
  type ConvertReport,
  type ErrorCode,
  FormatError,
  type JsonValue,
  pacer,
  type RecordsInput,
  type Value,
  chooseRecords,
  problemError,
} from '@binscope/core';
import { MldfWriter } from '@binscope/mldf';
import { ScratchSpill } from './converter.js';
import {
  describe,
  type FieldMap,
  type ImageChoice,
  planRecordField,
  type RecordsPlace,
} from './records-fields.js';

/** Records between turns of the event loop (an abort, SIGTERM) and progress reports. */
const BATCH = 256;

function imageChoice(value: unknown): ImageChoice {
  if (value === undefined || value === 'raw') return 'raw';
  if (value === 'bytes') return 'bytes';
  throw new RangeError(`--images ${JSON.stringify(value)}: raw (decode to IMAGE_RAW) or bytes`);
}

/** A record as the writer's sample: each value mapped, a null refused (naming column and row). */
async function sampleOf(
  values: { readonly [field: string]: Value | undefined },
  maps: readonly FieldMap[],
  row: number,
  place: RecordsPlace,
): Promise<Record<string, unknown>> {
  const sample: Record<string, unknown> = {};
  for (const map of maps) {
    const value = values[map.field.name];
    if ((value === null && !map.nullIsValue) || value === undefined)
      throw new FormatError(
        'InvalidValue',
        `${describe(map.field)} row ${row} is null: MLDF has no null for it (a missing value would read back as empty or 0)`,
        place,
      );
    sample[map.spec.name] = await map.value(value, row);
  }
  return sample;
}

/** The writer's own refusal of a value (a TypeError or RangeError) as a typed error of the input. */
function writerError(error: unknown, code: ErrorCode, place: RecordsPlace, where = 'the fields'): unknown {
  if (error instanceof TypeError || error instanceof RangeError)
    return new FormatError(code, `MLDF cannot hold ${where}: ${error.message}`, place, { cause: error });
  return error;
}

/** Records → MLDF into the app's sink; values wait in its scratch until the metadata rows are written. */
export const convertRecordsToMldf = {
  async convertRecords(input: RecordsInput, output, options): Promise<ConvertReport> {
    if (output.kind !== 'file')
      throw new TypeError('an MLDF file is written to a file sink, not a directory');
    const values = options.values ?? {};
    const { signal, onProgress } = options;
    const images = imageChoice(values.images);
    const place: RecordsPlace = { file: input.name, format: input.format };
    const chosen = await chooseRecords(input, values, { signal });
    let first: DataRecordValues | undefined;
    for await (const record of input.records({ table: chosen.table, limit: 1, signal }))
      first = record.values;
    const maps = chosen.schema.fields.map((f) => planRecordField(f, first?.[f.name], images, place));
    const spill = new ScratchSpill(options.scratch);
    let writer: MldfWriter;
    try {
      writer = new MldfWriter(
        maps.map((m) => m.spec),
        { checksum: values.checksum === true },
        spill,
      );
    } catch (error) {
      spill.dispose();
      throw writerError(error, 'UnsupportedFeature', place);
    }
    try {
      const pace = pacer(signal);
      let rows = 0;
      for await (const record of input.records({ table: chosen.table, signal })) {
        if (record.problem) throw problemError(record.problem, input);
        const sample = await sampleOf(record.values, maps, record.index, place);
        try {
          writer.add(sample);
        } catch (error) {
          throw writerError(error, 'InvalidValue', place, `row ${record.index}`);
        }
        if (++rows % BATCH === 0) {
          await pace();
          onProgress?.({ phase: 'converting', done: rows, total: chosen.count, unit: 'items' });
        }
      }
      await writer.finish(output.sink);
    } catch (error) {
      writer.dispose();
      throw error;
    } finally {
      spill.dispose();
    }
    return {
      warnings: [],
      details: {
        conversion: 'records→mldf',
        ...(chosen.table !== undefined ? { table: chosen.table } : {}),
        samples: writer.samples,
        fields: maps.map(
          ({ spec: { name, type, dtype, shape } }): JsonValue =>
            dtype ? { name, type, dtype, shape: [...(shape ?? [])] } : { name, type },
        ),
        mldfBytes: output.sink.position,
        checksum: values.checksum === true,
      },
    };
  },
} satisfies Converter;

type DataRecordValues = { readonly [field: string]: Value | undefined };
