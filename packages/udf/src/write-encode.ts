import type { ByteSink, NumericArray } from '@binscope/core';
import { TYPED_ARRAY } from '@binscope/core/binary';
import {
  DATASET_CHECK,
  DESCRIPTOR_SIZE,
  encodeId,
  encodeShape,
  type FileOffset,
  LOOKUP_ENTRY_SIZE,
  packTypeInfo,
  type Prim,
  STATIC_HEADER_SIZE,
} from './types.js';
import type { TableSpec, UdfDatasetBuilder } from './write.js';

/** Byte encoding of what the builders planned: dataset headers, DATASET tables, staged output. */

/** @internal */
export interface DatasetLayout {
  hashes: Map<string, number>;
  entries: { hash: number; offset: number; len: number }[];
  strings: Uint8Array[];
  stringLen: number;
  headerSize: number;
  mem: [number, number][];
  /** header + storage rounded up to 16 (U1). */
  size: number;
}

/** @internal */
export interface Plan {
  order: UdfDatasetBuilder[];
  layouts: Map<UdfDatasetBuilder, DatasetLayout>;
  offsets: Map<UdfDatasetBuilder, FileOffset>;
  size: number;
}

export function setU64(view: DataView, pos: number, value: number): void {
  view.setUint32(pos, value % 2 ** 32, true);
  view.setUint32(pos + 4, Math.floor(value / 2 ** 32), true);
}

export function encodeRefs(refs: readonly (UdfDatasetBuilder | null)[], plan: Plan): Uint8Array {
  const out = new Uint8Array(refs.length * 16);
  const view = new DataView(out.buffer);
  refs.forEach((r, i) => {
    const at = r ? plan.offsets.get(r)! : { offset: 0, size: 0 };
    setU64(view, i * 16, at.offset);
    setU64(view, i * 16 + 8, at.size);
  });
  return out;
}

export function encodeDatasetHeader(d: UdfDatasetBuilder, layout: DatasetLayout): Uint8Array {
  const out = new Uint8Array(layout.headerSize);
  const view = new DataView(out.buffer);
  view.setUint32(0, DATASET_CHECK, true);
  view.setUint32(4, d.checksum >>> 0, true);
  out.set(encodeId(d.id), 8);
  view.setUint16(0x0c, layout.headerSize, true);
  view.setUint16(0x0e, d.tables.length, true);
  view.setUint16(0x10, layout.entries.length, true);
  view.setUint16(0x12, layout.stringLen, true);
  const hash = (name: string | undefined) => (name === undefined ? 0 : layout.hashes.get(name)!);
  d.tables.forEach((t, i) => {
    const pos = STATIC_HEADER_SIZE + i * DESCRIPTOR_SIZE;
    const [raw0, raw1] = encodeShape(t.shape);
    view.setUint32(pos, hash(t.name), true);
    view.setUint16(pos + 4, packTypeInfo(t.prim, t.dims, t.hintValue), true);
    view.setUint16(pos + 6, t.compressInfo, true);
    view.setUint32(pos + 8, layout.mem[i][0], true);
    view.setUint32(pos + 0x0c, layout.mem[i][1], true);
    view.setUint32(pos + 0x10, t.dataSize, true);
    view.setUint32(pos + 0x14, raw0, true);
    view.setUint32(pos + 0x18, raw1, true);
    view.setUint32(pos + 0x1c, hash(t.indexName), true);
    view.setUint32(pos + 0x20, hash(t.relatedName), true);
    view.setUint32(pos + 0x24, hash(t.typeName), true);
    view.setUint32(pos + 0x28, t.checksum >>> 0, true);
  });
  let pos = STATIC_HEADER_SIZE + d.tables.length * DESCRIPTOR_SIZE;
  for (const e of layout.entries) {
    view.setUint32(pos, e.hash, true);
    view.setUint16(pos + 4, e.offset, true);
    view.setUint16(pos + 6, e.len, true);
    pos += LOOKUP_ENTRY_SIZE;
  }
  for (const s of layout.strings) {
    out.set(s, pos);
    pos += s.byteLength;
  }
  return out;
}

/** Collects small writes into 1 MiB chunks; large table data goes to the sink as is. */
export class Staging {
  private buffer = new Uint8Array(1 << 20);
  private used = 0;
  constructor(private readonly sink: ByteSink) {}
  async put(bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength >= this.buffer.byteLength) {
      await this.flush();
      await this.sink.write(bytes);
      return;
    }
    if (this.used + bytes.byteLength > this.buffer.byteLength) await this.flush();
    this.buffer.set(bytes, this.used);
    this.used += bytes.byteLength;
  }
  async zeros(n: number): Promise<void> {
    if (n <= 0) return;
    if (this.used + n > this.buffer.byteLength) await this.flush();
    this.buffer.fill(0, this.used, this.used + n);
    this.used += n;
  }
  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.sink.write(this.buffer.subarray(0, this.used));
    // A sink may hold on to what it was given; never overwrite it.
    this.buffer = new Uint8Array(this.buffer.byteLength);
    this.used = 0;
  }
}

/** A table spec's data as the typed array of its primitive. */
export function typedArrayFor(prim: Prim, data: TableSpec['data']): NumericArray {
  const ctor = prim === 'custom' ? Uint8Array : TYPED_ARRAY[prim];
  if (data instanceof ctor) return data as NumericArray;
  if (prim === 'custom') {
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw new TypeError('a custom-primitive table takes raw bytes (Uint8Array)');
  }
  const items = Array.from(data as ArrayLike<number | bigint>);
  if (prim === 'u64' || prim === 'i64') {
    return new (ctor as BigUint64ArrayConstructor)(items.map((v) => BigInt(v))) as NumericArray;
  }
  return new (ctor as Float64ArrayConstructor)(items.map((v) => Number(v))) as NumericArray;
}
