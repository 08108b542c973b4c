import { type JsonRecord, type ReadOptions, toJsonValue } from '@binscope/core';
import { extensionsOf } from './extend.js';
import { applyCells, cellExtensions } from './cells.js';
import { dictionaryRange } from './dictionary.js';
import type { ScbfReader } from './read.js';
import { type ColumnStatistics, compareBytes } from './statistics.js';

/**
 * `cat --where`: a conjunction of comparisons, `col OP literal [and col OP literal]…`, with
 * OP one of = == != < <= > >= and a literal that is a number or a quoted string ('…' or "…",
 * backslash escapes the quote). Column names are bare words or double-quoted. Strings compare
 * by code point (as UTF-8 bytes), numbers numerically; NaN matches only `!=`.
 */
export type WhereOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface WhereCondition {
  column: string;
  op: WhereOp;
  value: number | string;
}

export class WhereSyntaxError extends Error {
  override name = 'WhereSyntaxError';
}

const TOKEN =
  /\s*(?:(?<op>==|!=|<=|>=|=|<|>)|(?<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|[-+]?(?:Infinity|NaN)\b)|(?<dq>"(?:[^"\\]|\\.)*")|(?<sq>'(?:[^'\\]|\\.)*')|(?<word>[A-Za-z_][\w.-]*))/y;

type Token = { kind: 'op' | 'num' | 'str' | 'word' | 'quotedWord'; text: string; value?: string | number };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m?.groups)
      throw new WhereSyntaxError(`--where: cannot read ${JSON.stringify(text.slice(at).trim())}`);
    const g = m.groups;
    if (g.op) out.push({ kind: 'op', text: g.op });
    else if (g.num) out.push({ kind: 'num', text: g.num, value: Number(g.num) });
    else if (g.dq) out.push({ kind: 'quotedWord', text: g.dq, value: unquote(g.dq) });
    else if (g.sq) out.push({ kind: 'str', text: g.sq, value: unquote(g.sq) });
    else out.push({ kind: 'word', text: g.word });
  }
  return out;
}

function unquote(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(.)/g, '$1');
}

export function parseWhere(text: string): WhereCondition[] {
  const tokens = tokenize(text);
  const out: WhereCondition[] = [];
  let i = 0;
  for (;;) {
    const col = tokens[i];
    const op = tokens[i + 1];
    const lit = tokens[i + 2];
    if (!col || (col.kind !== 'word' && col.kind !== 'quotedWord'))
      throw new WhereSyntaxError(`--where: expected a column name${col ? ` at ${col.text}` : ' at the end'}`);
    if (op?.kind !== 'op') throw new WhereSyntaxError(`--where: expected = != < <= > >= after ${col.text}`);
    if (!lit || (lit.kind !== 'num' && lit.kind !== 'str' && lit.kind !== 'quotedWord'))
      throw new WhereSyntaxError(
        `--where: expected a number or a quoted string after ${col.text} ${op.text}`,
      );
    out.push({
      column: col.kind === 'word' ? col.text : String(col.value),
      op: (op.text === '==' ? '=' : op.text) as WhereOp,
      value: lit.value as number | string,
    });
    i += 3;
    if (i === tokens.length) return out;
    if (tokens[i].kind !== 'word' || tokens[i].text.toLowerCase() !== 'and')
      throw new WhereSyntaxError(`--where: expected "and" between comparisons, got ${tokens[i].text}`);
    i++;
  }
}

const encoder = new TextEncoder();

function compare(a: number | string, b: number | string): number {
  if (typeof a === 'number') return a - (b as number);
  return compareBytes(encoder.encode(a), encoder.encode(b as string));
}

function holds(op: WhereOp, order: number): boolean {
  switch (op) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0 || Number.isNaN(order);
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

/** A null cell satisfies no comparison (as in SQL). */
export function rowMatches(conditions: readonly WhereCondition[], row: Record<string, unknown>): boolean {
  return conditions.every(
    (c) => row[c.column] !== null && holds(c.op, compare(row[c.column] as number | string, c.value)),
  );
}

/**
 * False when the column's statistics prove no value can satisfy the comparison, so its
 * block never has to be read. True when unsure.
 */
export function mayMatch(c: WhereCondition, stats: ColumnStatistics | undefined): boolean {
  if (!stats || c.op === '!=') return true;
  const lo = stats.type === 'utf8' ? stats.minText : stats.min;
  const hi = stats.type === 'utf8' ? stats.maxText : stats.max;
  // No range: an empty column (or NaN only), where no ordered comparison can hold.
  if (lo === undefined || hi === undefined) return false;
  switch (c.op) {
    case '=':
      return compare(lo, c.value) <= 0 && compare(hi, c.value) >= 0;
    case '<':
      return compare(lo, c.value) < 0;
    case '<=':
      return compare(lo, c.value) <= 0;
    case '>':
      return compare(hi, c.value) > 0;
    case '>=':
      return compare(hi, c.value) >= 0;
  }
}

export interface WhereOptions extends ReadOptions {
  columns?: readonly string[];
  offset?: number;
  limit?: number;
  /** Told how many column blocks the statistics let it skip (0 when it had to read). */
  onSkip?: (skipped: { columns: string[]; reason: string }) => void;
}

/**
 * Records of the rows that satisfy `where`, in JSON form (as `cat` prints them). Checks the
 * conditions against the column types first; with a statistics extension, a condition that
 * no value can meet ends the scan before any block is read.
 */
export async function* scbfWhereRecords(
  reader: ScbfReader,
  where: string | readonly WhereCondition[],
  options: WhereOptions = {},
): AsyncGenerator<JsonRecord> {
  const conditions = typeof where === 'string' ? parseWhere(where) : where;
  const cells = await cellExtensions(reader);
  for (const c of conditions) {
    const column = reader.column(c.column);
    const coded = cells.dictionaries.has(column.index);
    const wantsNumber = column.type !== 'utf8' && !coded;
    if (wantsNumber !== (typeof c.value === 'number'))
      throw new WhereSyntaxError(
        `--where: column "${c.column}" is ${coded ? 'dictionary-encoded text' : column.type}; compare it with a ${wantsNumber ? 'number' : 'quoted string'}`,
      );
  }
  const stats = (await extensionsOf(reader, [], options))?.statistics;
  // A dictionary column's statistics describe its codes: its strings' range comes from the dictionary.
  const statsOf = (name: string) => {
    const index = reader.column(name).index;
    const dictionary = cells.dictionaries.get(index);
    return dictionary ? dictionaryRange(dictionary) : stats?.[index];
  };
  const excluded = conditions.find((c) => !mayMatch(c, statsOf(c.column)));
  if (excluded) {
    options.onSkip?.({
      columns: reader.columnNames,
      reason: `statistics of "${excluded.column}" exclude ${excluded.column} ${excluded.op} ${JSON.stringify(excluded.value)}`,
    });
    return;
  }
  const wanted = options.columns ?? reader.columnNames;
  const needed = [...new Set([...wanted, ...conditions.map((c) => c.column)])];
  const floats = new Set(reader.columns.filter((c) => c.type === 'float64').map((c) => c.name));
  let skip = Math.max(0, options.offset ?? 0);
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  let index = -1;
  for await (const row of reader.rows({ columns: needed, signal: options.signal })) {
    index++;
    if (cells.any) applyCells(row as Record<string, unknown>, reader, cells, index);
    if (!rowMatches(conditions, row)) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    const out: JsonRecord = {};
    for (const name of wanted)
      out[name] =
        floats.has(name) && row[name] !== null ? (toJsonValue(row[name]) as number | string) : row[name];
    yield out;
    if (--left <= 0) return;
  }
}
