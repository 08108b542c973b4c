/** Values records and summaries are made of: what JSON can carry without loss. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/**
 * The shared JSON convention (A5): 64-bit integers beyond 2^53 as decimal strings,
 * non-finite floats as "NaN"/"Infinity"/"-Infinity", typed arrays as arrays.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'number':
      if (Number.isFinite(value)) return value;
      return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
    case 'bigint':
      return value <= MAX_SAFE && value >= MIN_SAFE ? Number(value) : value.toString();
    case 'string':
    case 'boolean':
      return value;
    case 'object': {
      if (Array.isArray(value)) return value.map(toJsonValue);
      if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
        return Array.from(value as unknown as ArrayLike<number | bigint>, toJsonValue);
      }
      const out: { [key: string]: JsonValue } = {};
      for (const [k, v] of Object.entries(value as object)) if (v !== undefined) out[k] = toJsonValue(v);
      return out;
    }
    default:
      return String(value);
  }
}

/** 64-bit integer → the A5 form: always a decimal string, as expected.json writes them. */
export function int64String(value: bigint | number): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}

/**
 * Where a parsed JSON object or array keeps the text it was parsed from: a registered symbol,
 * so two bundled copies of core agree, and a non-enumerable property, so everything that walks
 * the value (JSON.stringify, Object.entries, structuredClone) sees plain parsed JSON.
 */
const JSON_SOURCE = Symbol.for('binscope.jsonSource');

/**
 * Attaches to a parsed JSON object or array the text it was parsed from (already checked to be
 * JSON, with nothing in it changed since), so `jsonLine` prints what the file stores: integers
 * beyond 2^53, number spellings (`1.0`, `1e5`, `-0.0`), string escapes and repeated keys, which
 * a parse and re-stringify would round, rewrite or drop. Scalars carry nothing (returned as they
 * are). The value must not be modified afterwards: the text would no longer say what it holds.
 */
export function withJsonSource<T extends JsonValue>(value: T, text: string): T {
  if (value !== null && typeof value === 'object')
    Object.defineProperty(value, JSON_SOURCE, { value: text, configurable: true });
  return value;
}

/** The text a JSON value was parsed from, when `withJsonSource` attached it. */
export function jsonSourceOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const text = (value as { [JSON_SOURCE]?: unknown })[JSON_SOURCE];
  return typeof text === 'string' ? text : undefined;
}

/**
 * One line of JSON text for a JSON value (a record from `recordToJson`, a summary): as
 * `JSON.stringify` writes it, except that a float -0 is written `-0.0` (A5: the sign of zero
 * is data, and JSON.parse reads `-0.0` back as -0), and that a value carrying its source text
 * (`withJsonSource`) is spliced in as stored, with only insignificant whitespace taken out so
 * the line stays one line.
 */
export function jsonLine(value: JsonValue): string {
  return needsCare(value) ? carefulJson(value) : JSON.stringify(value);
}

function isNegativeZero(value: unknown): boolean {
  return value === 0 && 1 / (value as number) < 0;
}

/** Whether JSON.stringify would get the value wrong: a -0, or a value keeping its source text. */
function needsCare(value: JsonValue): boolean {
  if (typeof value === 'number') return isNegativeZero(value);
  if (value === null || typeof value !== 'object') return false;
  if (jsonSourceOf(value) !== undefined) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (needsCare(item)) return true;
    return false;
  }
  for (const key in value) if (needsCare(value[key])) return true;
  return false;
}

function carefulJson(value: JsonValue): string {
  if (typeof value === 'number') return isNegativeZero(value) ? '-0.0' : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const source = jsonSourceOf(value);
  if (source !== undefined) return withoutWhitespace(source);
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : jsonLine(v))).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value))
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${jsonLine(v)}`);
  return `{${parts.join(',')}}`;
}

/**
 * Valid JSON text without the whitespace between its tokens: everything else, strings with their
 * escapes included, as it was. Only for text JSON.parse has accepted (a string cannot hold a raw
 * line break there, so the result is one line).
 */
function withoutWhitespace(text: string): string {
  if (!/[ \t\n\r]/.test(text)) return text;
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}
