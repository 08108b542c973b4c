import type { LogicalType, TabularType } from '@binscope/core';
import {
  BoolLeaf,
  BytesLeaf,
  FloatLeaf,
  Int32Leaf,
  Int64Leaf,
  grown,
  type Leaf,
  ValueError,
} from './leaves.js';

/**
 * What encoding a value takes on top of the value itself (a dictionary index, its share of the
 * compressed pages), for the row group's byte budget.
 */
const ENCODING_BYTES = 4;

/**
 * One column of a row group gathered for the column writer (column-chunk.ts): a flat column
 * of a physical type, or a list of such items (Parquet's three-level LIST), as a leaf of
 * typed values with its definition and repetition levels. Columns of other shapes (structs,
 * lists of lists, float16) are left to hyparquet-writer: `fastColumn` gives undefined.
 */
export class FastColumn {
  /** Rows so far. */
  rows = 0;
  /** Level entries so far: one a row, or one an item (or empty or null list) of a list column. */
  slots = 0;
  /** Definition levels (when maxDef > 0) and repetition levels (list columns), one a slot. */
  defs: Uint8Array = new Uint8Array(0);
  reps: Uint8Array = new Uint8Array(0);
  /** List columns: the slot where each row starts. */
  rowStarts: Int32Array = new Int32Array(0);
  readonly maxDef: number;
  readonly maxRep: number;

  constructor(
    readonly leaf: Leaf,
    nullable: boolean,
    private readonly items?: { nullable: boolean },
  ) {
    this.maxDef = (nullable ? 1 : 0) + (items ? 1 + (items.nullable ? 1 : 0) : 0);
    this.maxRep = items ? 1 : 0;
  }

  /** Adds a row's value (null only if the column is nullable). */
  add(value: unknown): void {
    if (this.items) this.addList(value, this.items.nullable);
    else this.addFlat(value);
    this.rows++;
  }

  /**
   * Adds a run of rows' values at once (a column batch's slice): a flat column's values go to
   * the leaf in one call, which copies a typed array of its own type whole.
   */
  addRun(values: ArrayLike<unknown>): void {
    if (this.items) {
      for (let k = 0; k < values.length; k++) this.add(values[k]);
      return;
    }
    this.defs = grown(this.defs, this.slots + values.length);
    this.leaf.pushItems(values, this.defs, this.slots, this.maxDef, this.maxDef > 0);
    this.slots += values.length;
    this.rows += values.length;
  }

  private addFlat(value: unknown): void {
    if (this.maxDef > 0 && this.slots === this.defs.length) this.defs = grown(this.defs, this.slots + 1);
    if (value === null || value === undefined) this.defs[this.slots] = 0;
    else {
      this.leaf.push(value);
      if (this.maxDef > 0) this.defs[this.slots] = 1;
    }
    this.slots++;
  }

  private addList(value: unknown, itemsNullable: boolean): void {
    if (this.rows === this.rowStarts.length) this.rowStarts = grown(this.rowStarts, this.rows + 1);
    this.rowStarts[this.rows] = this.slots;
    if (value === null || value === undefined) {
      this.emptySlot(0);
      return;
    }
    if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView)))
      throw new ValueError(`expected a list, got ${typeof value}`);
    const items = value as ArrayLike<unknown>;
    // An empty list is defined up to the list itself (1 when the list may be null).
    if (items.length === 0) {
      this.emptySlot(this.maxDef - 1 - (itemsNullable ? 1 : 0));
      return;
    }
    const end = this.slots + items.length;
    this.defs = grown(this.defs, end);
    this.reps = grown(this.reps, end);
    this.reps[this.slots] = 0;
    this.reps.fill(1, this.slots + 1, end);
    this.leaf.pushItems(items, this.defs, this.slots, this.maxDef, itemsNullable);
    this.slots = end;
  }

  private emptySlot(definition: number): void {
    this.defs = grown(this.defs, this.slots + 1);
    this.reps = grown(this.reps, this.slots + 1);
    this.defs[this.slots] = definition;
    this.reps[this.slots] = 0;
    this.slots++;
  }

  /** Slots without a value (nulls, null items, empty lists): each value has its slot. */
  get nulls(): number {
    return this.slots - this.leaf.count;
  }

  /** Bytes the column holds, and what encoding it will take. */
  memory(): number {
    const levelBytes = (this.maxDef > 0 ? 1 : 0) + this.maxRep;
    return this.leaf.memory() + this.slots * levelBytes + this.leaf.count * ENCODING_BYTES;
  }

  /** Empty again, keeping its buffers for the next row group. */
  clear(): void {
    this.leaf.clear();
    this.rows = 0;
    this.slots = 0;
  }
}

function leafOf(type: TabularType): Leaf | undefined {
  switch (type.kind) {
    case 'int':
      return type.bits === 64 ? new Int64Leaf(!type.signed) : new Int32Leaf(type.bits === 32 && !type.signed);
    case 'float':
      return type.bits === 16 ? undefined : new FloatLeaf(type.bits);
    case 'bool':
      return new BoolLeaf();
    case 'string':
    case 'json':
    case 'bytes':
      return new BytesLeaf();
    default:
      return undefined;
  }
}

/**
 * Whether typed arrays hold numbers little-endian, as Parquet does: the column writer hands
 * their bytes over as they are, so on a big-endian machine hyparquet-writer writes every column.
 */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** The column writer's column for a field of `type`, when it has one (see FastColumn). */
export function fastColumn(type: TabularType, nullable: boolean): FastColumn | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  if (type.kind === 'list') {
    const leaf = leafOf(type.items.type);
    return leaf && new FastColumn(leaf, nullable, { nullable: type.items.nullable });
  }
  const leaf = leafOf(type);
  return leaf && new FastColumn(leaf, nullable);
}

/**
 * Whether a value of `type` is its own tabular value (core's tabularValue hands numbers, bools,
 * strings and bytes, and lists of them, over as they are), so the row group can skip the call.
 */
export function isOwnTabularValue(type: LogicalType): boolean {
  switch (type.kind) {
    case 'int':
    case 'float':
    case 'bool':
    case 'string':
    case 'bytes':
      return true;
    case 'list':
      return isOwnTabularValue(type.items);
    default:
      return false;
  }
}
