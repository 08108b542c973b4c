import {
  type AnyFormatPlugin,
  type ByteLocation,
  type ContentField,
  type FormatReader,
  type JsonRecord,
  type JsonValue,
  recordToJson,
  type Summary,
} from '@binscope/core';
import type { Command } from 'commander';
import type { CommonOptions, Context } from '../context.js';
import { CliError, describeError, EXIT, type ExitCode } from '../errors.js';
import { type Input, openInput, unreadable } from '../open.js';
import { type Action, asOption, examples, exampleFile, wholeNumber, withCommon } from '../options.js';
import { printJson } from '../render.js';

export function registerDiff(program: Command, ctx: Context, action: Action): void {
  const [a, b] = [exampleFile(ctx.registry, 'old'), exampleFile(ctx.registry, 'new')];
  withCommon(
    program
      .command('diff')
      .summary('compare two files of the same format by content')
      .description(
        'Compare two files (or archives) of the same format by content: header fields, schema / fields / ' +
          'tables / arrays, counts, then records in order, reporting the first differing records. Each ' +
          'difference names its location in both files (byte range, inspect node or record number). Encoding ' +
          'details are not content: files that differ only in compressed bytes are equal, and so are ' +
          'files that store the same values at other offsets; --layout compares where each value is ' +
          'stored too. Exits 0 when equal, 1 when they differ, 2 when either cannot be read.',
      )
      .argument('<a>', 'first file or archive')
      .argument('<b>', 'second file or archive')
      .option('--max-records <n>', 'stop after this many differing records', wholeNumber('--max-records'), 5)
      .option('--no-records', 'compare header, structure and counts only')
      .option('--layout', 'compare the layout too: offsets and sizes of the values compared')
      .addOption(asOption(ctx.registry)),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope diff ${a} ${b}`,
        '$ binscope diff a/ b/ --json | jq .differences',
        `$ binscope diff ${a} ${b} --layout`,
      ),
    )
    .action(action((x: string, y: string, options: DiffOptions) => diffCommand(ctx, x, y, options)));
}

export interface DiffOptions extends CommonOptions {
  as?: string;
  /** Stop after this many differing records. */
  maxRecords: number;
  /** Compare only header, structure and counts. */
  records: boolean;
  /** Compare the layout too: the plugin's layout fields and records' layout fields. */
  layout?: boolean;
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
  /** 'layout': where or how a value is stored differs (only with --layout); the rest are content. */
  kind: 'format' | 'header' | 'structure' | 'count' | 'record' | 'layout';
  path: string;
  a: DiffSide;
  b: DiffSide;
}

export interface DiffReport {
  equal: boolean;
  a: { path: string; format: string | null };
  b: { path: string; format: string | null };
  differences: Difference[];
  /** True when layout was compared too (--layout). */
  layout: boolean;
  /** Records compared before stopping (at the end, or after --max-records differences). */
  recordsCompared: number;
  /** True when comparison stopped early at --max-records differing records. */
  truncated: boolean;
}

type Segment = string | number;

/** Header/structure differences listed at most (records have --max-records). */
const MAX_CONTENT_DIFFERENCES = 200;

function pathString(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

function byteLocation(loc: ByteLocation | undefined): DiffLocation | null {
  return loc ? { ...loc } : null;
}

interface Side {
  input: Input;
  plugin: AnyFormatPlugin;
  reader: FormatReader;
  summary: Summary;
}

function kindOf(path: string): Difference['kind'] {
  if (path === 'version' || path.startsWith('header')) return 'header';
  if (path.startsWith('counts')) return 'count';
  return 'structure';
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

/**
 * Header, structure and count differences, each located in both files where possible; with
 * `layout`, the plugin's layout fields (offsets, sizes, compression) too. `describesLayout`
 * says whether the plugin lists any layout field here.
 */
async function compareContent(
  a: Side,
  b: Side,
  limit: number,
  layout: boolean,
): Promise<{ differences: Difference[]; describesLayout: boolean }> {
  const differences: Difference[] = [];
  const [fa, fb] = await Promise.all([a.plugin.contentFields(a.reader), b.plugin.contentFields(b.reader)]);
  const mapA = new Map<string, ContentField>(fa.map((f) => [f.path, f]));
  const mapB = new Map<string, ContentField>(fb.map((f) => [f.path, f]));
  for (const path of new Set([...mapA.keys(), ...mapB.keys()])) {
    const x = mapA.get(path);
    const y = mapB.get(path);
    const isLayout = Boolean(x?.layout || y?.layout);
    if (isLayout && !layout) continue;
    if (x && y && JSON.stringify(x.value) === JSON.stringify(y.value)) continue;
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

async function recordLocations(side: Side, index: number): Promise<ByteLocation[]> {
  return side.plugin.locateRecord(side.reader, index);
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
  const layoutKeys = new Set(a.plugin.layoutFields ?? []);
  // Records compare as they print: through core's recordToJson, by each reader's schema.
  const asJson = (side: typeof a): AsyncGenerator<JsonRecord, void> =>
    (async function* () {
      for await (const record of side.plugin.records(side.reader))
        yield await recordToJson(side.reader.schema, record);
    })();
  const itA = asJson(a)[Symbol.asyncIterator]();
  const itB = asJson(b)[Symbol.asyncIterator]();
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
      const [ca, pa] = splitLayout(va, layoutKeys);
      const [cb, pb] = splitLayout(vb, layoutKeys);
      const contentDiffers = JSON.stringify(ca) !== JSON.stringify(cb);
      if (contentDiffers || (options.layout && JSON.stringify(pa) !== JSON.stringify(pb))) {
        const found: { kind: 'record' | 'layout'; path: Segment[] }[] = [];
        if (contentDiffers) {
          const paths: Segment[][] = [];
          // Records of different shape differ as wholes; records of one shape, field by field.
          const sameShape = JSON.stringify(Object.keys(ca)) === JSON.stringify(Object.keys(cb));
          if (sameShape) jsonDifferences(ca, cb, [], paths, 20);
          else paths.push([]);
          for (const path of paths) found.push({ kind: 'record', path });
        }
        if (options.layout) {
          const paths: Segment[][] = [];
          jsonDifferences(pa, pb, [], paths, 20);
          for (const path of paths) found.push({ kind: 'layout', path });
        }
        const [la, lb] = await Promise.all([recordLocations(a, index), recordLocations(b, index)]);
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
  ctx: Context,
  filePath: string,
  options: DiffOptions,
): Promise<Omit<Side, 'reader' | 'summary'> & { input: Input }> {
  const input = await openInput(ctx, filePath, { as: options.as, byExtension: true });
  if (!input.plugin) {
    await input.close();
    const reason = unreadable(ctx, input).message;
    throw new CliError(reason, EXIT.usage);
  }
  return { input, plugin: input.plugin };
}

/**
 * Compares content, not bytes: header fields, structure and counts from the plugins, then
 * records in order until the first --max-records differences. With --layout, also the
 * plugins' layout fields and records' layout fields (where and how values are stored). Exit
 * 0 equal, 1 differ, 2 when either file cannot be compared.
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
        const { input, plugin } = await openSide(ctx, p, options);
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
    let describesLayout = false;
    report = {
      equal: true,
      a: { path: pathA, format: a.plugin.id },
      b: { path: pathB, format: b.plugin.id },
      differences,
      layout: Boolean(options.layout),
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
        const content = await compareContent(a, b, MAX_CONTENT_DIFFERENCES, Boolean(options.layout));
        differences.push(...content.differences);
        describesLayout = content.describesLayout || (a.plugin.layoutFields ?? []).length > 0;
      } catch (error) {
        throw new CliError(describeError(error, `${pathA} vs ${pathB}`), EXIT.usage, { cause: error });
      }
      // Saying "equal in layout" for a format that lists no layout would claim what was not compared.
      if (options.layout && !describesLayout)
        throw new CliError(
          `diff --layout: ${a.plugin.id} files do not describe their layout (offsets, sizes) to compare; ` +
            'leave out --layout to compare their content',
          EXIT.usage,
        );
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
        `${pathA} and ${pathB}: equal in content${report.layout ? ' and layout' : ''} (${report.a.format}${options.records ? `, ${report.recordsCompared} records` : ''})`,
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
