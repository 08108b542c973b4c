import { FormatError, type JsonValue, type LogicalType, type NumericArray, type Value } from '@binscope/core';
import {
  type DataType,
  type Dictionary,
  type Field as ArrowField,
  type StructRow,
  Type,
  type Vector,
} from 'apache-arrow';
import { logicalOf } from './schema-in.js';

/**
 * One column's values as core Values, by the logical type schema-in.ts gave its field: a
 * value comes from apache-arrow's vector `get` (which decodes dictionaries, Float16 and
 * nested types) and is turned into what core's records hold (bigint for 64-bit integers,
 * parsed JSON, ndarrays as typed arrays with their shape).
 */
export class ColumnReader {
  private readonly mapped: ReturnType<typeof logicalOf>;
  private readonly children: ColumnReader[];

  constructor(private readonly field: ArrowField) {
    this.mapped = logicalOf(field);
    this.children = childFields(field.type).map((f) => new ColumnReader(f));
  }

  get type(): LogicalType {
    return this.mapped.type;
  }

  /** The value at `row` of `vector` (a column of this field). */
  value(vector: Vector, row: number): Value {
    return this.convert(vector.get(row));
  }

  /**
   * Values [from, to) of `vector` (null: the batch lacks the column): the vector's own typed
   * array where every value is a plain number of the field's type (integers and 32/64-bit
   * floats, no nulls, one chunk: what `value` would give, element for element), else each
   * value as `value` gives it.
   */
  values(vector: Vector | null, from: number, to: number): ArrayLike<Value> {
    if (vector && vector.nullCount === 0 && vector.data.length === 1 && this.plainNumbers(vector.type)) {
      const data = vector.data[0];
      return (data.values as NumericArray).subarray(data.offset + from, data.offset + to);
    }
    const out: Value[] = new Array(to - from);
    for (let r = from; r < to; r++) out[r - from] = vector ? this.value(vector, r) : null;
    return out;
  }

  private plainNumbers(type: DataType): boolean {
    if (this.mapped.asText) return false;
    const kind = this.mapped.type.kind;
    if (type.typeId === Type.Int) return kind === 'int';
    // Float16 is a Uint16Array of half-float bits; its values are decoded numbers.
    return (
      type.typeId === Type.Float &&
      kind === 'float' &&
      (type as unknown as { precision: number }).precision !== 0
    );
  }

  convert(raw: unknown): Value {
    if (raw === null || raw === undefined) return null;
    if (this.mapped.asText) return String(raw);
    const type = this.mapped.type;
    switch (type.kind) {
      case 'int':
        return type.bits === 64 ? int64(raw) : (raw as number);
      case 'json':
        return parseJson(raw as string, this.field.name);
      case 'ndarray':
        return { dtype: type.dtype, shape: type.shape ?? [], data: numeric(raw as Vector, type.dtype) };
      case 'list': {
        const items = raw as Vector;
        const out: Value[] = new Array(items.length);
        for (let i = 0; i < items.length; i++) out[i] = this.children[0].convert(items.get(i));
        return out;
      }
      case 'struct': {
        const row = raw as StructRow;
        const out: Record<string, Value> = {};
        for (const child of this.children)
          out[child.field.name] = child.convert(row[child.field.name as never]);
        return out;
      }
      default:
        return raw as Value;
    }
  }
}

function childFields(type: DataType): readonly ArrowField[] {
  if (type.typeId === Type.Dictionary) return childFields((type as Dictionary).dictionary);
  return (type.children ?? []) as readonly ArrowField[];
}

/** A 64-bit integer as core holds it: bigint, or the number apache-arrow gives for a date/time. */
function int64(raw: unknown): Value {
  if (typeof raw === 'bigint') return raw;
  const n = raw as number;
  return Number.isSafeInteger(n) ? n : BigInt(Math.trunc(n));
}

function parseJson(text: string, name: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new FormatError(
      'InvalidValue',
      `field ${JSON.stringify(name)} is marked arrow.json but holds text that is not JSON`,
    );
  }
}

/** A fixed-size list's items as a typed array (Float16 widened to Float32, as core's ndarrays hold it). */
function numeric(items: Vector, dtype: string): NumericArray {
  if (dtype === 'f16') {
    const out = new Float32Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = items.get(i) as number;
    return out;
  }
  return items.toArray() as NumericArray;
}
