/**
 * The Python spellings SCBF files depend on: `repr(float)` for float64 cells (S7/S8) and
 * `json.dumps` for schema_json (S2). The upstream writer is Python, so these decide what
 * "canonical" means for inference and byte-identical round trips.
 */

/**
 * Python's `repr(float)`: shortest round-trip digits, fixed notation with a forced `.0` when
 * the decimal exponent is in [-4, 16), otherwise `d.ddde±XX` (at least two exponent digits).
 * `88.0`, `1e-05`, `-0.0`, `1.5e+20`, `inf`, `nan`.
 */
export function pyFloatRepr(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  const abs = value < 0 ? -value : value;
  // JS and Python agree on the digits; they differ only in where they switch notation.
  if (abs >= 1e-4 && abs < 1e16) {
    const text = String(value);
    // JS keeps fixed notation down to 1e-7, so values in [1e-4, 1e16) never use an exponent here.
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  const exp = value.toExponential(); // shortest digits, e.g. "-1.5e+20", "1e-5"
  const e = exp.indexOf('e');
  const mantissa = exp.slice(0, e);
  const sign = exp[e + 1];
  const digits = exp.slice(e + 2);
  return `${mantissa}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
}

/** S7: the canonical decimal text of an int32 (no `+`, no leading zeros, no `-0`). */
export function isCanonicalInt32(text: string): boolean {
  return !Number.isNaN(canonicalInt32Value(text));
}

/** S7: the text equals `repr(float(text))` for a finite value. */
export function isCanonicalFloat(text: string): boolean {
  return !Number.isNaN(canonicalFloatValue(text));
}

/**
 * Python `json.dumps(value)` with the default separators (`", "`, `": "`) and
 * `ensure_ascii=True` (non-ASCII as `\uXXXX`, astral characters as surrogate pairs).
 * Supports what schema_json holds: objects, arrays, strings, numbers, booleans, null.
 */
export function pyJsonDumps(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return pyJsonString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Object.is(value, -0)) return String(value);
    return Number.isFinite(value)
      ? pyFloatRepr(value)
      : Number.isNaN(value)
        ? 'NaN'
        : value > 0
          ? 'Infinity'
          : '-Infinity';
  }
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) parts.push(`${pyJsonString(k)}: ${pyJsonDumps(v)}`);
    }
    return `{${parts.join(', ')}}`;
  }
  throw new TypeError(`cannot write ${typeof value} as JSON`);
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** json.dumps of one string with ensure_ascii: everything outside ' '..'~' is escaped. */
export function pyJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e && ch !== '"' && ch !== '\\') out += ch;
    else out += SHORT_ESCAPES[ch] ?? `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/**
 * `isCanonicalInt32` that also returns the value: NaN when the text is not canonical.
 * A hand loop: this runs once per cell of a CSV, millions of times.
 */
export function canonicalInt32Value(text: string): number {
  const n = text.length;
  if (n === 0 || n > 11) return Number.NaN;
  let i = 0;
  const negative = text.charCodeAt(0) === 45;
  if (negative) {
    if (n === 1) return Number.NaN;
    i = 1;
  }
  if (text.charCodeAt(i) === 48) return n === 1 ? 0 : Number.NaN; // "0" only: no "-0", no leading zeros
  let value = 0;
  for (; i < n; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  if (negative) value = -value;
  return value >= -2147483648 && value <= 2147483647 ? value : Number.NaN;
}

/** `isCanonicalFloat` that also returns the value: NaN when the text is not canonical. */
export function canonicalFloatValue(text: string): number {
  const n = text.length;
  if (n === 0 || n > 32) return Number.NaN;
  const fast = fixedNotationValue(text);
  if (fast !== undefined) return fast;
  const value = Number(text);
  if (!Number.isFinite(value)) return Number.NaN;
  return pyFloatRepr(value) === text ? value : Number.NaN;
}

/** Powers of ten that a double holds exactly (up to 1e22). */
const EXACT_POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * Decides the common case without formatting the double (the costly part): fixed notation
 * `-?int.frac` with at most 15 significant digits. Any decimal of ≤ 15 significant digits
 * survives decimal → double → shortest decimal unchanged (DBL_DIG = 15), so such a text is
 * repr's text exactly when it is spelled the way repr spells it: no leading zeros, no
 * trailing zeros (but `N.0`), decimal exponent in [-4, 16). Its value comes from the same
 * pass: the digits as an integer (exact below 2^53) divided by an exact power of ten is one
 * correctly rounded operation, so it equals `Number(text)` (Clinger's fast path).
 * Returns the value, NaN when the text is not canonical, or undefined to defer to the full
 * check (exponent notation, 16–17 digits).
 */
function fixedNotationValue(text: string): number | undefined {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  const intStart = i;
  let whole = 0;
  while (i < n) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    whole = whole * 10 + digit;
    i++;
  }
  const intDigits = i - intStart;
  if (intDigits === 0)
    return i < n && (text.charCodeAt(i) === 101 || text.charCodeAt(i) === 69) ? undefined : Number.NaN;
  if (i === n) return Number.NaN; // an integer: repr always has '.' or 'e'
  const mark = text.charCodeAt(i);
  if (mark === 101) return undefined; // "1e-05": exponent notation, full check
  if (mark !== 46) return Number.NaN;
  if (intDigits > 1 && text.charCodeAt(intStart) === 48) return Number.NaN; // leading zero
  if (intDigits > 16) return Number.NaN; // exponent ≥ 16 is written with 'e'
  const fracStart = i + 1;
  let digits = whole;
  for (let j = fracStart; j < n; j++) {
    const digit = text.charCodeAt(j) - 48;
    if (digit < 0 || digit > 9) return digit === 101 - 48 ? undefined : Number.NaN;
    digits = digits * 10 + digit;
  }
  const fracDigits = n - fracStart;
  if (fracDigits === 0) return Number.NaN;
  if (text.charCodeAt(n - 1) === 48) {
    // Only "N.0" may end in 0; beyond 15 digits N itself may not survive the round trip.
    if (fracDigits !== 1) return Number.NaN;
    if (intDigits > 15) return undefined;
    return negative ? -whole : whole;
  }
  let significant: number;
  if (intDigits === 1 && text.charCodeAt(intStart) === 48) {
    let zeros = 0;
    while (text.charCodeAt(fracStart + zeros) === 48) zeros++;
    if (zeros > 3) return Number.NaN; // below 1e-4: repr uses 'e'
    significant = fracDigits - zeros;
  } else {
    significant = intDigits + fracDigits;
  }
  if (significant > 15) return undefined;
  const value = digits / EXACT_POW10[fracDigits];
  return negative ? -value : value;
}

const PY_INT = /^[+-]?[0-9](?:_?[0-9])*$/;
const PY_FLOAT =
  /^[+-]?(?:(?:[0-9](?:_?[0-9])*)?\.?[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.)(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;
const PY_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
const PY_SPACE = /^[\s]+|[\s]+$/g;

/** Python `int(text)` (base 10): surrounding whitespace, a sign, `_` between digits. NaN if it would raise. */
export function pythonInt(text: string): number {
  const t = text.replace(PY_SPACE, '');
  if (!PY_INT.test(t)) return Number.NaN;
  return Number(t.replace(/_/g, ''));
}

/** Python `float(text)`: whitespace, `_` between digits, `inf`/`infinity`/`nan` in any case. NaN if it would raise. */
export function pythonFloat(text: string): number | undefined {
  const t = text.replace(PY_SPACE, '');
  const special = PY_SPECIAL.exec(t);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!PY_FLOAT.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}
