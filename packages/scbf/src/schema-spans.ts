const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const COLUMNS = new TextEncoder().encode('"columns"');

/**
 * The byte range of each element of schema_json's top-level "columns" array, relative to the
 * JSON's first byte: each column node owns its own object's bytes. `json` is text that already
 * parsed, so a scan of brackets outside strings is enough; as JSON.parse does, the last
 * "columns" key wins.
 */
export function columnSpans(json: Uint8Array): Array<{ start: number; end: number }> {
  let spans: Array<{ start: number; end: number }> = [];
  let current: Array<{ start: number; end: number }> | undefined;
  let depth = 0;
  /** Depth of the "columns" array's elements while inside it, else -1. */
  let inColumns = -1;
  let pendingKey = false;
  let elementStart = -1;
  for (let i = 0; i < json.length; i++) {
    const b = json[i];
    if (b === QUOTE) {
      const start = i;
      for (i++; i < json.length && json[i] !== QUOTE; i++) if (json[i] === BACKSLASH) i++;
      if (depth === 1 && isColumnsKey(json, start, i + 1)) pendingKey = true;
      if (inColumns === depth && elementStart < 0) current?.push({ start, end: i + 1 });
      continue;
    }
    if (OPEN.has(b)) {
      if (pendingKey && depth === 1 && b === 0x5b) {
        current = [];
        inColumns = 2;
      } else if (depth === inColumns && elementStart < 0) elementStart = i;
      pendingKey = false;
      depth++;
    } else if (CLOSE.has(b)) {
      depth--;
      if (depth === inColumns && elementStart >= 0) {
        current?.push({ start: elementStart, end: i + 1 });
        elementStart = -1;
      } else if (depth === 1 && inColumns === 2) {
        spans = current ?? [];
        current = undefined;
        inColumns = -1;
      }
    } else if (b !== COLON && b > 0x20) pendingKey = false;
  }
  return spans;
}

function isColumnsKey(json: Uint8Array, start: number, end: number): boolean {
  if (end - start !== COLUMNS.length) return false;
  for (let k = 0; k < COLUMNS.length; k++) if (json[start + k] !== COLUMNS[k]) return false;
  return true;
}
