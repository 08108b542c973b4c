import { type FormatError, type InspectNode, node, type ReadOptions } from '@binscope/core';
import { type TableInfo, UdfDataset, type UdfReader, type UnloadedDataset } from './read.js';
import { DESCRIPTOR_SIZE, FILE_HEADER_SIZE, LOOKUP_ENTRY_SIZE, STATIC_HEADER_SIZE } from './types.js';

/** Lists up to this many children inline; longer lists load a page at a time. */
const INLINE_CHILDREN = 256;

function list<T>(
  name: string,
  kind: string,
  offset: number,
  length: number,
  items: readonly T[],
  build: (item: T, i: number) => InspectNode,
  value?: string | number,
): InspectNode {
  if (items.length <= INLINE_CHILDREN)
    return node(name, kind, offset, length, { value, children: items.map(build) });
  return node(name, kind, offset, length, {
    value,
    lazy: {
      count: items.length,
      load: async (start, end) => items.slice(start, end).map((item, i) => build(item, start + i)),
    },
  });
}

const field = (name: string, offset: number, length: number, value: string | number | null) =>
  node(name, 'field', offset, length, { value });

function describeType(t: TableInfo): string {
  return `${t.prim}${t.dims ? `[${t.shape.slice(0, t.dims).join('×')}]` : ''}${t.ghostDims ? ` ghost [${t.shape.slice(t.dims).join('×')}]` : ''}${t.hint === 'none' ? '' : ` ${t.hint}`}`;
}

function descriptorNode(t: TableInfo, problem?: FormatError): InspectNode {
  const at = t.descriptorOffset;
  // A table that breaks a rule is shown with its error; the others read as usual (U15).
  const error = problem
    ? [node('error', 'error', problem.offset ?? at, 0, { value: `${problem.code}: ${problem.detail}` })]
    : [];
  return node(t.name, 'descriptor', at, DESCRIPTOR_SIZE, {
    value: problem ? `${describeType(t)} (${problem.code})` : describeType(t),
    children: [
      ...error,
      field('key_name', at, 4, t.name),
      field(
        'type_info',
        at + 4,
        2,
        `0x${t.typeInfo.toString(16).padStart(4, '0')} (${t.prim}, ${t.dims}D, ${t.hint})`,
      ),
      field('compress_info', at + 6, 2, t.compressInfo),
      field('mem_start', at + 8, 4, t.memStart),
      field('mem_end', at + 0x0c, 4, t.memEnd),
      field('data_size', at + 0x10, 4, t.dataSize),
      field('data_shape', at + 0x14, 8, `[${t.dataShapeRaw.join(', ')}] → [${t.shape.join(', ')}]`),
      field('index_name', at + 0x1c, 4, t.indexName),
      field('related_name', at + 0x20, 4, t.relatedName),
      field('type_name', at + 0x24, 4, t.typeName),
      field('checksum', at + 0x28, 4, t.checksum),
      field('reserved', at + 0x2c, 4, t.reserved),
    ],
  });
}

export function datasetNode(d: UdfDataset): InspectNode {
  const base = d.fileOffset.offset;
  const h = d.header;
  const lookupAt = base + STATIC_HEADER_SIZE + DESCRIPTOR_SIZE * h.descsLen;
  const stringsAt = lookupAt + LOOKUP_ENTRY_SIZE * h.lookupLen;
  const dataAt = base + h.headerSize;
  const byOffset = [...d.tables].sort((a, b) => a.dataOffset - b.dataOffset || a.index - b.index);
  return node(`dataset ${JSON.stringify(h.id)}`, 'dataset', base, d.fileOffset.size, {
    value: `${h.descsLen} tables`,
    children: [
      node('header', 'header', base, STATIC_HEADER_SIZE, {
        children: [
          field('check', base, 4, `0x${h.check.toString(16)}`),
          field('checksum', base + 4, 4, h.checksum),
          field('id', base + 8, 4, h.id),
          field('header_size', base + 0x0c, 2, h.headerSize),
          field('descs_len', base + 0x0e, 2, h.descsLen),
          field('lookup_len', base + 0x10, 2, h.lookupLen),
          field('string_len', base + 0x12, 2, h.stringLen),
          field('reserved', base + 0x14, 4, h.reserved.join(', ')),
        ],
      }),
      list(
        'descriptors',
        'table',
        base + STATIC_HEADER_SIZE,
        DESCRIPTOR_SIZE * h.descsLen,
        d.tables,
        (t) => descriptorNode(t, d.broken.get(t.index)),
        h.descsLen,
      ),
      list(
        'lookup',
        'table',
        lookupAt,
        LOOKUP_ENTRY_SIZE * h.lookupLen,
        d.names,
        (e, i) =>
          node(JSON.stringify(e.string), 'entry', lookupAt + i * LOOKUP_ENTRY_SIZE, LOOKUP_ENTRY_SIZE, {
            value: `hash ${e.hash}, string ${e.offset}+${e.len}`,
          }),
        h.lookupLen,
      ),
      list('strings', 'block', stringsAt, h.stringLen, d.names, (e) =>
        node(JSON.stringify(e.string), 'string', stringsAt + e.offset, e.len, { value: e.string }),
      ),
      list('data', 'block', dataAt, d.fileOffset.size - h.headerSize, byOffset, (t) =>
        node(t.name, 'array', t.dataOffset, t.dataSize, { value: describeType(t) }),
      ),
    ],
  });
}

/** A dataset that cannot be loaded, shown at the FileOffset that points at it (U15). */
function unloadedNode({ ref, error }: UnloadedDataset): InspectNode {
  return node(`dataset at ${ref.at.offset}`, 'error', ref.from, 16, {
    value: `${error.code}: ${error.detail}`,
  });
}

/** File header → datasets (walk order) → header / descriptors / lookup / strings / table data. */
export async function inspectUdf(reader: UdfReader, _options: ReadOptions = {}): Promise<InspectNode> {
  const h = reader.header;
  const size = reader.source.size;
  const datasets: (UdfDataset | UnloadedDataset)[] = [];
  for await (const d of reader.walkReporting()) datasets.push(d);
  const rootValue = h.root ? `${h.root.offset} + ${h.root.size}` : 'null';
  return node(reader.source.name, 'file', 0, size, {
    value: 'UDF0',
    children: [
      node('file header', 'header', 0, FILE_HEADER_SIZE, {
        children: [
          field('magic', 0, 4, h.magic),
          field('id', 4, 4, h.id),
          field('next', 8, 8, h.next.toString()),
          node('root', 'field', 0x10, 16, {
            value: rootValue,
            children: [
              field('offset', 0x10, 8, h.root?.offset ?? 0),
              field('size', 0x18, 8, h.root?.size ?? 0),
            ],
          }),
          field('reserved', 0x20, 32, h.reserved.join(', ')),
        ],
      }),
      list(
        'datasets',
        'group',
        FILE_HEADER_SIZE,
        Math.max(0, size - FILE_HEADER_SIZE),
        datasets,
        (d) => (d instanceof UdfDataset ? datasetNode(d) : unloadedNode(d)),
        datasets.length,
      ),
    ],
  });
}
