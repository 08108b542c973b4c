/**
 * How each field of any format's records becomes an SCBF column (records → SCBF), and the
 * refusals for what SCBF cannot hold. Browser-safe.
 *
 * Always: int8/16/32 and uint8/16 → int32 (exact); float16/32/64 → float64 (exact widening);
 * string → utf8. With `--cast`: int64/uint32/uint64 → int32 when every value fits, else
 * float64 when every value is exactly a double, else refused naming the first value that is
 * neither; bool → int32 0/1; json → utf8 of its JSON text (a JSON null: `null`). Bytes, images, ndarrays, lists and
 * structs are refused whatever the options. A null is refused unless `--nulls`, which stores
 * it in the null bitmap of an int32/float64 column (a utf8 column has no null bitmap in SCBF).
 */
import {
  type Field,
  FormatError,
  fieldTypeName,
  type JsonValue,
  jsonLine,
  type LogicalType,
  type Value,
} from '@binscope/core';
import type { ScbfType } from './layout.js';
import { isWellFormed } from './write.js';

/** Where errors point: the input's name, and the format the records came from. */
export interface RecordsPlace {
  file: string;
  format: string;
}

/** A wide integer column under `--cast`: its SCBF type is only known once every value is seen. */
export type WideInt = 'wide';

/** One output column: its field, its SCBF type (or `wide` until surveyed) and how a value becomes a cell. */
export interface ColumnPlan {
  field: Field;
  type: ScbfType | WideInt;
  /** json: null is a JSON value (its text `null`), not a missing one. */
  nullIsValue?: boolean;
  cell(value: Value, row: number): number | string;
}

function refuse(place: RecordsPlace, message: string, code: 'UnsupportedFeature' | 'InvalidValue') {
  return new FormatError(code, message, { file: place.file, format: place.format });
}

function describe(field: Field): string {
  return `column "${field.name}" (${fieldTypeName(field)})`;
}

/** The field's SCBF column, or the typed error saying why SCBF cannot hold it. */
export function planColumn(field: Field, cast: boolean, place: RecordsPlace): ColumnPlan {
  const type = field.type;
  const unsupported = (hint: string) =>
    refuse(
      place,
      `${describe(field)}: SCBF holds int32, float64 and utf8 columns only; ${hint}`,
      'UnsupportedFeature',
    );
  switch (type.kind) {
    case 'int':
      if (type.bits <= 16 || (type.bits === 32 && type.signed))
        return { field, type: 'int32', cell: (v, row) => smallInt(v, type, field, row, place) };
      if (!cast) throw unsupported('pass --cast to store it as int32 when every value fits, else float64');
      return { field, type: 'wide', cell: (v) => (typeof v === 'bigint' ? Number(v) : (v as number)) };
    case 'float':
      return { field, type: 'float64', cell: (v, row) => floatValue(v, field, row, place) };
    case 'string':
      return { field, type: 'utf8', cell: (v, row) => text(v, field, row, place) };
    case 'bool':
      if (!cast) throw unsupported('pass --cast to store it as int32 0/1');
      return { field, type: 'int32', cell: (v) => (v === true ? 1 : 0) };
    case 'json':
      if (!cast) throw unsupported('pass --cast to store its JSON text as utf8');
      return { field, type: 'utf8', nullIsValue: true, cell: (v) => jsonLine(v as JsonValue) };
    default:
      throw unsupported(`${kindWord(type)} values have no SCBF form, even with --cast`);
  }
}

function kindWord(type: LogicalType): string {
  return type.kind === 'ndarray' ? 'array' : type.kind;
}

function badValue(field: Field, row: number, value: unknown, place: RecordsPlace, what: string) {
  const shown = typeof value === 'bigint' ? String(value) : JSON.stringify(value);
  return refuse(
    place,
    `${describe(field)} row ${row}: ${shown?.slice(0, 60)} is not ${what}`,
    'InvalidValue',
  );
}

/** An int of at most 32 bits, checked against its own range (a value outside it is the input's defect). */
function smallInt(
  value: unknown,
  type: { bits: number; signed: boolean },
  field: Field,
  row: number,
  place: RecordsPlace,
): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  const min = type.signed ? -(2 ** (type.bits - 1)) : 0;
  const max = type.signed ? 2 ** (type.bits - 1) - 1 : 2 ** type.bits - 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw badValue(field, row, value, place, `an ${type.signed ? 'int' : 'uint'}${type.bits}`);
  return n;
}

function floatValue(value: unknown, field: Field, row: number, place: RecordsPlace): number {
  if (typeof value !== 'number') throw badValue(field, row, value, place, 'a number');
  return value;
}

function text(value: unknown, field: Field, row: number, place: RecordsPlace): string {
  if (typeof value !== 'string') throw badValue(field, row, value, place, 'a string');
  if (!isWellFormed(value)) throw badValue(field, row, value, place, 'well-formed text (a lone surrogate)');
  return value;
}

/** What a wide integer column's values allow, value by value (`--cast`). */
export class WideSurvey {
  type: 'int32' | 'float64' = 'int32';

  constructor(
    readonly field: Field,
    private readonly place: RecordsPlace,
  ) {}

  see(value: Value | undefined, row: number): void {
    if (value === null || value === undefined) return;
    if (typeof value !== 'bigint' && (typeof value !== 'number' || !Number.isInteger(value)))
      throw badValue(this.field, row, value, this.place, 'an integer');
    if (fitsInt32(value)) return;
    if (isExactDouble(value)) {
      this.type = 'float64';
      return;
    }
    throw refuse(
      this.place,
      `${describe(this.field)} row ${row}: ${value} is neither an int32 nor exactly a float64; --cast cannot store it in SCBF`,
      'InvalidValue',
    );
  }
}

function fitsInt32(value: number | bigint): boolean {
  return typeof value === 'bigint'
    ? value >= -2147483648n && value <= 2147483647n
    : value >= -2147483648 && value <= 2147483647;
}

function isExactDouble(value: number | bigint): boolean {
  return typeof value === 'number' || BigInt(Number(value)) === value;
}

/** A null where no null is allowed: without `--nulls`, or in a utf8 column (no null bitmap there). A json null is a value. */
export function nullRefused(
  plan: ColumnPlan,
  type: ScbfType,
  row: number,
  nulls: boolean,
  place: RecordsPlace,
): FormatError {
  const where = `${describe(plan.field)} row ${row} is null`;
  const message = !nulls
    ? `${where}: SCBF v1 has no nulls; pass --nulls to store them as null bitmaps (extension footer)`
    : `${where}: SCBF null bitmaps are for int32/float64 columns, and this column is ${type}`;
  return refuse(place, message, 'InvalidValue');
}
