import { toHex } from './hex.js';
import { type JsonValue, jsonLine, jsonSourceOf, toJsonValue } from './json.js';
import {
  type DataRecord,
  type Field,
  fieldsByName,
  type ImageValue,
  type LogicalType,
  type NdArrayValue,
  type Schema,
  type Value,
} from './schema.js';

/** A record as the CLI and the web page print it. */
export type JsonRecord = { [key: string]: JsonValue };

/** ndarray values up to this many elements are printed in full; larger ones as size + sha256. */
export const INLINE_ELEMENTS = 1024;

/**
 * A record as JSON, by its schema alone (the A5 conventions): 64-bit integers beyond 2^53 as
 * decimal strings, non-finite floats as "NaN"/"Infinity"/"-Infinity", -0 kept as a number (a
 * printer that cares writes it `-0.0`); bytes as `{size, sha256}`; an image as `{height,
 * width, channels, mode, size, sha256}`; an ndarray as `{dtype, shape, values}` up to 1024
 * elements, else `{dtype, shape, size, sha256}`; json as it is (the same object, so a source
 * text it keeps reaches `jsonLine`); lists and structs element by
 * element. Fields come in the order the record holds them (the schema's, or the `columns` a
 * caller asked for); absent ones are left out. A record that stands in for one the format
 * could not read gets `error: {code, message, offset}`. A promise: hashing is asynchronous
 * (Web Crypto), and records without bytes resolve without doing any.
 */
export async function recordToJson(schema: Schema, record: DataRecord): Promise<JsonRecord> {
  const fields = fieldsByName(schema);
  const out: JsonRecord = {};
  let pending: Array<Promise<void>> | undefined;
  for (const name in record.values) {
    const value = record.values[name];
    if (value === undefined) continue;
    const json = valueToJson(fields.get(name)?.type, value);
    if (json instanceof Promise) {
      out[name] = null; // holds the key's place, so fields keep their order
      (pending ??= []).push(json.then((v) => void (out[name] = v)));
    } else out[name] = json;
  }
  if (pending) await Promise.all(pending);
  if (record.problem) {
    const { code, message, offset } = record.problem;
    out.error = { code, message, offset: offset ?? null };
  }
  return out;
}

/** One value as JSON by its logical type (a promise only when bytes are hashed). */
export function valueToJson(type: LogicalType | undefined, value: Value): JsonValue | Promise<JsonValue> {
  if (value === null) return null;
  switch (type?.kind) {
    case 'bytes':
      return value instanceof Uint8Array ? digest(value) : toJsonValue(value);
    case 'image':
      return imageJson(value as ImageValue);
    case 'ndarray':
      return ndarrayJson(value as NdArrayValue);
    case 'json':
      return value as JsonValue;
    case 'list':
      return listJson(type.items, value as readonly Value[]);
    case 'struct':
      return structJson(type.fields, value as { readonly [key: string]: Value });
    default:
      // Numbers (non-finite ones as strings, -0 kept), bigints (beyond 2^53 as strings), text, bools.
      return typeof value === 'number' && Number.isFinite(value) ? value : toJsonValue(value);
  }
}

async function imageJson(image: ImageValue): Promise<JsonValue> {
  const head: JsonRecord = { height: image.height, width: image.width, channels: image.channels };
  if (image.mode !== undefined) head.mode = image.mode;
  return { ...head, ...(await digest(image.pixels)) };
}

function ndarrayJson(array: NdArrayValue): JsonValue | Promise<JsonValue> {
  const head = { dtype: array.dtypeName ?? array.dtype, shape: [...array.shape] };
  const { data } = array;
  if (data.length <= INLINE_ELEMENTS) return { ...head, values: toJsonValue(data) };
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return digest(bytes).then((d) => ({ ...head, ...d }));
}

function listJson(items: LogicalType, values: readonly Value[]): JsonValue | Promise<JsonValue> {
  const out = values.map((v) => valueToJson(items, v));
  return out.some((v) => v instanceof Promise) ? Promise.all(out) : (out as JsonValue[]);
}

function structJson(
  fields: readonly Field[],
  value: { readonly [key: string]: Value },
): JsonValue | Promise<JsonValue> {
  const types = new Map(fields.map((f) => [f.name, f.type]));
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  const out = entries.map(([k, v]) => valueToJson(types.get(k), v));
  const build = (values: JsonValue[]) => Object.fromEntries(entries.map(([k], i) => [k, values[i]]));
  return out.some((v) => v instanceof Promise) ? Promise.all(out).then(build) : build(out as JsonValue[]);
}

async function digest(bytes: Uint8Array): Promise<{ size: number; sha256: string }> {
  const hash = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return { size: bytes.byteLength, sha256: toHex(new Uint8Array(hash)) };
}

/** Longest text a cell shows before it is cut with "…". */
const CELL_TEXT = 200;
/** Elements an ndarray or list cell shows. */
const CELL_ITEMS = 6;

/**
 * A value as one line of text for a table cell or a plain CSV field, by its logical type and
 * without hashing anything: '' for null or absent, numbers as JavaScript writes them (-0 as
 * "-0"), bytes as their size, an image as its dimensions, an ndarray as dtype, shape and the
 * first elements, JSON compact; control characters escaped, long text cut with "…".
 */
export function cellText(type: LogicalType | undefined, value: Value | undefined): string {
  if (value === null || value === undefined) return '';
  switch (type?.kind) {
    case 'bytes':
      return value instanceof Uint8Array ? `${value.byteLength} bytes` : clipCell(String(value));
    case 'image': {
      const image = value as ImageValue;
      return `${image.width}×${image.height}×${image.channels} image`;
    }
    case 'ndarray': {
      const array = value as NdArrayValue;
      const first = Array.from(array.data.subarray(0, CELL_ITEMS) as ArrayLike<number | bigint>, numberText);
      const more = array.data.length > CELL_ITEMS ? ', …' : '';
      return `${array.dtypeName ?? array.dtype}[${array.shape.join('×')}] ${first.join(', ')}${more}`;
    }
    case 'list': {
      const items = value as readonly Value[];
      const shown = items.slice(0, CELL_ITEMS).map((v) => cellText(type.items, v));
      return clipCell(`[${shown.join(', ')}${items.length > CELL_ITEMS ? ', …' : ''}]`);
    }
    case 'json':
    case 'struct':
      // JSON that keeps its source text shows it as stored (withJsonSource).
      return clipCell(
        jsonSourceOf(value) === undefined ? JSON.stringify(toJsonValue(value)) : jsonLine(value as JsonValue),
      );
    default:
      return typeof value === 'number' || typeof value === 'bigint'
        ? numberText(value)
        : clipCell(typeof value === 'string' ? value : JSON.stringify(toJsonValue(value)));
  }
}

/** Cells of a record, one per field named (default: every field of the schema), by cellText. */
export function recordCells(schema: Schema, record: DataRecord, columns?: readonly string[]): string[] {
  const fields = fieldsByName(schema);
  const names = columns ?? schema.fields.map((f) => f.name);
  return names.map((name) => cellText(fields.get(name)?.type, record.values[name]));
}

function numberText(value: number | bigint): string {
  return typeof value === 'number' && Object.is(value, -0) ? '-0' : String(value);
}

function clipCell(text: string): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return escaped.length <= CELL_TEXT ? escaped : `${escaped.slice(0, CELL_TEXT - 1)}…`;
}
