import type { RecordOptions } from '@binscope/core';
import type { TableStatsView, WorkProgress } from '../protocol';
import { FieldStats } from './field-stats';
import { type Reading, reading } from './records';
import type { Session } from './session';
import { serializeError } from './session';

/** Past either, the first answer is an estimate from a sample; "Exact" then reads every record. */
export const LARGE_RECORDS = 200_000;
export const LARGE_BYTES = 64 * 1024 * 1024;
/** An estimate reads CHUNKS runs of CHUNK consecutive records, spread evenly over the table. */
const CHUNKS = 100;
const CHUNK = 200;
/** How often partial statistics go to the page (and the worker lets a cancel in). */
const REPORT_MS = 200;

interface Pass {
  r: Reading;
  columns: string[];
  stats: FieldStats[];
  records: number;
  total?: number;
  sampled: boolean;
  stopped?: TableStatsView['stopped'];
}

const viewOf = (p: Pass, done: boolean): TableStatsView => ({
  table: p.r.table,
  records: p.records,
  ...(p.total === undefined ? {} : { total: p.total }),
  sampled: p.sampled,
  ...(p.total === undefined ? {} : { planned: p.sampled ? Math.min(p.total, CHUNKS * CHUNK) : p.total }),
  done,
  fields: p.stats.map((s) => s.view()),
  ...(p.stopped ? { stopped: p.stopped } : {}),
});

function options(p: Pass, offset?: number, limit?: number): RecordOptions {
  const o: RecordOptions = { columns: p.columns, signal: p.r.signal };
  if (p.r.table) o.table = p.r.table;
  if (offset !== undefined) o.offset = offset;
  if (limit !== undefined) o.limit = limit;
  return o;
}

/** Whether the table has a record at `offset` (a record that cannot be read still exists). */
async function has(p: Pass, offset: number): Promise<boolean> {
  try {
    for await (const _ of p.r.plugin.records(p.r.reader, options(p, offset, 1))) return true;
    return false;
  } catch (error) {
    if (p.r.signal.aborted) throw error;
    return true;
  }
}

/**
 * How many records, when there are at least `from`: found by probing single records (doubling,
 * then halving), which readers answer by seeking, not by reading what lies before.
 */
async function countFrom(p: Pass, from: number): Promise<number | undefined> {
  if (!(await has(p, from))) return undefined;
  let low = from;
  let high = from * 2;
  while (high < 2 ** 50 && (await has(p, high))) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await has(p, mid)) low = mid;
    else high = mid;
  }
  return low + 1;
}

/** Feeds the records of one read to the statistics, reporting as it goes. */
async function feed(p: Pass, o: RecordOptions, report: () => Promise<void>): Promise<void> {
  let last = Date.now();
  for await (const record of p.r.plugin.records(p.r.reader, o)) {
    for (const s of p.stats) s.add(record.values[s.field.name], record.values);
    p.records++;
    if (Date.now() - last >= REPORT_MS) {
      await report();
      last = Date.now();
    }
  }
}

/**
 * Statistics of every numeric and text field of a table (see field-stats.ts), streamed as
 * progress. Bytes, images, JSON and structs are not read at all. A large table (by record
 * count or file size) is first estimated from records spread evenly over it, unless `exact`.
 * A record that cannot be read ends the pass: what was read before it is the answer.
 */
export async function tableStats(
  session: Session,
  request: { table: string; exact: boolean; total?: number },
  signal: AbortSignal,
  progress: (event: WorkProgress) => void,
): Promise<TableStatsView> {
  const r = await reading(session, request.table, signal);
  const stats = r.schema.fields.map((f) => new FieldStats(f)).filter((s) => s.kind !== 'other');
  const counted = r.table ? r.reader.tables?.find((t) => t.name === r.table)?.count : request.total;
  // A field's `indices` field is read with it, even when it has no statistics of its own.
  const known = new Set(r.schema.fields.map((f) => f.name));
  const extra = (s: FieldStats) =>
    s.totals?.indices && known.has(s.totals.indices) ? [s.totals.indices] : [];
  const names = new Set(stats.flatMap((s) => [s.field.name, ...extra(s)]));
  const p: Pass = {
    r,
    columns: [...names],
    stats,
    records: 0,
    total: counted,
    sampled: false,
  };
  if (stats.length === 0) return viewOf(p, true);
  const report = async () => {
    progress({ phase: 'statistics', done: p.records, total: p.total, partial: viewOf(p, false) });
    // Let a cancel message in even when the reader's blocks arrive without a macrotask.
    await new Promise((resolve) => setTimeout(resolve, 0));
    signal.throwIfAborted();
  };
  if (!request.exact) {
    // Many bytes: count the records unless there are too few to sample. Few bytes: only
    // more than LARGE_RECORDS records make it large (one probe tells).
    const bulky = session.stats().size > LARGE_BYTES;
    p.total ??= await countFrom(p, bulky ? CHUNKS * CHUNK : LARGE_RECORDS);
    p.sampled = p.total !== undefined && p.total > CHUNKS * CHUNK && (bulky || p.total > LARGE_RECORDS);
  }
  const total = p.total ?? 0;
  try {
    if (!p.sampled) await feed(p, options(p), report);
    else
      for (let c = 0; c < CHUNKS; c++)
        await feed(p, options(p, Math.floor((c * total) / CHUNKS), CHUNK), report);
  } catch (error) {
    if (signal.aborted) throw error;
    p.stopped = serializeError(error);
  }
  if (!p.sampled && !p.stopped) p.total = p.records;
  return viewOf(p, true);
}
