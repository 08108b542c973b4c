import { type JsonValue, toJsonValue } from '@binscope/core';
import { toHex } from '@binscope/core/binary';

/** A page request's bounds, clamped to what exists. */
export function pageOf(
  query: { [key: string]: unknown },
  total: number,
  maxLimit = 200,
): { start: number; end: number } {
  const start = Math.max(0, Math.min(total, Math.floor(Number(query.offset ?? 0)) || 0));
  const limit = Math.max(1, Math.min(maxLimit, Math.floor(Number(query.limit ?? 50)) || 50));
  return { start, end: Math.min(total, start + limit) };
}

/** JSON text for display, cut at `max` characters (the page shows previews, not documents). */
export function previewJson(value: unknown, max = 4000): { text: string; truncated: boolean } {
  const text = JSON.stringify(toJsonValue(value), null, 1) ?? 'null';
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };
}

/** The first values of a typed array as display strings (bigints exact). */
export function previewValues(
  values: ArrayLike<number | bigint>,
  max = 48,
): { items: string[]; count: number } {
  const items: string[] = [];
  for (let i = 0; i < Math.min(max, values.length); i++) items.push(String(values[i]));
  return { items, count: values.length };
}

export function hexPreview(bytes: Uint8Array, max = 64): string {
  return toHex(bytes.subarray(0, max), ' ') + (bytes.byteLength > max ? ' …' : '');
}

export type Json = JsonValue;
