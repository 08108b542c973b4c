import { appendAll } from './collections.js';
import type { JsonValue } from './json.js';
import { pacer } from './pace.js';
import type { AnyFormatPlugin, ContentField, FormatReader, ProgressCallback } from './plugin.js';
import { type JsonRecord, recordToJson } from './record-json.js';
import type { ByteLocation } from './schema.js';

/**
 * Comparing two opened files by content, for every format alike: what the CLI's `diff` prints
 * and the web page's compare view shows. Everything comes from the contract (contentFields,
 * records, locateRecord, layoutFields); nothing here knows a format.
 */

/** Where a difference is, in one file: a byte range, an inspect node, or a record number. */
export interface DifferenceLocation {
  file?: string;
  offset?: number;
  length?: number;
  /** The inspect-tree node holding the value ("header/num_columns"), when known. */
  node?: string;
  record?: number;
  /** The record field stored at this location, when a record is stored in several places. */
  field?: string;
}

export interface DifferenceSide {
  value: JsonValue;
  /** False when the value exists only in the other file. */
  present: boolean;
  location: DifferenceLocation | null;
}

export interface Difference {
  /** 'layout': where or how a value is stored differs (only with `layout`); the rest are content. */
  kind: 'format' | 'header' | 'structure' | 'count' | 'record' | 'layout';
  path: string;
  a: DifferenceSide;
  b: DifferenceSide;
}

/** One file to compare: its plugin and the reader that plugin opened. */
export interface ComparedFile {
  plugin: AnyFormatPlugin;
  reader: FormatReader;
}

export interface CompareOptions {
  /** Stop after this many differing records (default 5). */
  maxRecords?: number;
  /** Compare records too (default true); false compares header, structure and counts only. */
  records?: boolean;
  /** Compare the layout too: the plugins' layout fields and records' layout fields. */
  layout?: boolean;
  /** Header/structure differences listed at most (default 200). */
  maxContentDifferences?: number;
  signal?: AbortSignal;
  /** Told after each record pair compared (`done` records, unit 'items'). */
  onProgress?: ProgressCallback;
}

export interface Comparison {
  equal: boolean;
  differences: Difference[];
  /** Whether either plugin describes its layout; `layout` asked of one that does not compares no records. */
  describesLayout: boolean;
  /** Records compared before stopping (at the end, or after `maxRecords` differences). */
  recordsCompared: number;
  /** True when comparison stopped early at `maxRecords` differing records. */
  truncated: boolean;
}

type Segment = string | number;

function pathString(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

function byteLocation(loc: ByteLocation | undefined): DifferenceLocation | null {
  return loc ? { ...loc } : null;
}

function kindOf(path: string): Difference['kind'] {
  if (path === 'version' || path.startsWith('header')) return 'header';
  if (path.startsWith('counts')) return 'count';
  return 'structure';
}

/** A value's identity for comparison: JSON text, except that -0 stays apart from 0 (JSON writes both
 * as 0, but they are different stored values and `cat` prints them apart). */
function contentKey(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v) => (typeof v === 'number' && Object.is(v, -0) ? NEGATIVE_ZERO : v)) ?? ''
  );
}
const NEGATIVE_ZERO = '\u0000-0';

function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** The paths where two JSON values differ (at most `limit`); a part only one side has is one path. */
function jsonDifferences(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  prefix: Segment[],
  out: Segment[][],
  limit: number,
): void {
  if (out.length >= limit) return;
  const aObj = a !== null && typeof a === 'object';
  const bObj = b !== null && typeof b === 'object';
  if (aObj && bObj && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) {
      // A list of plain values (a shape, a row's indices) differs as one value.
      const flat = (list: JsonValue[]) => list.every((v) => v === null || typeof v !== 'object');
      if (flat(a) && flat(b)) {
        if (contentKey(a) !== contentKey(b)) out.push(prefix);
        return;
      }
      for (let i = 0; i < Math.max(a.length, b.length) && out.length < limit; i++)
        jsonDifferences(a[i], b[i], [...prefix, i], out, limit);
      return;
    }
    const ao = a as { [k: string]: JsonValue };
    const bo = b as { [k: string]: JsonValue };
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      if (out.length >= limit) return;
      jsonDifferences(ao[k], bo[k], [...prefix, k], out, limit);
    }
    return;
  }
  if (contentKey(a) !== contentKey(b)) out.push(prefix);
}

function valueAt(value: JsonValue | undefined, segments: readonly Segment[]): JsonValue | undefined {
  let v: JsonValue | undefined = value;
  for (const s of segments) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, JsonValue>)[s as string];
  }
  return v;
}

/**
 * Header, structure and count differences, each located in both files where possible; with
 * `layout`, the plugin's layout fields (offsets, sizes, compression) too.
 */
async function compareFields(
  a: ComparedFile,
  b: ComparedFile,
  limit: number,
  layout: boolean,
  signal: AbortSignal | undefined,
): Promise<{ differences: Difference[]; describesLayout: boolean }> {
  const differences: Difference[] = [];
  const options = signal ? { signal } : undefined;
  const [fa, fb] = await Promise.all([
    a.plugin.contentFields(a.reader, options),
    b.plugin.contentFields(b.reader, options),
  ]);
  const mapA = new Map<string, ContentField>(fa.map((f) => [f.path, f]));
  const mapB = new Map<string, ContentField>(fb.map((f) => [f.path, f]));
  for (const path of new Set([...mapA.keys(), ...mapB.keys()])) {
    const x = mapA.get(path);
    const y = mapB.get(path);
    const isLayout = Boolean(x?.layout || y?.layout);
    if (isLayout && !layout) continue;
    if (x && y && contentKey(x.value) === contentKey(y.value)) continue;
    differences.push({
      kind: isLayout ? 'layout' : kindOf(path),
      path,
      a: { value: x?.value ?? null, present: Boolean(x), location: byteLocation(x?.location) },
      b: { value: y?.value ?? null, present: Boolean(y), location: byteLocation(y?.location) },
    });
    if (differences.length >= limit) break;
  }
  return { differences, describesLayout: fa.some((f) => f.layout) || fb.some((f) => f.layout) };
}

/** A record's content and its layout fields (the plugin's layoutFields), as two records. */
function splitLayout(record: JsonRecord, layoutKeys: ReadonlySet<string>): [JsonRecord, JsonRecord] {
  if (layoutKeys.size === 0) return [record, {}];
  const content: JsonRecord = {};
  const layout: JsonRecord = {};
  for (const [k, v] of Object.entries(record)) (layoutKeys.has(k) ? layout : content)[k] = v;
  return [content, layout];
}

/**
 * Where record `index` is stored, for one differing field: the location of that field when
 * the record is stored in several places (one block per column), else the record's own.
 */
function recordLocation(
  index: number,
  locations: readonly ByteLocation[],
  field?: Segment,
): DifferenceLocation {
  const pick =
    (typeof field === 'string' && locations.find((l) => l.field === field)) ||
    locations.find((l) => l.field === undefined) ||
    locations[0];
  return pick ? { record: index, ...pick } : { record: index };
}

/** The records of one file as they print: through recordToJson, by the reader's schema. */
async function* recordsAsJson(
  side: ComparedFile,
  signal: AbortSignal | undefined,
): AsyncGenerator<JsonRecord> {
  for await (const record of side.plugin.records(side.reader, signal ? { signal } : undefined))
    yield await recordToJson(side.reader.schema, record);
}

interface RecordRun {
  maxRecords: number;
  layout: boolean;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}

/** The differences between the records of two files of one format, in order, into `differences`. */
async function compareRecords(
  a: ComparedFile,
  b: ComparedFile,
  run: RecordRun,
  differences: Difference[],
): Promise<{ compared: number; truncated: boolean }> {
  const layoutKeys = new Set(a.plugin.layoutFields ?? []);
  const locate = (side: ComparedFile, index: number) =>
    side.plugin.locateRecord(side.reader, index, run.signal ? { signal: run.signal } : undefined);
  const itA = recordsAsJson(a, run.signal);
  const itB = recordsAsJson(b, run.signal);
  // Records from memory never leave the microtask queue: give a cancel its turn now and then.
  const step = pacer(run.signal);
  let index = 0;
  let differing = 0;
  try {
    for (;;) {
      await step();
      const [ra, rb] = await Promise.all([itA.next(), itB.next()]);
      if (ra.done && rb.done) return { compared: index, truncated: false };
      if (ra.done || rb.done) {
        const onlyA = !ra.done;
        differences.push({
          kind: 'record',
          path: `records[${index}]`,
          a: {
            value: onlyA ? (ra.value as JsonRecord) : null,
            present: onlyA,
            location: onlyA ? recordLocation(index, await locate(a, index)) : null,
          },
          b: {
            value: onlyA ? null : (rb.value as JsonRecord),
            present: !onlyA,
            location: onlyA ? null : recordLocation(index, await locate(b, index)),
          },
        });
        return { compared: index, truncated: false };
      }
      const va = ra.value;
      const vb = rb.value;
      const [ca, pa] = splitLayout(va, layoutKeys);
      const [cb, pb] = splitLayout(vb, layoutKeys);
      const contentDiffers = contentKey(ca) !== contentKey(cb);
      if (contentDiffers || (run.layout && contentKey(pa) !== contentKey(pb))) {
        const found: { kind: 'record' | 'layout'; path: Segment[] }[] = [];
        if (contentDiffers) {
          const paths: Segment[][] = [];
          // Records of different shape differ as wholes; records of one shape, field by field.
          const sameShape = sameKeys(ca, cb);
          if (sameShape) jsonDifferences(ca, cb, [], paths, 20);
          else paths.push([]);
          for (const path of paths) found.push({ kind: 'record', path });
        }
        if (run.layout) {
          const paths: Segment[][] = [];
          jsonDifferences(pa, pb, [], paths, 20);
          for (const path of paths) found.push({ kind: 'layout', path });
        }
        const [la, lb] = await Promise.all([locate(a, index), locate(b, index)]);
        for (const { kind, path: p } of found) {
          // A whole-record difference shows the content part: the layout part is compared apart.
          const av = p.length === 0 ? ca : valueAt(va, p);
          const bv = p.length === 0 ? cb : valueAt(vb, p);
          differences.push({
            kind,
            path: pathString([`records[${index}]`, ...p]),
            a: { value: av ?? null, present: av !== undefined, location: recordLocation(index, la, p[0]) },
            b: { value: bv ?? null, present: bv !== undefined, location: recordLocation(index, lb, p[0]) },
          });
        }
        differing++;
        if (differing >= run.maxRecords) return { compared: index + 1, truncated: true };
      }
      index++;
      run.onProgress?.({ phase: 'records', done: index, unit: 'items' });
    }
  } finally {
    await Promise.all([itA.return(undefined), itB.return(undefined)]);
  }
}

/**
 * Compares two opened files by content, not bytes: header fields, structure and counts from
 * the plugins (`contentFields`), then records in order until the first `maxRecords`
 * differing ones. Encoding details are not content: with `layout`, the plugins' layout fields
 * and records' layout fields (where and how values are stored) are compared too. Files of two
 * formats differ in one difference of kind 'format' and are compared no further. Each
 * difference names its location in both files (byte range, record number, the field stored
 * there), as the plugins give it. Reads lazily through the readers; a reader's error is thrown.
 */
export async function compareContent(
  a: ComparedFile,
  b: ComparedFile,
  options: CompareOptions = {},
): Promise<Comparison> {
  const differences: Difference[] = [];
  const result: Comparison = {
    equal: true,
    differences,
    describesLayout: false,
    recordsCompared: 0,
    truncated: false,
  };
  if (a.plugin.id !== b.plugin.id) {
    differences.push({
      kind: 'format',
      path: 'format',
      a: { value: a.plugin.id, present: true, location: null },
      b: { value: b.plugin.id, present: true, location: null },
    });
    result.equal = false;
    return result;
  }
  const layout = Boolean(options.layout);
  const fields = await compareFields(a, b, options.maxContentDifferences ?? 200, layout, options.signal);
  appendAll(differences, fields.differences);
  result.describesLayout = fields.describesLayout || (a.plugin.layoutFields ?? []).length > 0;
  // Layout asked of a format that describes none: comparing records would claim what was not compared.
  if (options.records !== false && (!layout || result.describesLayout)) {
    const run = {
      maxRecords: options.maxRecords ?? 5,
      layout,
      signal: options.signal,
      onProgress: options.onProgress,
    };
    const { compared, truncated } = await compareRecords(a, b, run, differences);
    result.recordsCompared = compared;
    result.truncated = truncated;
  }
  result.equal = differences.length === 0;
  return result;
}
