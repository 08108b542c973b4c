import { WhereSyntaxError } from './errors.js';
import { type DataRecord, type Field, fieldsByName, fieldTypeName, type Schema } from './schema.js';

/**
 * The `--where` language, for every format with a schema: a conjunction of comparisons,
 * `field OP literal [and field OP literal]…`, with OP one of = == != < <= > >= and a literal
 * that is a number or a quoted string ('…' or "…", backslash escapes the quote). Field names
 * are bare words or double-quoted. Strings compare by code point (as their UTF-8 bytes do),
 * numbers numerically; NaN matches only `!=`; a null or absent value matches nothing (as in
 * SQL). Integer and float fields take numbers, string fields quoted strings; other types
 * cannot be compared.
 */
export type WhereOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export interface WhereCondition {
  /** The field compared (named `column` as in SCBF, where the language began). */
  column: string;
  op: WhereOp;
  value: number | string;
}

/** A parsed `--where`: its conditions, the fields it reads, and the test itself. */
export interface RowFilter {
  readonly text: string;
  readonly conditions: readonly WhereCondition[];
  /** The fields the conditions read, once each, in order of appearance. */
  readonly fields: readonly string[];
  /** Whether a record satisfies every condition. */
  matches(record: DataRecord): boolean;
  /** The same test on bare values by field name (for readers that filter before building records). */
  matchesValues(values: { readonly [field: string]: unknown }): boolean;
}

const TOKEN =
  /\s*(?:(?<op>==|!=|<=|>=|=|<|>)|(?<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|[-+]?(?:Infinity|NaN)\b)|(?<dq>"(?:[^"\\]|\\.)*")|(?<sq>'(?:[^'\\]|\\.)*')|(?<word>[A-Za-z_][\w.-]*))/y;

type Token = { kind: 'op' | 'num' | 'str' | 'word' | 'quotedWord'; text: string; value?: string | number };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const token = new RegExp(TOKEN);
  while (token.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(token.lastIndex))) break;
    const at = token.lastIndex;
    const m = token.exec(text);
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

/** The conditions of a `--where` text, without a schema (syntax only). */
export function parseConditions(text: string): WhereCondition[] {
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

/**
 * Parses `--where` against a schema: every field must exist and take its literal's kind
 * (numbers for int and float fields, quoted strings for string fields). Throws
 * WhereSyntaxError, which `isBinscopeError(e, 'WhereSyntaxError')` recognises.
 */
export function parseWhere(text: string, schema: Schema): RowFilter {
  const conditions = parseConditions(text);
  const fields = fieldsByName(schema);
  for (const c of conditions) checkCondition(c, fields.get(c.column), schema);
  return rowFilter(text, conditions);
}

function checkCondition(c: WhereCondition, field: Field | undefined, schema: Schema): void {
  if (!field) {
    const names = schema.fields.map((f) => JSON.stringify(f.name)).join(', ');
    throw new WhereSyntaxError(`--where: no column ${JSON.stringify(c.column)}; columns: ${names}`);
  }
  const kind = field.type.kind;
  if (kind !== 'int' && kind !== 'float' && kind !== 'string')
    throw new WhereSyntaxError(
      `--where: column "${c.column}" is ${fieldTypeName(field)}, which cannot be compared`,
    );
  const wantsNumber = kind !== 'string';
  if (wantsNumber !== (typeof c.value === 'number'))
    throw new WhereSyntaxError(
      `--where: column "${c.column}" is ${fieldTypeName(field)}; compare it with a ${wantsNumber ? 'number' : 'quoted string'}`,
    );
}

/** A filter over conditions already checked against the schema. */
export function rowFilter(text: string, conditions: readonly WhereCondition[]): RowFilter {
  const matchesValues = (values: { readonly [field: string]: unknown }) => {
    for (const c of conditions) if (!holds(c, values[c.column])) return false;
    return true;
  };
  return {
    text,
    conditions,
    fields: [...new Set(conditions.map((c) => c.column))],
    matches: (record) => matchesValues(record.values),
    matchesValues,
  };
}

function holds(c: WhereCondition, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  const order = compareValue(value, c.value);
  switch (c.op) {
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

/**
 * The order of a value against a literal: negative, 0, positive, or NaN when unordered (NaN).
 * Strings by code point, which is the order of their UTF-8 bytes.
 */
export function compareValue(value: unknown, literal: number | string): number {
  if (typeof literal === 'number') {
    if (typeof value === 'bigint') {
      if (!Number.isFinite(literal)) return Number.isNaN(literal) ? Number.NaN : literal > 0 ? -1 : 1;
      const whole = Math.floor(literal);
      if (value !== BigInt(whole)) return value < BigInt(whole) ? -1 : 1;
      return whole - literal; // equal integer parts: the literal's fraction decides
    }
    return (value as number) - literal;
  }
  return compareCodePoints(String(value), literal);
}

function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort above the rest of the BMP in code point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
