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

/**
 * Deepest nesting accepted in JSON read from a file. Printing, comparing and converting JSON
 * walk it recursively (as JSON.stringify does), so the depth is bounded where it is parsed;
 * upstream's Python (json, recursion limit 1,000) cannot write deeper JSON either.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * JSON.parse for text from a file: nesting deeper than `maxDepth` is a SyntaxError (like any
 * other malformed JSON), found by one pass over the text before parsing.
 */
export function parseBoundedJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  // Each level takes a character: shorter text cannot be too deep.
  if (text.length > maxDepth) {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++depth > maxDepth)
          throw new SyntaxError(`JSON nested deeper than ${maxDepth} levels (at position ${i})`);
      } else if (c === 0x5d || c === 0x7d) depth--;
    }
  }
  return JSON.parse(text);
}

/** 64-bit integer → the A5 form: always a decimal string, as expected.json writes them. */
export function int64String(value: bigint | number): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}
