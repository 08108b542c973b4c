/**
 * Records of any format → SCBF (the `records-to-scbf` conversion `/magic` declares). The
 * records are read once (twice with `--cast` when a wide integer column's type must be
 * surveyed first), each column spilled to scratch as it grows (spill.ts, as CSV → SCBF
 * does), and the file assembled once every column's blocks are known: memory holds one
 * record, the column buffers and, with `--nulls`, one bit per row of each column that has
 * nulls. Browser-safe. Type mapping and refusals: records-plan.ts.
 */
import {
  type ByteSink,
  type ConvertOptions,
  type ConvertReport,
  type Converter,
  FormatError,
  type OptionValues,
  pacer,
  type RecordsInput,
  type Scratch,
  type Value,
  chooseRecords,
  problemError,
  type RecordsChoice,
} from '@binscope/core';
import { nextTask, ownFiles, settleColumns, writeColumns } from './columns-out.js';
import { ColumnWriter } from './csv-column.js';
import type { ScbfType } from './layout.js';
import { openScbf } from './plugin.js';
import { type ColumnPlan, nullRefused, planColumn, type RecordsPlace, WideSurvey } from './records-plan.js';
import { writeExtended } from './rewrite.js';
import { checkName } from './write.js';
import { makeSpillSpace } from './spill.js';

/** Records between turns of the event loop (the deflaters hand work back only then). */
const BATCH = 4096;

interface Settings {
  nulls: boolean;
  cast: boolean;
  level?: number;
}

function settingsOf(values: OptionValues): Settings {
  const level = values.level;
  if (
    level !== undefined &&
    (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > 9)
  )
    throw new RangeError(`level: ${JSON.stringify(level)} is not a zlib level 0–9`);
  return { nulls: values.nulls === true, cast: values.cast === true, level };
}

/** The SCBF type of each column: planned, or for a wide integer column (`--cast`) surveyed from its values. */
async function columnTypes(
  input: RecordsInput,
  chosen: RecordsChoice,
  plans: readonly ColumnPlan[],
  place: RecordsPlace,
  signal?: AbortSignal,
): Promise<ScbfType[]> {
  const surveys = plans.flatMap((p, c) =>
    p.type === 'wide' ? [{ c, survey: new WideSurvey(p.field, place) }] : [],
  );
  if (surveys.length > 0) {
    const pace = pacer(signal);
    const columns = surveys.map((s) => s.survey.field.name);
    for await (const record of input.records({ table: chosen.table, columns, signal })) {
      if (record.problem) throw problemError(record.problem, input);
      for (const { survey } of surveys) survey.see(record.values[survey.field.name], record.index);
      if (record.index % BATCH === 0) await pace();
    }
  }
  const types = plans.map((p) => p.type);
  for (const { c, survey } of surveys) types[c] = survey.type;
  return types as ScbfType[];
}

/** Null bits by column, grown as rows come (SCBF's bitmap record: bit r of byte r >> 3, LSB first). */
class NullBitmaps {
  readonly map = new Map<number, Uint8Array>();
  set(column: number, row: number): void {
    let bitmap = this.map.get(column);
    const byte = row >> 3;
    if (!bitmap || byte >= bitmap.byteLength) {
      const bigger = new Uint8Array(Math.max(byte + 1, (bitmap?.byteLength ?? 0) * 2, 64));
      if (bitmap) bigger.set(bitmap);
      bitmap = bigger;
      this.map.set(column, bitmap);
    }
    bitmap[byte] |= 1 << (row & 7);
  }
  /** Each bitmap exactly as long as `rows` rows need. */
  sized(rows: number): Map<number, Uint8Array> {
    const length = Math.ceil(rows / 8);
    const out = new Map<number, Uint8Array>();
    for (const [column, bitmap] of this.map) {
      const exact = new Uint8Array(length);
      exact.set(bitmap.subarray(0, length));
      out.set(column, exact);
    }
    return out;
  }
}

/** One pass over the records into spilled columns, then the plain SCBF file into `sink`. */
async function writeRecords(
  input: RecordsInput,
  chosen: RecordsChoice,
  plans: readonly ColumnPlan[],
  types: readonly ScbfType[],
  sink: ByteSink,
  scratch: Scratch,
  settings: Settings,
  place: RecordsPlace,
  options: ConvertOptions,
) {
  const own = ownFiles(scratch);
  const space = makeSpillSpace(own, plans.length, { level: settings.level });
  const writers = plans.map((p, c) => new ColumnWriter(p.field.name, c, types[c], space));
  const names = plans.map((p) => p.field.name);
  const nulls = new NullBitmaps();
  const pace = pacer(options.signal);
  const { onProgress } = options;
  let rows = 0;
  try {
    for await (const record of input.records({ table: chosen.table, signal: options.signal })) {
      if (record.problem) throw problemError(record.problem, input);
      for (let c = 0; c < writers.length; c++) {
        const value = record.values[names[c]];
        if ((value === null && !plans[c].nullIsValue) || value === undefined) {
          if (!settings.nulls || types[c] === 'utf8')
            throw nullRefused(plans[c], types[c], record.index, settings.nulls, place);
          nulls.set(c, rows);
          writers[c].put(0);
        } else writers[c].put(plans[c].cell(value as Value, record.index));
      }
      if (++rows % BATCH === 0) {
        await nextTask();
        await settleColumns(writers, pace);
        onProgress?.({ phase: 'convert', done: rows, total: chosen.count, unit: 'items' });
      }
    }
    const written = await writeColumns(writers, rows, sink, pace, onProgress);
    return { rows, ...written, nulls: nulls.sized(rows) };
  } catch (error) {
    for (const writer of writers) writer.abort();
    throw error;
  } finally {
    space.close();
    own.close();
  }
}

/** A scratch file as a sink: the plain file waits there for its extension footer. */
function scratchSink(scratch: Scratch) {
  const file = scratch.file('plain.scbf');
  const sink: ByteSink = {
    get position() {
      return file.size;
    },
    async write(bytes) {
      file.append(bytes);
    },
  };
  return { file, sink };
}

/** Records → SCBF; with `--nulls` the plain file is staged in scratch, then given its footer. */
export const convertRecordsToScbf = {
  async convertRecords(input, output, options): Promise<ConvertReport> {
    if (output.kind !== 'file') throw new TypeError('SCBF is written to a file sink, not a directory');
    const settings = settingsOf(options.values ?? {});
    const place: RecordsPlace = { file: input.name, format: input.format };
    const chosen = await chooseRecords(input, options.values, { signal: options.signal });
    const plans = chosen.schema.fields.map((field) => planColumn(field, settings.cast, place));
    if (plans.length === 0)
      throw new FormatError('UnsupportedFeature', 'the records have no fields: SCBF needs a column', place);
    const seen = new Set<string>();
    for (const { field } of plans) {
      // Checked before any record is read, not when the head is finally written.
      checkName(field.name);
      if (seen.has(field.name))
        throw new FormatError('UnsupportedFeature', `two fields are named "${field.name}"`, place);
      seen.add(field.name);
    }
    const types = await columnTypes(input, chosen, plans, place, options.signal);
    const run = (sink: ByteSink) =>
      writeRecords(input, chosen, plans, types, sink, options.scratch, settings, place, options);
    let result: Awaited<ReturnType<typeof run>>;
    if (!settings.nulls) result = await run(output.sink);
    else {
      const staged = scratchSink(options.scratch);
      try {
        result = await run(staged.sink);
        const reader = await openScbf(staged.file, { signal: options.signal });
        await writeExtended(reader, output.sink, { nulls: result.nulls }, { signal: options.signal });
      } finally {
        staged.file.remove();
      }
    }
    return {
      warnings: [],
      details: {
        conversion: 'records→scbf',
        ...(chosen.table !== undefined ? { table: chosen.table } : {}),
        rows: result.rows,
        columns: result.columns,
        ...(settings.nulls ? { nullColumns: [...result.nulls.keys()].map((c) => plans[c].field.name) } : {}),
        scbfBytes: output.sink.position,
      },
    };
  },
} satisfies Converter;
