import { type InspectNode, node, readExact, readU64, toHex } from '@binscope/core';
import {
  ALLOC_ENTRY_SIZE,
  DESCRIPTOR_SIZE,
  FIELD_DESC_PTR,
  FORMAT_ID,
  HEADER_OFFSET,
  HEADER_SIZE,
  type MldfField,
  typeName,
} from './layout.js';
import type { MldfReader } from './read.js';

const DATA_TYPES = new Set(['BYTES', 'NDARRAY', 'JSON', 'IMAGE_RAW', 'TEXT_RAW']);

/**
 * The structure tree: magic, header fields, descriptors, then metadata rows, data values
 * (grouped by sample) and allocation entries as lazy children, so a file of millions of
 * samples opens instantly. Shows what the bytes say; judging them is validate's job.
 */
export async function inspectMldf(reader: MldfReader): Promise<InspectNode> {
  const { header: h, layout, fields, source } = reader;
  const size = source.size;
  const hdr = (name: string, rel: number, length: number, value: string | number) =>
    node(name, 'field', HEADER_OFFSET + rel, length, { value });
  const children: InspectNode[] = [
    node('magic', 'magic', 0, HEADER_OFFSET, { value: '\\x89MLDF\\r\\n\\x1a\\n' }),
    node('header', 'header', HEADER_OFFSET, HEADER_SIZE, {
      value: `MLDF ${h.versionMajor}.${h.versionMinor}`,
      children: [
        hdr('version_major', 0, 2, h.versionMajor),
        hdr('version_minor', 2, 2, h.versionMinor),
        hdr('flags', 4, 4, `0x${h.flags.toString(16)}`),
        hdr('num_samples', 8, 8, h.numSamples),
        hdr('num_fields', 16, 2, h.numFields),
        hdr('_pad1', 18, 2, h.pad1),
        hdr('page_size', 20, 4, h.pageSize),
        hdr('field_desc_ptr', 24, 8, h.fieldDescPtr),
        hdr('metadata_ptr', 32, 8, h.metadataPtr),
        hdr('data_ptr', 40, 8, h.dataPtr),
        hdr('alloc_table_ptr', 48, 8, h.allocTablePtr),
        hdr('_reserved', 56, 8, toHex(h.reserved)),
      ],
    }),
    node('field descriptors', 'table', FIELD_DESC_PTR, DESCRIPTOR_SIZE * fields.length, {
      value: `${fields.length} fields`,
      children: fields.map(descriptorNode),
    }),
  ];
  pad(children, layout.descriptorsEnd, Math.min(h.metadataPtr, size));

  const rowSize = layout.rowSize;
  const rowsInFile = rowSize === 0 ? 0 : h.numSamples;
  children.push(
    node('metadata table', 'table', Math.min(h.metadataPtr, size), rowsInFile * rowSize, {
      value: `${h.numSamples} rows × ${rowSize} bytes`,
      lazy: rowsInFile
        ? {
            count: rowsInFile,
            load: async (start, end) => {
              const rows = await readRows(reader, start, end);
              return rows.map((row, k) => metadataRowNode(reader, start + k, row));
            },
          }
        : undefined,
    }),
  );
  if (rowsInFile > 0) pad(children, layout.metadataEnd, Math.min(h.dataPtr, size));

  const dataLength = layout.dataEnd - h.dataPtr;
  children.push(
    node('data region', 'region', Math.min(h.dataPtr, size), dataLength, {
      value: `${dataLength} bytes`,
      lazy:
        dataLength > 0 && h.numSamples > 0
          ? {
              count: h.numSamples,
              load: async (start, end) => {
                const rows = await readRows(reader, start, end);
                return rows.map((row, k) => sampleDataNode(reader, start + k, row));
              },
            }
          : undefined,
    }),
  );
  children.push(
    node('allocation table', 'table', Math.min(h.allocTablePtr, size), layout.allocCount * ALLOC_ENTRY_SIZE, {
      value: `${layout.allocCount} entries`,
      lazy: layout.allocCount
        ? {
            count: layout.allocCount,
            load: async (start, end) => {
              end = Math.min(end, layout.allocCount);
              const at = h.allocTablePtr + start * ALLOC_ENTRY_SIZE;
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
            },
          }
        : undefined,
    }),
  );
  return node(source.name, 'file', 0, size, {
    value: `MLDF ${h.versionMajor}.${h.versionMinor}, ${h.numSamples} samples × ${fields.length} fields`,
    children,
  });
}

function pad(children: InspectNode[], from: number, to: number): void {
  if (to > from) children.push(node('padding', 'padding', from, to - from));
}

function descriptorNode(f: MldfField): InspectNode {
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

interface Row {
  view: DataView;
  pos: number;
  offset: number;
}

async function readRows(reader: MldfReader, start: number, end: number): Promise<Row[]> {
  end = Math.min(end, reader.numSamples);
  if (end <= start) return [];
  const offset = reader.header.metadataPtr + start * reader.rowSize;
  const bytes = await readExact(reader.source, offset, (end - start) * reader.rowSize, {
    format: FORMAT_ID,
    what: 'metadata table',
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: end - start }, (_, k) => ({
    view,
    pos: k * reader.rowSize,
    offset: offset + k * reader.rowSize,
  }));
}

function metadataRowNode(reader: MldfReader, index: number, row: Row): InspectNode {
  const kids = reader.fields.map((f) => {
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
  });
  return node(`row ${index}`, 'row', row.offset, reader.rowSize, { children: kids });
}

function sampleDataNode(reader: MldfReader, index: number, row: Row): InspectNode {
  const kids: InspectNode[] = [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const f of reader.fields) {
    if (!DATA_TYPES.has(f.type)) continue;
    const p = row.pos + f.metadataOffset;
    const ptr = readU64(row.view, p);
    const size = row.view.getUint32(p + 8, true);
    if (size === 0) continue;
    kids.push(node(f.name, f.type.toLowerCase(), ptr, size, { value: `${size} bytes` }));
    lo = Math.min(lo, ptr);
    hi = Math.max(hi, ptr + size);
  }
  return node(
    `sample ${index}`,
    'sample',
    kids.length ? lo : reader.header.dataPtr,
    kids.length ? hi - lo : 0,
    {
      value: `${kids.length} values`,
      children: kids,
    },
  );
}
