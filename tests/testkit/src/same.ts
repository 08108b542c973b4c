/**
 * Comparing large results without a deep-equal: a deep-equal of 300,000 elements takes
 * seconds on a busy machine (and a failure's diff more), so a test that does one can fail for
 * time alone. These compare in one pass and still say where values differ.
 */
import { createHash, type Hash } from 'node:crypto';
import { expect } from 'vitest';

function feed(hash: Hash, value: unknown): void {
  if (value === null || value === undefined) {
    hash.update(value === null ? 'N' : 'U');
    return;
  }
  switch (typeof value) {
    case 'number': {
      // The bits, so -0 and 0 differ, as they do for toEqual.
      const bits = Buffer.alloc(8);
      bits.writeDoubleLE(value);
      hash.update('n').update(bits);
      return;
    }
    case 'bigint':
    case 'boolean':
      hash.update(`${(typeof value)[0]}${String(value)};`);
      return;
    case 'string':
      hash.update(`s${value.length}:`).update(value);
      return;
    case 'object':
      break;
    default:
      hash.update(`?${String(value)};`);
      return;
  }
  if (ArrayBuffer.isView(value)) {
    hash.update(`v${value.constructor.name}${value.byteLength}:`);
    hash.update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    return;
  }
  if (Array.isArray(value)) {
    hash.update(`a${value.length}[`);
    for (const item of value) feed(hash, item);
    hash.update(']');
    return;
  }
  if (value instanceof Error) {
    hash.update(`e${value.name}:${value.message};`);
    return;
  }
  const entries = Object.entries(value as object)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  hash.update(`o${value.constructor?.name ?? ''}${entries.length}{`);
  for (const [k, v] of entries) {
    hash.update(`${k}=`);
    feed(hash, v);
  }
  hash.update('}');
}

/**
 * A SHA-256 of a test value (numbers by their bits, typed arrays by their bytes and type,
 * arrays, plain objects with their keys sorted, bigints, errors by name and message): equal
 * for values toEqual finds equal, in one pass over them.
 */
export function digest(value: unknown): string {
  const hash = createHash('sha256');
  feed(hash, value);
  return hash.digest('hex');
}

/** Asserts two byte arrays (any views) hold the same bytes; a failure names the first difference. */
export function expectSameBytes(actual: ArrayBufferView, expected: ArrayBufferView, label = 'bytes'): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.equals(b)) return;
  let at = 0;
  while (at < a.byteLength && at < b.byteLength && a[at] === b[at]) at++;
  expect.fail(
    `${label}: ${a.byteLength} bytes, expected ${b.byteLength}; first difference at byte ${at} (${a[at]} vs ${b[at]})`,
  );
}
