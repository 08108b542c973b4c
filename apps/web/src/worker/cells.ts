import { GRID_MAX, ndGrid } from './ndarray-grid';
import {
  type Field,
  type ImageValue,
  type LogicalType,
  type NdArrayValue,
  toJsonValue,
  type Value,
} from '@binscope/core';
import type { ViewValue } from '../protocol';

/** How much of a value travels to the page: a page of records carries previews, a detail more. */
export interface Limits {
  /** Characters of text and of pretty-printed JSON. */
  text: number;
  /** Elements of an ndarray and items of a list. */
  items: number;
  /** Leading bytes of a byte string. */
  head: number;
  /** A byte string up to this size travels whole when it can be shown whole (an image, text). */
  whole: number;
  /** Image pixel bytes. */
  pixels: number;
  /** Cells a side of a 2-D array's heatmap (more rows or columns are strided). */
  grid: number;
}

export const PAGE_LIMITS: Limits = {
  text: 2000,
  items: 24,
  head: 256,
  whole: 1 << 20,
  pixels: 4 << 20,
  grid: 64,
};
export const DETAIL_LIMITS: Limits = {
  text: 1 << 20,
  items: 4096,
  head: 64 << 10,
  whole: 32 << 20,
  pixels: 64 << 20,
  grid: GRID_MAX,
};

/** A number as people read it: -0 keeps its sign, bigints are exact. */
export function numberText(value: number | bigint): string {
  return typeof value === 'number' && Object.is(value, -0) ? '-0' : String(value);
}

const isImage = (v: unknown): v is ImageValue =>
  !!v && typeof v === 'object' && (v as ImageValue).pixels instanceof Uint8Array && 'width' in v;
const isNdArray = (v: unknown): v is NdArrayValue =>
  !!v &&
  typeof v === 'object' &&
  'dtype' in v &&
  'shape' in v &&
  ArrayBuffer.isView((v as NdArrayValue).data);

/** The logical type a value without a field (or with a mismatched one) shows as. */
function guessType(value: Value): LogicalType | undefined {
  if (typeof value === 'number') return { kind: 'float', bits: 64 };
  if (typeof value === 'bigint') return { kind: 'int', bits: 64, signed: true };
  if (typeof value === 'boolean') return { kind: 'bool' };
  if (typeof value === 'string') return { kind: 'string' };
  if (value instanceof Uint8Array) return { kind: 'bytes' };
  if (isImage(value)) return { kind: 'image' };
  if (isNdArray(value)) return { kind: 'ndarray', dtype: value.dtype };
  return { kind: 'json' };
}

/** Whether `value` is what `type` says it is (a format may hand something else). */
function fits(type: LogicalType, value: Value): boolean {
  switch (type.kind) {
    case 'int':
    case 'float':
      return typeof value === 'number' || typeof value === 'bigint';
    case 'bool':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'bytes':
      return value instanceof Uint8Array;
    case 'image':
      return isImage(value);
    case 'ndarray':
      return isNdArray(value);
    case 'list':
      return Array.isArray(value);
    case 'struct':
      return !!value && typeof value === 'object' && !Array.isArray(value);
    default:
      return true;
  }
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/**
 * A value as the page draws it, by its field's logical type alone. Buffers are copies owned
 * by the answer (a value may alias a plugin's read buffer), so they can be transferred.
 */
export function viewValue(type: LogicalType | undefined, value: Value, limits: Limits): ViewValue {
  if (value === null || value === undefined) return { kind: 'null' };
  const t = type && fits(type, value) ? type : guessType(value);
  switch (t?.kind) {
    case 'int':
    case 'float':
      return { kind: 'number', text: numberText(value as number | bigint) };
    case 'bool':
      return { kind: 'bool', value: value as boolean };
    case 'string': {
      const text = value as string;
      return { kind: 'string', text: clip(text, limits.text), length: text.length };
    }
    case 'bytes':
      return bytesView(value as Uint8Array, (value as Uint8Array).byteLength, t.mediaType, limits);
    case 'image':
      return imageView(value as ImageValue, limits);
    case 'ndarray': {
      const array = value as NdArrayValue;
      const values: string[] = [];
      for (let i = 0; i < Math.min(limits.items, array.data.length); i++)
        values.push(numberText(array.data[i]));
      const dtype = array.dtypeName ?? array.dtype;
      const grid = ndGrid(array, limits.grid);
      return {
        kind: 'ndarray',
        dtype,
        shape: [...array.shape],
        count: array.data.length,
        values,
        ...(grid ? { grid } : {}),
      };
    }
    case 'list': {
      const items = value as readonly Value[];
      return {
        kind: 'list',
        items: items.slice(0, limits.items).map((v) => viewValue(t.items, v, limits)),
        count: items.length,
      };
    }
    case 'struct': {
      const record = value as { readonly [key: string]: Value };
      const types = new Map(t.fields.map((f: Field) => [f.name, f.type]));
      const fields = Object.entries(record)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, ViewValue] => [k, viewValue(types.get(k), v, limits)]);
      return { kind: 'struct', fields };
    }
    default: {
      const text = JSON.stringify(toJsonValue(value), null, 2) ?? 'null';
      return { kind: 'json', text: clip(text, limits.text), length: text.length };
    }
  }
}

function imageView(image: ImageValue, limits: Limits): ViewValue {
  const { width, height, channels, mode } = image;
  const pixels = image.pixels.byteLength <= limits.pixels ? image.pixels.slice() : undefined;
  return { kind: 'image', width, height, channels, ...(mode === undefined ? {} : { mode }), pixels };
}

/**
 * A byte string: its head (or all of it, for what the page can show whole: an image the
 * browser decodes, text), and the text it reads as when it is text. `size` is the value's
 * size when `bytes` holds only part of it (read from a value source).
 */
export function bytesView(
  bytes: Uint8Array,
  size: number,
  mediaType: string | undefined,
  limits: Limits,
): ViewValue {
  const showsWhole = !!mediaType && /^(image|text)\/|json|xml/.test(mediaType);
  const take = Math.min(bytes.byteLength, showsWhole && size <= limits.whole ? limits.whole : limits.head);
  const head = bytes.slice(0, take);
  const text = asText(bytes.subarray(0, Math.min(bytes.byteLength, limits.text)), mediaType);
  return {
    kind: 'bytes',
    size,
    head,
    complete: take >= size,
    ...(mediaType ? { mediaType } : {}),
    ...(text === undefined ? {} : { text }),
  };
}

/** UTF-8 text without control characters (tabs and line ends allowed), else undefined. */
function asText(bytes: Uint8Array, mediaType: string | undefined): string | undefined {
  if (mediaType?.startsWith('image/')) return undefined;
  let end = bytes.byteLength;
  // A character cut at the end of the head is still text: drop its leading bytes.
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const b = bytes[end - back];
    if (b < 0x80) break;
    if (b >= 0xc0) {
      const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (back < length) end -= back;
      break;
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}
