import type { ByteSink, NumericArray } from '@binscope/core';
import { alignUp, typedArrayBytes } from '@binscope/core/binary';
import { type CompressOption, compressOptionId, encodeCompressed } from './compress-encode.js';
import { ghostsAllowed, HINT_GHOST_RANGE, minGhosts } from './shape-rules.js';
import {
  DESCRIPTOR_SIZE,
  encodeId,
  FILE_HEADER_SIZE,
  type FileOffset,
  HINT_GHOSTS,
  HINT_PRIMS,
  HINT_VALUE,
  type Hint,
  hashName,
  hintName,
  LOOKUP_ENTRY_SIZE,
  type Prim,
  STATIC_HEADER_SIZE,
} from './types.js';
import {
  type DatasetLayout,
  encodeDatasetHeader,
  encodeRefs,
  type Plan,
  Staging,
  setU64,
  typedArrayFor,
} from './write-encode.js';

export type TextEncoding = 'utf8' | 'utf16' | 'utf32';

/** A table as the builder takes it. `shape` is the full shape: declared axes, then ghost axes. */
export interface TableSpec {
  prim: Prim;
  /** Elements in row-major order (a typed array of the primitive, or plain numbers/bigints); raw bytes for `custom`. */
  data: NumericArray | readonly number[] | readonly bigint[];
  /** Declared and ghost axes; default `[data.length]`. */
  shape?: readonly number[];
  /** Declared dimensions (0 scalar .. 3); default: the shape's length minus the hint's ghost axes. */
  dims?: number;
  /** A hint name, or a raw hint value (custom hints are ≥ 32). Default 'none'. */
  hint?: Exclude<Hint, 'custom'> | number;
  /** INDEX/RANGE: the 1D table of this dataset the values index into. */
  indexName?: string;
  /** Structure of Arrays: a table with the same declared shape. */
  relatedName?: string;
  /** Free-form type information ("vec2<f32>"). */
  typeName?: string;
  /** Opaque descriptor checksum (U4); 0 = absent. */
  checksum?: number;
  /** Store the data compressed with one of the udf crate's schemes (U12); SimpleF32 is lossy. */
  compress?: CompressOption;
}

export interface DatasetOptions {
  /** Up to 4 printable ASCII characters. */
  id?: string;
  /** Opaque header checksum (U4); 0 = absent. */
  checksum?: number;
}

interface PendingTable {
  name: string;
  prim: Prim;
  dims: number;
  hintValue: number;
  shape: number[];
  /** Encoded bytes, or the referenced datasets of a DATASET table (resolved at layout). */
  bytes?: Uint8Array;
  refs?: readonly (UdfDatasetBuilder | null)[];
  /** INDEX/RANGE values, checked against their target at layout. */
  values?: NumericArray;
  dataSize: number;
  compressInfo: number;
  indexName?: string;
  relatedName?: string;
  typeName?: string;
  checksum: number;
}

const MAX_U16 = 0xffff;
const utf8 = new TextEncoder();

/** One dataset under construction: named tables added in descriptor order. */
export class UdfDatasetBuilder {
  readonly tables: PendingTable[] = [];
  id: string;
  checksum: number;

  /** @internal created through UdfBuilder.dataset() */
  constructor(
    readonly file: UdfBuilder,
    options: DatasetOptions = {},
  ) {
    encodeId(options.id ?? '');
    this.id = options.id ?? '';
    this.checksum = options.checksum ?? 0;
  }

  /** Adds a table of any primitive, shape and hint. */
  table(name: string, spec: TableSpec): this {
    const hintValue = typeof spec.hint === 'number' ? spec.hint : HINT_VALUE[spec.hint ?? 'none'];
    if (!Number.isInteger(hintValue) || hintValue < 0 || hintValue > 63)
      throw new RangeError(`hint ${spec.hint} is not 0..63`);
    const hint = hintName(hintValue);
    const known = hintValue < 10;
    if (hint === 'dataset')
      throw new TypeError('use datasets() for DATASET tables: offsets are assigned at layout');
    const allowed = known ? HINT_PRIMS[hint] : undefined;
    if (allowed && !allowed.includes(spec.prim)) {
      throw new TypeError(
        `table ${JSON.stringify(name)}: a ${hint} table cannot hold ${spec.prim} (allowed: ${allowed.join(', ')})`,
      );
    }
    const values = typedArrayFor(spec.prim, spec.data);
    const shape = [...(spec.shape ?? [values.length])];
    const ghosts = known ? (HINT_GHOSTS[hint] ?? 0) : 0;
    const dims = spec.dims ?? shape.length - ghosts;
    checkShape(name, shape, dims);
    const range = known ? HINT_GHOST_RANGE[hint] : undefined;
    if (range && !ghostsAllowed(hint, shape.length - dims) && values.length > 0) {
      const wanted = range[0] === range[1] ? `${range[0]}` : `${range[0]} to ${range[1]}`;
      throw new RangeError(
        `table ${JSON.stringify(name)}: a ${hint} table needs ${wanted} ghost axes after its ${dims} declared`,
      );
    }
    if (spec.prim !== 'custom') {
      // A hint's element axis left out (a list of empty strings) holds no elements.
      const count = known && shape.length - dims < minGhosts(hint) ? 0 : shape.reduce((a, b) => a * b, 1);
      if (count !== values.length) {
        throw new RangeError(
          `table ${JSON.stringify(name)}: shape [${shape.join(', ')}] holds ${count} elements, data has ${values.length}`,
        );
      }
    }
    if ((hint === 'index' || hint === 'range') && known) {
      if (!spec.indexName)
        throw new TypeError(`table ${JSON.stringify(name)}: a ${hint} table needs indexName`);
    } else if (spec.indexName !== undefined) {
      throw new TypeError(`table ${JSON.stringify(name)}: indexName is only for INDEX and RANGE tables`);
    }
    const bytes = spec.compress
      ? encodeCompressed(name, spec.prim, values, spec.compress)
      : typedArrayBytes(values);
    this.push({
      name,
      prim: spec.prim,
      dims,
      hintValue,
      shape,
      bytes,
      values: hint === 'index' || hint === 'range' ? values : undefined,
      dataSize: bytes.byteLength,
      compressInfo: spec.compress ? compressOptionId(spec.compress) : 0,
      indexName: spec.indexName,
      relatedName: spec.relatedName,
      typeName: spec.typeName,
      checksum: spec.checksum ?? 0,
    });
    return this;
  }

  /** A TEXT table: one string (scalar) or a list of strings, NUL-padded to the longest. */
  text(
    name: string,
    value: string | readonly string[],
    options: Pick<TableSpec, 'relatedName' | 'typeName' | 'checksum'> & {
      encoding?: TextEncoding;
      signed?: boolean;
    } = {},
  ): this {
    const encoding = options.encoding ?? 'utf8';
    const prim: Prim =
      encoding === 'utf8' ? (options.signed ? 'i8' : 'u8') : encoding === 'utf16' ? 'u16' : 'u32';
    const encode = (s: string): NumericArray =>
      encoding === 'utf8'
        ? utf8.encode(s)
        : encoding === 'utf16'
          ? Uint16Array.from({ length: s.length }, (_, i) => s.charCodeAt(i))
          : Uint32Array.from(s, (c) => c.codePointAt(0)!);
    const base = {
      prim,
      hint: 'text' as const,
      relatedName: options.relatedName,
      typeName: options.typeName,
      checksum: options.checksum,
    };
    if (typeof value === 'string') {
      const units = encode(value);
      const data = prim === 'i8' ? new Int8Array(units.buffer, units.byteOffset, units.length) : units;
      return this.table(name, { ...base, data, dims: 0, shape: units.length ? [units.length] : [] });
    }
    const rows = value.map((s) => {
      if (/\0$/.test(s))
        throw new RangeError(
          `table ${JSON.stringify(name)}: list strings cannot end in NUL (it is the padding)`,
        );
      return encode(s);
    });
    const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
    const Ctor = { u8: Uint8Array, i8: Int8Array, u16: Uint16Array, u32: Uint32Array }[prim as 'u8'];
    const data = new Ctor(rows.length * width);
    rows.forEach((r, i) => {
      data.set(r as Uint8Array, i * width);
    });
    return this.table(name, { ...base, data, dims: 1, shape: width ? [rows.length, width] : [rows.length] });
  }

  /**
   * A JSON table (U11): compact JSON.stringify text unless `text` gives the serialized form.
   * Arrays are 1D with x = their length; anything else is a scalar.
   */
  json(
    name: string,
    value: unknown,
    options: Pick<TableSpec, 'relatedName' | 'typeName' | 'checksum'> & { dims?: number; text?: string } = {},
  ): this {
    const text = options.text ?? JSON.stringify(value);
    if (text === undefined)
      throw new TypeError(`table ${JSON.stringify(name)}: value is not JSON-serializable`);
    const dims = options.dims ?? (Array.isArray(value) ? 1 : 0);
    const shape: number[] = [];
    let level: unknown = value;
    for (let axis = 0; axis < dims; axis++) {
      if (!Array.isArray(level))
        throw new TypeError(`table ${JSON.stringify(name)}: a ${dims}D JSON table needs nested arrays`);
      shape.push(level.length);
      level = level[0];
    }
    return this.table(name, {
      prim: 'custom',
      hint: 'json',
      dims,
      shape,
      data: utf8.encode(text),
      relatedName: options.relatedName,
      typeName: options.typeName,
      checksum: options.checksum,
    });
  }

  /**
   * A DATASET table: FileOffsets of other datasets of this file (null for a null entry),
   * assigned when the file is laid out. Cycles and shared children are fine.
   */
  datasets(
    name: string,
    children: readonly (UdfDatasetBuilder | null)[],
    options: Pick<TableSpec, 'relatedName' | 'typeName' | 'checksum'> & { scalar?: boolean } = {},
  ): this {
    for (const child of children) {
      if (child && child.file !== this.file)
        throw new TypeError(`table ${JSON.stringify(name)}: a child dataset belongs to another file`);
    }
    const scalar = options.scalar ?? false;
    if (scalar && children.length !== 1)
      throw new RangeError('a scalar DATASET table holds exactly one FileOffset');
    this.push({
      name,
      prim: 'u64',
      dims: scalar ? 0 : 1,
      hintValue: HINT_VALUE.dataset,
      shape: scalar ? [2] : [children.length, 2],
      refs: [...children],
      dataSize: children.length * 16,
      compressInfo: 0,
      relatedName: options.relatedName,
      typeName: options.typeName,
      checksum: options.checksum ?? 0,
    });
    return this;
  }

  /** INDEX/RANGE targets (U13) and related tables (U14) must hold, or readers would reject the file. */
  private checkRelations(): void {
    const byName = new Map<string, PendingTable>();
    for (const t of this.tables) if (!byName.has(t.name)) byName.set(t.name, t);
    for (const t of this.tables) {
      const label = `table ${JSON.stringify(t.name)}`;
      if (t.indexName !== undefined) {
        const target = byName.get(t.indexName);
        if (!target)
          throw new TypeError(
            `${label}: its index target ${JSON.stringify(t.indexName)} is not a table of this dataset`,
          );
        if (target.dims !== 1)
          throw new TypeError(`${label}: its index target ${JSON.stringify(t.indexName)} must be 1D`);
        const length = target.shape[0];
        const values = t.values!;
        const range = t.hintValue === HINT_VALUE.range;
        for (let i = 0; i < values.length; i++) {
          const v = Number(values[i]);
          const bad = range ? v > length || (i % 2 === 0 && v > Number(values[i + 1])) : v >= length;
          if (bad)
            throw new RangeError(`${label}: value ${values[i]} at ${i} does not fit target length ${length}`);
        }
      }
      if (t.relatedName !== undefined) {
        const related = byName.get(t.relatedName);
        if (!related)
          throw new TypeError(
            `${label}: related table ${JSON.stringify(t.relatedName)} is not a table of this dataset`,
          );
        const mine = t.shape.slice(0, t.dims).join(',');
        if (related.dims !== t.dims || related.shape.slice(0, related.dims).join(',') !== mine) {
          throw new RangeError(
            `${label}: related table ${JSON.stringify(t.relatedName)} has another declared shape`,
          );
        }
      }
    }
  }

  private push(table: PendingTable): void {
    if (this.tables.length >= MAX_U16)
      throw new RangeError(`dataset ${JSON.stringify(this.id)}: at most 65535 tables`);
    if (table.dataSize > 0xffffffff)
      throw new RangeError(`table ${JSON.stringify(table.name)}: data over 4 GiB (split it over datasets)`);
    this.tables.push(table);
  }

  /** Names in order of first use (key, index, related, type), as the reference writer lays them out. */
  private names(): string[] {
    const seen = new Set<string>();
    for (const t of this.tables) {
      for (const n of [t.name, t.indexName, t.relatedName, t.typeName]) if (n !== undefined) seen.add(n);
    }
    return [...seen];
  }

  /** @internal sizes and encoded header parts; independent of where datasets land. */
  layout(): DatasetLayout {
    this.checkRelations();
    const names = this.names();
    const hashes = new Map<string, number>();
    const byHash = new Map<number, string>();
    const strings: Uint8Array[] = [];
    const entries: { hash: number; offset: number; len: number }[] = [];
    let stringPos = 0;
    for (const name of names) {
      const bytes = utf8.encode(name);
      const hash = hashName(bytes);
      const clash = byHash.get(hash);
      if (clash !== undefined) {
        throw new RangeError(
          `dataset ${JSON.stringify(this.id)}: names ${JSON.stringify(clash)} and ${JSON.stringify(name)} have the same hash ${hash}`,
        );
      }
      if (hash === 0) throw new RangeError(`name ${JSON.stringify(name)} hashes to 0, which UDF reserves`);
      byHash.set(hash, name);
      hashes.set(name, hash);
      entries.push({ hash, offset: stringPos, len: bytes.byteLength });
      strings.push(bytes);
      stringPos += bytes.byteLength;
    }
    entries.sort((a, b) => a.hash - b.hash);
    const stringLen = alignUp(stringPos, 8);
    const headerSize =
      STATIC_HEADER_SIZE +
      DESCRIPTOR_SIZE * this.tables.length +
      LOOKUP_ENTRY_SIZE * entries.length +
      stringLen;
    if (
      stringLen > MAX_U16 ||
      headerSize > MAX_U16 ||
      entries.some((e) => e.offset > MAX_U16 || e.len > MAX_U16)
    ) {
      throw new RangeError(
        `dataset ${JSON.stringify(this.id)}: the header (${headerSize} bytes) exceeds UDF's 65535-byte limit`,
      );
    }
    const mem: [number, number][] = [];
    let block = 0;
    for (const t of this.tables) {
      if (t.dataSize === 0) {
        mem.push([0, 0]);
        continue;
      }
      const blocks = Math.ceil(t.dataSize / 8);
      mem.push([block, block + blocks]);
      block += blocks;
    }
    if (block > 0xffffffff)
      throw new RangeError(
        `dataset ${JSON.stringify(this.id)}: storage over 32 GiB (split it over datasets)`,
      );
    return {
      hashes,
      entries,
      strings,
      stringLen,
      headerSize,
      mem,
      size: alignUp(headerSize + block * 8, 16),
    };
  }
}

function checkShape(name: string, shape: readonly number[], dims: number): void {
  const label = `table ${JSON.stringify(name)}`;
  if (!Number.isInteger(dims) || dims < 0 || dims > 3)
    throw new RangeError(`${label}: dims ${dims} is not 0..3`);
  if (shape.length > 3 || shape.length < dims)
    throw new RangeError(`${label}: shape [${shape.join(', ')}] does not fit ${dims} declared axes in 3`);
  const limits = [0xffffffff, 0xffffff, 0xff];
  shape.forEach((n, i) => {
    if (!Number.isInteger(n) || n < 0 || n > limits[i])
      throw new RangeError(`${label}: axis ${i} = ${n} exceeds UDF's data_shape field (max ${limits[i]})`);
    if (i >= dims && n === 0) throw new RangeError(`${label}: ghost axis ${i} is 0`);
  });
}

export interface UdfBuilderOptions {
  /** The file id: up to 4 printable ASCII characters. */
  id?: string;
}

/**
 * Builds a UDF file: datasets with named tables, DATASET references between them, a root.
 * Layout (U1–U3, U6): file header, then the datasets reachable from the root in post-order
 * (children before the parents that point at them, as the reference writer does), then any
 * unreferenced ones in creation order; each 16-aligned, tables 8-padded in descriptor order.
 */
export class UdfBuilder {
  readonly id: string;
  readonly datasetList: UdfDatasetBuilder[] = [];
  root: UdfDatasetBuilder | null = null;

  constructor(options: UdfBuilderOptions = {}) {
    encodeId(options.id ?? '');
    this.id = options.id ?? '';
  }

  dataset(options: DatasetOptions = {}): UdfDatasetBuilder {
    const d = new UdfDatasetBuilder(this, options);
    this.datasetList.push(d);
    return d;
  }

  setRoot(root: UdfDatasetBuilder | null): this {
    if (root && root.file !== this) throw new TypeError('the root dataset belongs to another file');
    this.root = root;
    return this;
  }

  /** Where each dataset goes, in file order. */
  plan(): Plan {
    const order: UdfDatasetBuilder[] = [];
    const placed = new Set<UdfDatasetBuilder>();
    const visit = (start: UdfDatasetBuilder): void => {
      // Iterative post-order so deep chains cannot overflow the stack.
      const stack: { d: UdfDatasetBuilder; next: UdfDatasetBuilder[]; i: number }[] = [];
      const entered = new Set<UdfDatasetBuilder>();
      const enter = (d: UdfDatasetBuilder) => {
        entered.add(d);
        stack.push({
          d,
          next: d.tables.flatMap((t) => (t.refs ?? []).filter((r): r is UdfDatasetBuilder => r !== null)),
          i: 0,
        });
      };
      if (placed.has(start)) return;
      enter(start);
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (top.i < top.next.length) {
          const child = top.next[top.i++];
          if (!placed.has(child) && !entered.has(child)) enter(child);
          continue;
        }
        stack.pop();
        placed.add(top.d);
        order.push(top.d);
      }
    };
    if (this.root) visit(this.root);
    for (const d of this.datasetList) visit(d);
    const layouts = new Map<UdfDatasetBuilder, DatasetLayout>();
    const offsets = new Map<UdfDatasetBuilder, FileOffset>();
    let pos = FILE_HEADER_SIZE;
    for (const d of order) {
      const layout = d.layout();
      layouts.set(d, layout);
      offsets.set(d, { offset: pos, size: layout.size });
      pos += layout.size;
    }
    return { order, layouts, offsets, size: pos };
  }

  /** Writes the whole file into a sink (a Node AtomicFile, a MemorySink, ...). */
  async write(sink: ByteSink): Promise<void> {
    const plan = this.plan();
    const out = new Staging(sink);
    await out.put(this.fileHeader(plan));
    for (const d of plan.order) {
      const layout = plan.layouts.get(d)!;
      await out.put(encodeDatasetHeader(d, layout));
      let written = layout.headerSize;
      for (let i = 0; i < d.tables.length; i++) {
        const t = d.tables[i];
        if (t.dataSize === 0) continue;
        const bytes = t.bytes ?? encodeRefs(t.refs!, plan);
        await out.put(bytes);
        const padded = (layout.mem[i][1] - layout.mem[i][0]) * 8;
        await out.zeros(padded - bytes.byteLength);
        written += padded;
      }
      await out.zeros(layout.size - written);
    }
    await out.flush();
  }

  /** The whole file in memory. */
  toBytes(): Uint8Array {
    const plan = this.plan();
    const out = new Uint8Array(plan.size);
    out.set(this.fileHeader(plan), 0);
    for (const d of plan.order) {
      const layout = plan.layouts.get(d)!;
      const at = plan.offsets.get(d)!.offset;
      out.set(encodeDatasetHeader(d, layout), at);
      d.tables.forEach((t, i) => {
        if (t.dataSize > 0)
          out.set(t.bytes ?? encodeRefs(t.refs!, plan), at + layout.headerSize + layout.mem[i][0] * 8);
      });
    }
    return out;
  }

  private fileHeader(plan: Plan): Uint8Array {
    const out = new Uint8Array(FILE_HEADER_SIZE);
    out.set([0x55, 0x44, 0x46, 0x30], 0);
    out.set(encodeId(this.id), 4);
    const root = this.root ? plan.offsets.get(this.root)! : { offset: 0, size: 0 };
    const view = new DataView(out.buffer);
    setU64(view, 0x10, root.offset);
    setU64(view, 0x18, root.size);
    return out;
  }
}
