import {
  type ByteSource,
  type InspectNode,
  markProblem,
  node,
  type Problem,
  readExact,
} from '@binscope/core';
import { readU64, toHex } from '@binscope/core/binary';
import {
  ALLOC_ENTRY_SIZE,
  DESCRIPTOR_SIZE,
  FORMAT_ID,
  HEADER_OFFSET,
  type MldfField,
  type MldfHeader,
  typeName,
} from './layout.js';

const DATA_TYPES = new Set(['BYTES', 'NDARRAY', 'JSON', 'IMAGE_RAW', 'TEXT_RAW']);

/** What the tree's lazy rows and values are read from, and the problems to mark on them. */
export interface RowContext {
  source: ByteSource;
  header: MldfHeader;
  fields: readonly MldfField[];
  rowSize: number;
  /** Rows whose bytes are in the file (num_samples for a sound file). */
  rows: number;
  /**
   * The file's errors: a value node in the data region also carries those of its metadata
   * struct (a pointer past the region). Core marks the rest as the nodes load.
   */
  problems: readonly Problem[];
}

type HeaderField = [name: string, rel: number, length: number, value: (view: DataView) => string | number];

const HEADER_FIELDS: readonly HeaderField[] = [
  ['version_major', 0, 2, (v) => v.getUint16(0, true)],
  ['version_minor', 2, 2, (v) => v.getUint16(2, true)],
  ['flags', 4, 4, (v) => `0x${v.getUint32(4, true).toString(16)}`],
  ['num_samples', 8, 8, (v) => readU64(v, 8)],
  ['num_fields', 16, 2, (v) => v.getUint16(16, true)],
  ['_pad1', 18, 2, (v) => v.getUint16(18, true)],
  ['page_size', 20, 4, (v) => v.getUint32(20, true)],
  ['field_desc_ptr', 24, 8, (v) => readU64(v, 24)],
  ['metadata_ptr', 32, 8, (v) => readU64(v, 32)],
  ['data_ptr', 40, 8, (v) => readU64(v, 40)],
  ['alloc_table_ptr', 48, 8, (v) => readU64(v, 48)],
  ['_reserved', 56, 8, (v) => toHex(new Uint8Array(v.buffer, v.byteOffset + 56, 8))],
];

/** The header's fields whose bytes are in `head` (all of them unless the file is shorter). */
export function headerFieldNodes(head: Uint8Array): InspectNode[] {
  const available = head.byteLength - HEADER_OFFSET;
  if (available <= 0) return [];
  const view = new DataView(head.buffer, head.byteOffset + HEADER_OFFSET, available);
  return HEADER_FIELDS.filter(([, rel, length]) => rel + length <= available).map(
    ([name, rel, length, value]) => node(name, 'field', HEADER_OFFSET + rel, length, { value: value(view) }),
  );
}

export function pad(children: InspectNode[], from: number, to: number): void {
  if (to > from) children.push(node('padding', 'padding', from, to - from));
}

export function descriptorNode(f: MldfField): InspectNode {
  const base = f.descriptorOffset;
  const kids = [
    node('name', 'field', base, 64, { value: f.name }),
    node('type_id', 'field', base + 64, 2, { value: `${f.typeId} (${typeName(f.typeId)})` }),
    node('flags', 'field', base + 66, 2, { value: f.flags }),
    node('metadata_size', 'field', base + 68, 4, { value: f.metadataSize }),
    node('_pad', 'field', base + 72, 4, { value: 0 }),
    node('arguments', 'field', base + 76, 128, {
      value: f.ndarray ? `${f.ndarray.dtype} [${f.ndarray.shape.join(', ')}]` : 'none',
      children: f.ndarray
        ? [
            node('dtype', 'field', base + 76, 8, { value: f.ndarray.dtype }),
            node('ndim', 'field', base + 84, 4, { value: f.ndarray.shape.length }),
            node('_reserved', 'field', base + 88, 4, { value: 0 }),
            node('shape', 'field', base + 92, 64, { value: `[${f.ndarray.shape.join(', ')}]` }),
          ]
        : undefined,
    }),
    node('_tail', 'field', base + 204, 4, { value: 0 }),
  ];
  return node(f.name, 'descriptor', base, DESCRIPTOR_SIZE, { value: typeName(f.typeId), children: kids });
}

/** A descriptor that did not parse: its raw fields, so the defect's bytes have a node to sit on. */
export function rawDescriptorNode(bytes: Uint8Array, index: number, base: number): InspectNode {
  const view = new DataView(bytes.buffer, bytes.byteOffset, DESCRIPTOR_SIZE);
  const kids = [
    node('name', 'field', base, 64),
    node('type_id', 'field', base + 64, 2, { value: typeName(view.getUint16(64, true)) }),
    node('flags', 'field', base + 66, 2, { value: view.getUint16(66, true) }),
    node('metadata_size', 'field', base + 68, 4, { value: view.getUint32(68, true) }),
    node('_pad', 'field', base + 72, 4, { value: view.getUint32(72, true) }),
    node('arguments', 'field', base + 76, 128),
    node('_tail', 'field', base + 204, 4, { value: view.getUint32(204, true) }),
  ];
  return node(`field ${index}`, 'descriptor', base, DESCRIPTOR_SIZE, { value: 'not parsed', children: kids });
}

interface Row {
  view: DataView;
  pos: number;
  offset: number;
}

export async function readRows(ctx: RowContext, start: number, end: number): Promise<Row[]> {
  end = Math.min(end, ctx.rows);
  if (end <= start) return [];
  const offset = ctx.header.metadataPtr + start * ctx.rowSize;
  const bytes = await readExact(ctx.source, offset, (end - start) * ctx.rowSize, {
    format: FORMAT_ID,
    what: 'metadata table',
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: end - start }, (_, k) => ({
    view,
    pos: k * ctx.rowSize,
    offset: offset + k * ctx.rowSize,
  }));
}

/** Problems whose offset lies in [from, to). */
function problemsIn(ctx: RowContext, from: number, to: number): Problem[] {
  return ctx.problems.filter((p) => p.offset !== undefined && p.offset >= from && p.offset < to);
}

export function metadataRowNode(ctx: RowContext, index: number, row: Row): InspectNode {
  const kids = ctx.fields.map((f) => valueStructNode(f, row));
  return node(`row ${index}`, 'row', row.offset, ctx.rowSize, { children: kids });
}

function valueStructNode(f: MldfField, row: Row): InspectNode {
  const p = row.pos + f.metadataOffset;
  const at = row.offset + f.metadataOffset;
  if (f.type === 'INT')
    return node(f.name, 'value', at, 8, { value: row.view.getBigInt64(p, true).toString() });
  if (f.type === 'FLOAT') return node(f.name, 'value', at, 8, { value: row.view.getFloat64(p, true) });
  const ptr = readU64(row.view, p);
  const size = row.view.getUint32(p + 8, true);
  const parts = [
    node('data_ptr', 'field', at, 8, { value: ptr }),
    node('data_size', 'field', at + 8, 4, { value: size }),
  ];
  if (f.type === 'IMAGE_RAW') {
    parts.push(
      node('height', 'field', at + 12, 2, { value: row.view.getUint16(p + 12, true) }),
      node('width', 'field', at + 14, 2, { value: row.view.getUint16(p + 14, true) }),
      node('channels', 'field', at + 16, 1, { value: row.view.getUint8(p + 16) }),
      node('mode', 'field', at + 17, 1, { value: row.view.getUint8(p + 17) }),
      node('_pad', 'field', at + 18, 6, { value: row.view.getUint16(p + 22, true) }),
    );
  } else if (f.type === 'TEXT_RAW') {
    parts.push(
      node('num_tokens', 'field', at + 12, 2, { value: row.view.getUint16(p + 12, true) }),
      node('encoding', 'field', at + 14, 1, { value: row.view.getUint8(p + 14) }),
      node('_pad', 'field', at + 15, 1, { value: row.view.getUint8(p + 15) }),
    );
  } else {
    parts.push(node('_pad', 'field', at + 12, 4, { value: row.view.getUint32(p + 12, true) }));
  }
  return node(f.name, 'value', at, f.metadataSize, { value: `${size} bytes at ${ptr}`, children: parts });
}

/**
 * A sample's values in the data region. A value whose range runs past the file keeps its node,
 * clamped to the file, and carries the problems of its metadata struct.
 */
export function sampleDataNode(ctx: RowContext, index: number, row: Row): InspectNode {
  const fileSize = ctx.source.size;
  const kids: InspectNode[] = [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const f of ctx.fields) {
    if (!DATA_TYPES.has(f.type)) continue;
    const p = row.pos + f.metadataOffset;
    const ptr = readU64(row.view, p);
    const size = row.view.getUint32(p + 8, true);
    if (size === 0) continue;
    const start = Math.min(ptr, fileSize);
    const end = Math.min(ptr + size, fileSize);
    const value = node(f.name, f.type.toLowerCase(), start, end - start, { value: `${size} bytes` });
    const struct = row.offset + f.metadataOffset;
    // The struct's problems (a pointer past the region) are the value's too; the payload's own
    // (bad UTF-8 at ptr) core marks by offset.
    for (const problem of problemsIn(ctx, struct, struct + f.metadataSize)) markProblem(value, problem);
    kids.push(value);
    lo = Math.min(lo, start);
    hi = Math.max(hi, end);
  }
  return node(`sample ${index}`, 'sample', kids.length ? lo : ctx.header.dataPtr, kids.length ? hi - lo : 0, {
    value: `${kids.length} values`,
    children: kids,
  });
}

export async function allocationEntryNodes(
  source: ByteSource,
  allocTablePtr: number,
  start: number,
  end: number,
): Promise<InspectNode[]> {
  const at = allocTablePtr + start * ALLOC_ENTRY_SIZE;
  const bytes = await readExact(source, at, (end - start) * ALLOC_ENTRY_SIZE, {
    format: FORMAT_ID,
    what: 'allocation table',
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: InspectNode[] = [];
  for (let k = 0; k < end - start; k++) {
    const ptr = readU64(view, k * ALLOC_ENTRY_SIZE);
    const length = view.getUint32(k * ALLOC_ENTRY_SIZE + 8, true);
    const base = at + k * ALLOC_ENTRY_SIZE;
    out.push(
      node(`entry ${start + k}`, 'entry', base, ALLOC_ENTRY_SIZE, {
        value: `ptr ${ptr}, size ${length}`,
        children: [
          node('ptr', 'field', base, 8, { value: ptr }),
          node('size', 'field', base + 8, 4, { value: length }),
          node('_pad', 'field', base + 12, 4, {
            value: view.getUint32(k * ALLOC_ENTRY_SIZE + 12, true),
          }),
        ],
      }),
    );
  }
  return out;
}
