import {
  type Awaitable,
  type FormatError,
  type NumericArray,
  type Problem,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import type { DatasetHeader, NameEntry } from './dataset-header.js';
import { decodeFileOffsets, decodeTable, pushRefs, tableLabel, type UdfTable } from './decode.js';
import type { TableInfo } from './descriptor.js';
import type { UdfReader } from './read.js';
import { sliceValues } from './stored.js';
import { type FileOffset, FORMAT_ID, PRIM_SIZE } from './types.js';
import type { DatasetRef } from './walk.js';

/** One dataset: its header, names and table descriptors. Table data is read on demand. */
export class UdfDataset {
  private readonly byName: Map<string, TableInfo>;

  constructor(
    readonly reader: UdfReader,
    readonly fileOffset: FileOffset,
    readonly header: DatasetHeader,
    readonly names: NameEntry[],
    readonly tables: TableInfo[],
    readonly warnings: Problem[],
    /** The whole dataset's bytes when it was small enough to fetch at once. */
    private readonly whole: Uint8Array | undefined,
    /** Tables whose descriptor failed a check, with the first problem: reading them throws it. */
    readonly broken: ReadonlyMap<number, FormatError> = new Map(),
    /** @internal the first table of each name, when the caller has built it already. */
    byName?: Map<string, TableInfo>,
  ) {
    if (byName) this.byName = byName;
    else {
      this.byName = new Map();
      for (const t of tables) if (!this.byName.has(t.name)) this.byName.set(t.name, t);
    }
  }

  get id(): string {
    return this.header.id;
  }

  tableNames(): string[] {
    return this.tables.map((t) => t.name);
  }

  /** The descriptor of the first table with this name. */
  table(name: string): TableInfo | undefined {
    return this.byName.get(name);
  }

  /** The stored bytes of one table; reads nothing else. Synchronous when the source is. */
  readBytes(table: string | TableInfo, options: ReadOptions = {}): Awaitable<Uint8Array> {
    const info = this.resolve(table);
    if (this.whole) return this.inMemory(info);
    return readExact(this.reader.source, info.dataOffset, info.dataSize, {
      format: FORMAT_ID,
      what: `table ${JSON.stringify(info.name)}`,
      signal: options.signal,
    });
  }

  /** Elements [start, end) of a primitive table, reading only their bytes (a slice of a big table). */
  readValues(
    table: string | TableInfo,
    start = 0,
    end = Number.POSITIVE_INFINITY,
    options: ReadOptions = {},
  ): Awaitable<NumericArray> {
    const info = this.resolve(table);
    const { prim } = info;
    if (prim === 'custom')
      throw new TypeError(`table ${JSON.stringify(info.name)} has a custom primitive: read its bytes`);
    if (info.compressInfo !== 0) {
      const decoded = this.read(info, options);
      return decoded instanceof Promise
        ? decoded.then((t) => sliceValues(t.values!, start, end))
        : sliceValues(decoded.values!, start, end);
    }
    const size = PRIM_SIZE[prim];
    const count = Math.floor(info.dataSize / size);
    const from = Math.min(Math.max(0, Math.floor(start)), count);
    const to = Math.min(Math.max(from, Math.floor(end)), count);
    if (this.whole) {
      const at = info.dataOffset - this.fileOffset.offset + from * size;
      return toTypedArray(this.whole.subarray(at, at + (to - from) * size), prim);
    }
    const bytes = readExact(this.reader.source, info.dataOffset + from * size, (to - from) * size, {
      format: FORMAT_ID,
      what: `table ${JSON.stringify(info.name)}`,
      signal: options.signal,
    });
    return bytes instanceof Promise ? bytes.then((b) => toTypedArray(b, prim)) : toTypedArray(bytes, prim);
  }

  /**
   * Reads and decodes one table per its type hint; payload problems raise FormatError.
   * Synchronous when the dataset was read whole or the source answers synchronously.
   */
  read(table: string | TableInfo, options: ReadOptions = {}): Awaitable<UdfTable> {
    const info = this.resolve(table);
    if (this.whole) return decodeTable(this, info, this.inMemory(info));
    const bytes = this.readBytes(info, options);
    return bytes instanceof Promise
      ? bytes.then((b) => decodeTable(this, info, b))
      : decodeTable(this, info, bytes);
  }

  /** @internal */
  inMemory(info: TableInfo): Uint8Array {
    const whole = this.whole!;
    // A plain view (cheaper than Buffer#subarray, which builds a Buffer).
    return new Uint8Array(
      whole.buffer,
      whole.byteOffset + info.dataOffset - this.fileOffset.offset,
      info.dataSize,
    );
  }

  /**
   * The datasets this one references through its DATASET tables, in U7 order. Synchronous
   * when the dataset was read whole or the source answers synchronously.
   */
  children(options: ReadOptions = {}): Awaitable<DatasetRef[]> {
    return this.collectChildren(0, [], options);
  }

  private collectChildren(first: number, out: DatasetRef[], options: ReadOptions): Awaitable<DatasetRef[]> {
    const { tables } = this;
    for (let i = first; i < tables.length; i++) {
      const info = tables[i];
      if (info.hint !== 'dataset' || this.broken.has(info.index)) continue;
      const bytes = this.readBytes(info, options);
      if (bytes instanceof Promise) {
        return bytes.then((b) => {
          pushRefs(out, decodeFileOffsets(this, info, b, tableLabel(info)), info);
          return this.collectChildren(i + 1, out, options);
        });
      }
      pushRefs(out, decodeFileOffsets(this, info, bytes, tableLabel(info)), info);
    }
    return out;
  }

  private resolve(table: string | TableInfo): TableInfo {
    const info = typeof table === 'string' ? this.byName.get(table) : table;
    if (!info) {
      throw new RangeError(
        `dataset ${JSON.stringify(this.id)} at ${this.fileOffset.offset} has no table ${JSON.stringify(table)}`,
      );
    }
    const problem = this.broken.get(info.index);
    if (problem) throw problem;
    return info;
  }
}
