import { fromHex, hexDump } from '@binscope/core/binary';

/** Display helpers shared by the panels. */

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

export function hexOffset(n: number, width = 8): string {
  return n.toString(16).padStart(width, '0');
}

/** Parses "1234", "0x4d2" or "4d2h" as a byte offset. */
export function parseOffset(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!t) return undefined;
  const value = t.startsWith('0x')
    ? Number.parseInt(t.slice(2), 16)
    : t.endsWith('h')
      ? Number.parseInt(t, 16)
      : Number(t);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * A value as people read it: objects as "key value, …" and lists as "a, b, …" rather than
 * raw JSON; numbers keep the sign of zero.
 */
export function displayValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value !== 'object') return String(value);
  const nested = (v: unknown) => {
    const text = displayValue(v, depth + 1);
    return typeof v === 'object' && v !== null && depth < 3 ? `(${text})` : text;
  };
  if (Array.isArray(value)) return value.map(nested).join(', ');
  return Object.entries(value as Record<string, unknown>)
    .map(([key, v]) => `${key} ${nested(v)}`)
    .join(', ');
}

/** A hex string as a classic dump (core's hexDump over the decoded bytes). */
export function hexDumpLines(hex: string): string {
  return hexDump(fromHex(hex));
}

/** "A, B and C" (or "A" alone). */
export function listWords(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
