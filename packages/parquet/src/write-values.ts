import type { TabularType, TabularValue } from '@binscope/core';

const encoder = new TextEncoder();

/**
 * A column value as hyparquet-writer takes it for the element writeSchema made of `type`:
 * 64-bit integers as bigint (a safe number is widened exactly; never through a double), JSON
 * as its UTF-8 bytes, lists as plain arrays (the writer walks only arrays, not typed arrays).
 * Everything else passes as it is.
 */
export function columnValue(value: TabularValue, type: TabularType): unknown {
  if (value === null) return null;
  switch (type.kind) {
    case 'int':
      if (type.bits === 64) return typeof value === 'bigint' ? value : BigInt(value as number);
      return typeof value === 'bigint' ? Number(value) : value;
    case 'float':
      // A reader that declares a float column may still hand a large integer over exactly (UDF's
      // catalogue lists any table's elements as float64): the column is a double, so it gets one.
      return typeof value === 'bigint' ? Number(value) : value;
    case 'json':
      return typeof value === 'string' ? encoder.encode(value) : value;
    case 'list': {
      const items = value as ArrayLike<TabularValue>;
      const itemType = type.items.type;
      const out = new Array(items.length);
      for (let i = 0; i < items.length; i++) out[i] = columnValue(items[i], itemType);
      return out;
    }
    case 'struct': {
      const object = value as { readonly [key: string]: TabularValue };
      const out: Record<string, unknown> = {};
      for (const f of type.fields) out[f.name] = columnValue(object[f.name] ?? null, f.type);
      return out;
    }
    default:
      return value;
  }
}

/**
 * About how many bytes a value takes in memory, to close a row group before its values pass
 * the budget: exact for bytes and typed arrays (what makes rows large), rough for the rest.
 */
export function approximateSize(value: TabularValue): number {
  if (value === null) return 1;
  switch (typeof value) {
    case 'string':
      return 16 + value.length * 2;
    case 'number':
    case 'bigint':
    case 'boolean':
      return 8;
  }
  if (ArrayBuffer.isView(value)) return 16 + value.byteLength;
  if (Array.isArray(value)) {
    let size = 16;
    for (const item of value as readonly TabularValue[]) size += approximateSize(item);
    return size;
  }
  let size = 16;
  for (const item of Object.values(value as { [key: string]: TabularValue })) size += approximateSize(item);
  return size;
}
