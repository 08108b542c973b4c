import type {
  AnyFormatPlugin,
  ByteLocation,
  ContentField,
  FormatReader,
  InspectNode,
  JsonRecord,
  JsonValue,
  Summary,
} from '@binscope/core';
import type { CommonOptions, Context } from '../context.js';
import { CliError, describeError, EXIT, type ExitCode } from '../errors.js';
import { type Input, openInput, unreadable } from '../open.js';
import { printJson } from '../render.js';

export interface DiffOptions extends CommonOptions {
  as?: string;
  /** Stop after this many differing records. */
  maxRecords: number;
  /** Compare only header, structure and counts. */
  records: boolean;
}

/** Where a difference is, in one file: a byte range, an inspect node, or a record number. */
export interface DiffLocation {
  file?: string;
  offset?: number;
  length?: number;
  /** The inspect-tree node holding the value ("header/num_columns"), when known. */
  node?: string;
  record?: number;
  /** The record field stored at this location, when a record is stored in several places. */
  field?: string;
}

export interface DiffSide {
  value: JsonValue;
  /** False when the value exists only in the other file. */
  present: boolean;
  location: DiffLocation | null;
}

export interface Difference {
  kind: 'format' | 'header' | 'structure' | 'count' | 'record';
  path: string;
  a: DiffSide;
  b: DiffSide;
}

export interface DiffReport {
  equal: boolean;
  a: { path: string; format: string | null };
  b: { path: string; format: string | null };
  differences: Difference[];
  /** Records compared before stopping (at the end, or after --max-records differences). */
  recordsCompared: number;
  /** True when comparison stopped early at --max-records differing records. */
  truncated: boolean;
}

type Segment = string | number;

/** Header/structure differences listed at most (records have --max-records). */
const MAX_CONTENT_DIFFERENCES = 200;

/**
 * Keys that describe how content is stored, not what it is: two files written with
 * different zlib settings or padding differ only there, and are equal in content.
 */
const LAYOUT_KEY =
  /^(?:.*_)?(?:offsets?|ptrs?|pointers?|positions?|compressed(?:_?size|_?bytes|_?length)?|comp_?(?:size|len|length)|checksums?|crc(?:32)?|adler(?:32)?|padding|file_?size|size_?on_?disk|bytes_?on_?disk)$/i;

function isLayoutKey(key: string): boolean {
  return LAYOUT_KEY.test(key.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/[\s-]+/g, '_'));
}

function pathString(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

/** A copy of a JSON value without layout keys (see LAYOUT_KEY). */
function withoutLayout(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutLayout);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) if (!isLayoutKey(k)) out[k] = withoutLayout(v);
    return out;
  }
  return value;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const MAX_NODES = 20_000;

/** Eager nodes below `from`, breadth first, with their paths (bounded). */
function* descendants(
  from: InspectNode,
  maxDepth = 4,
): Generator<{ node: InspectNode; names: string[]; file?: string }> {
  let level = (from.children ?? []).map((node) => ({
    node,
    names: [node.name],
    file: node.file ?? from.file,
  }));
  let seen = 0;
  for (let depth = 0; depth < maxDepth && level.length > 0; depth++) {
    const next: typeof level = [];
    for (const item of level) {
      if (++seen > MAX_NODES) return;
      yield item;
      for (const c of item.node.children ?? [])
        next.push({ node: c, names: [...item.names, c.name], file: c.file ?? item.file });
    }
    level = next;
  }
}

interface Located {
  node: InspectNode;
  names: string[];
  file?: string;
}

/** Names a header field holding the count `key` goes by: rows, num_rows, n_rows, total_rows, rows_count. */
function countNames(key: string): string[] {
  const k = normalize(key);
  return [k, `num${k}`, `n${k}`, `total${k}`, `${k}count`, `numberof${k}`];
}

function scalarEquals(node: InspectNode, value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || typeof value === 'object' || node.value === undefined)
    return false;
  return String(node.value) === String(value);
}

/**
 * Where a summary value lives in the inspect tree, or undefined: follow the path's keys to
 * nodes of the same name and its list positions to those nodes' children; failing that, the
 * one node named like the last key that shows the same value. Never a guess: an unmatched
 * path has no location.
 */
function locateInTree(
  root: InspectNode | undefined,
  segments: readonly Segment[],
  value: JsonValue | undefined,
  isCount: boolean,
): Located | undefined {
  if (!root) return undefined;
  const lastKey = [...segments].reverse().find((s): s is string => typeof s === 'string');
  const walk = (): Located | undefined => {
    let current: Located = { node: root, names: [], file: root.file };
    let keyMatched = false;
    for (const seg of segments) {
      if (typeof seg === 'number') {
        const child = keyMatched ? current.node.children?.[seg] : undefined;
        if (!child) return undefined;
        current = { node: child, names: [...current.names, child.name], file: child.file ?? current.file };
        continue;
      }
      const wanted = isCount ? countNames(seg) : [normalize(seg)];
      let found: Located | undefined;
      for (const d of descendants(current.node)) {
        if (wanted.includes(normalize(d.node.name))) {
          found = { node: d.node, names: [...current.names, ...d.names], file: d.file ?? current.file };
          break;
        }
      }
      if (!found) return undefined;
      current = found;
      keyMatched = true;
    }
    return current.node === root ? undefined : current;
  };
  const walked = walk();
  if (walked || !lastKey) return walked;
  const wanted = isCount ? countNames(lastKey) : [normalize(lastKey)];
  const hits: Located[] = [];
  for (const d of descendants(root, 8)) {
    if (wanted.includes(normalize(d.node.name)) && scalarEquals(d.node, value))
      hits.push({ node: d.node, names: d.names, file: d.file ?? root.file });
    if (hits.length > 1) return undefined;
  }
  return hits[0];
}

function treeLocation(located: Located | undefined): DiffLocation | null {
  if (!located) return null;
  const loc: DiffLocation = {
    offset: located.node.offset,
    length: located.node.length,
    node: located.names.join('/'),
  };
  if (located.file !== undefined) loc.file = located.file;
  return loc;
}

function byteLocation(loc: ByteLocation | undefined): DiffLocation | null {
  return loc ? { ...loc } : null;
}

interface Side {
  input: Input;
  plugin: AnyFormatPlugin;
  reader: FormatReader;
  summary: Summary;
  tree?: InspectNode;
}

function kindOf(path: string): Difference['kind'] {
  if (path === 'version' || path.startsWith('header')) return 'header';
  if (path.startsWith('counts')) return 'count';
  return 'structure';
}

/** The comparable content from info(): version, counts and details, minus layout keys. */
function summaryContent(summary: Summary): { [key: string]: JsonValue } {
  const content: { [key: string]: JsonValue } = {};
  if (summary.version !== undefined) content.version = summary.version;
  content.counts = summary.counts;
  if (summary.details) Object.assign(content, withoutLayout(summary.details));
  return content;
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
        if (JSON.stringify(a) !== JSON.stringify(b)) out.push(prefix);
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
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(prefix);
}

function valueAt(value: JsonValue | undefined, segments: readonly Segment[]): JsonValue | undefined {
  let v: JsonValue | undefined = value;
  for (const s of segments) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, JsonValue>)[s as string];
  }
  return v;
}

/** Header, structure and count differences, each located in both files where possible. */
async function compareContent(a: Side, b: Side, limit: number): Promise<Difference[]> {
  const differences: Difference[] = [];
  if (a.plugin.contentFields && b.plugin.contentFields) {
    const [fa, fb] = await Promise.all([a.plugin.contentFields(a.reader), b.plugin.contentFields(b.reader)]);
    const mapA = new Map<string, ContentField>(fa.map((f) => [f.path, f]));
    const mapB = new Map<string, ContentField>(fb.map((f) => [f.path, f]));
    for (const path of new Set([...mapA.keys(), ...mapB.keys()])) {
      const x = mapA.get(path);
      const y = mapB.get(path);
      if (x && y && JSON.stringify(x.value) === JSON.stringify(y.value)) continue;
      differences.push({
        kind: kindOf(path),
        path,
        a: { value: x?.value ?? null, present: Boolean(x), location: byteLocation(x?.location) },
        b: { value: y?.value ?? null, present: Boolean(y), location: byteLocation(y?.location) },
      });
      if (differences.length >= limit) break;
    }
    return differences;
  }
  [a.tree, b.tree] = await Promise.all([a.plugin.inspect(a.reader), b.plugin.inspect(b.reader)]);
  const ca = summaryContent(a.summary);
  const cb = summaryContent(b.summary);
  const paths: Segment[][] = [];
  jsonDifferences(ca, cb, [], paths, limit);
  for (const segments of paths) {
    const isCount = segments[0] === 'counts';
    const inTree = isCount ? segments.slice(1) : segments;
    const va = valueAt(ca, segments);
    const vb = valueAt(cb, segments);
    const path = pathString(segments);
    differences.push({
      kind: kindOf(path),
      path,
      a: {
        value: va ?? null,
        present: va !== undefined,
        location: va === undefined ? null : treeLocation(locateInTree(a.tree, inTree, va, isCount)),
      },
      b: {
        value: vb ?? null,
        present: vb !== undefined,
        location: vb === undefined ? null : treeLocation(locateInTree(b.tree, inTree, vb, isCount)),
      },
    });
  }
  return differences;
}

async function recordLocations(side: Side, index: number): Promise<ByteLocation[]> {
  return side.plugin.locateRecord ? await side.plugin.locateRecord(side.reader, index) : [];
}

/**
 * Where record `index` is stored, for one differing field: the location of that field when
 * the record is stored in several places (one block per column), else the record's own.
 */
function recordLocation(index: number, locations: readonly ByteLocation[], field?: Segment): DiffLocation {
  const pick =
    (typeof field === 'string' && locations.find((l) => l.field === field)) ||
    locations.find((l) => l.field === undefined) ||
    locations[0];
  return pick ? { record: index, ...pick } : { record: index };
}

async function compareRecords(
  a: Side,
  b: Side,
  options: DiffOptions,
  differences: Difference[],
): Promise<{ compared: number; truncated: boolean }> {
  const itA = a.plugin.records(a.reader)[Symbol.asyncIterator]();
  const itB = b.plugin.records(b.reader)[Symbol.asyncIterator]();
  let index = 0;
  let differing = 0;
  try {
    for (;;) {
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
            location: onlyA ? recordLocation(index, await recordLocations(a, index)) : null,
          },
          b: {
            value: onlyA ? null : (rb.value as JsonRecord),
            present: !onlyA,
            location: onlyA ? null : recordLocation(index, await recordLocations(b, index)),
          },
        });
        return { compared: index, truncated: false };
      }
      const va = ra.value as JsonRecord;
      const vb = rb.value as JsonRecord;
      if (JSON.stringify(va) !== JSON.stringify(vb)) {
        const paths: Segment[][] = [];
        // Records of different shape differ as wholes; records of one shape, field by field.
        const sameShape = JSON.stringify(Object.keys(va)) === JSON.stringify(Object.keys(vb));
        if (sameShape) jsonDifferences(va, vb, [], paths, 20);
        else paths.push([]);
        const [la, lb] = await Promise.all([recordLocations(a, index), recordLocations(b, index)]);
        for (const p of paths) {
          const av = valueAt(va, p);
          const bv = valueAt(vb, p);
          differences.push({
            kind: 'record',
            path: pathString([`records[${index}]`, ...p]),
            a: { value: av ?? null, present: av !== undefined, location: recordLocation(index, la, p[0]) },
            b: { value: bv ?? null, present: bv !== undefined, location: recordLocation(index, lb, p[0]) },
          });
        }
        differing++;
        if (differing >= options.maxRecords) return { compared: index + 1, truncated: true };
      }
      index++;
    }
  } finally {
    await Promise.all([itA.return?.(), itB.return?.()]);
  }
}

function describeLocation(loc: DiffLocation | null): string {
  if (!loc) return 'location unknown';
  const parts: string[] = [];
  if (loc.record !== undefined) parts.push(`record ${loc.record}`);
  if (loc.field) parts.push(`field ${loc.field}`);
  if (loc.node) parts.push(`node ${loc.node}`);
  if (loc.offset !== undefined)
    parts.push(`bytes ${loc.offset}${loc.length !== undefined ? `..${loc.offset + loc.length}` : ''}`);
  if (loc.file) parts.push(`in ${loc.file}`);
  return parts.join(', ');
}

function show(side: DiffSide): string {
  if (!side.present) return '(absent)';
  const text = JSON.stringify(side.value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

async function openSide(
  filePath: string,
  options: DiffOptions,
): Promise<Omit<Side, 'reader' | 'summary'> & { input: Input }> {
  const input = await openInput(filePath, { as: options.as, byExtension: true });
  if (!input.plugin) {
    await input.close();
    const reason = unreadable(input).message;
    throw new CliError(reason, EXIT.usage);
  }
  return { input, plugin: input.plugin };
}

/**
 * Compares content, not bytes: header fields, structure and counts from the plugins, then
 * records in order until the first --max-records differences. Exit 0 equal, 1 differ, 2 when
 * either file cannot be compared.
 */
export async function diffCommand(
  ctx: Context,
  pathA: string,
  pathB: string,
  options: DiffOptions,
): Promise<ExitCode> {
  const sides: Side[] = [];
  let report: DiffReport;
  try {
    for (const p of [pathA, pathB]) {
      try {
        const { input, plugin } = await openSide(p, options);
        const partial: Partial<Side> & { input: Input; plugin: AnyFormatPlugin } = { input, plugin };
        sides.push(partial as Side);
        partial.reader = await plugin.open(input.target);
        partial.summary = await plugin.info(partial.reader);
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(describeError(error, p), EXIT.usage, { cause: error });
      }
    }
    const [a, b] = sides;
    const differences: Difference[] = [];
    report = {
      equal: true,
      a: { path: pathA, format: a.plugin.id },
      b: { path: pathB, format: b.plugin.id },
      differences,
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
    } else {
      try {
        differences.push(...(await compareContent(a, b, MAX_CONTENT_DIFFERENCES)));
      } catch (error) {
        throw new CliError(describeError(error, `${pathA} vs ${pathB}`), EXIT.usage, { cause: error });
      }
      if (options.records) {
        try {
          const { compared, truncated } = await compareRecords(a, b, options, differences);
          report.recordsCompared = compared;
          report.truncated = truncated;
        } catch (error) {
          throw new CliError(describeError(error, `${pathA} vs ${pathB}`), EXIT.usage, { cause: error });
        }
      }
    }
    report.equal = differences.length === 0;
  } finally {
    for (const side of sides) {
      await side.reader?.close?.();
      await side.input.close();
    }
  }

  if (options.json) await printJson(ctx.out, report);
  else {
    if (report.equal) {
      await ctx.out.line(
        `${pathA} and ${pathB}: equal in content (${report.a.format}${options.records ? `, ${report.recordsCompared} records` : ''})`,
      );
    } else {
      await ctx.out.line(`${pathA} (A) and ${pathB} (B) differ:`);
      for (const d of report.differences) {
        await ctx.out.line(
          `  ${d.kind === d.path ? d.path : `${d.kind} ${d.path}`}: A ${show(d.a)}  B ${show(d.b)}`,
        );
        await ctx.out.line(
          `      A: ${describeLocation(d.a.location)}; B: ${describeLocation(d.b.location)}`,
        );
      }
      if (report.truncated)
        await ctx.out.line(`  … stopped after ${options.maxRecords} differing records (--max-records)`);
    }
  }
  await ctx.out.flush();
  return report.equal ? EXIT.ok : EXIT.failed;
}
