import {
  type FormatError,
  type InspectNode,
  markProblem,
  node,
  nodesAt,
  type ReadOptions,
} from '@binscope/core';
import { readU64 } from '@binscope/core/binary';
import { UdfDataset } from './dataset.js';
import type { TableInfo } from './descriptor.js';
import { readFileHead } from './header.js';
import type { UdfReader, UnloadedDataset } from './read.js';
import { describeType } from './schema.js';
import type { UdfParse } from './validate.js';
import {
  DESCRIPTOR_SIZE,
  decodeId,
  FILE_HEADER_SIZE,
  LOOKUP_ENTRY_SIZE,
  STATIC_HEADER_SIZE,
} from './types.js';

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

/** Where a dataset that cannot be loaded would be, with its static header where its bytes are there (U15). */
export function unloadedNode(
  { ref, error }: UnloadedDataset,
  fileSize: number,
  head?: Uint8Array,
): InspectNode {
  const { offset, size } = ref.at;
  const value = `${error.code}: ${error.detail}`;
  // A reference past the end of the file has no bytes to show: the reference itself stands in.
  if (!Number.isSafeInteger(offset) || offset >= fileSize || offset < FILE_HEADER_SIZE)
    return node(`dataset at ${offset}`, 'error', ref.from, 16, { value });
  const length = Number.isSafeInteger(size) ? Math.min(size, fileSize - offset) : fileSize - offset;
  const children = head && head.byteLength >= STATIC_HEADER_SIZE ? [staticHeaderNode(offset, head)] : [];
  return node(`dataset at ${offset}`, 'error', offset, length, { value, children });
}

function staticHeaderNode(base: number, head: Uint8Array): InspectNode {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  return node('header', 'header', base, STATIC_HEADER_SIZE, {
    children: [
      field('check', base, 4, `0x${view.getUint32(0, true).toString(16)}`),
      field('checksum', base + 4, 4, view.getUint32(4, true)),
      field('id', base + 8, 4, decodeId(head.subarray(8, 12)).id),
      field('header_size', base + 0x0c, 2, view.getUint16(0x0c, true)),
      field('descs_len', base + 0x0e, 2, view.getUint16(0x0e, true)),
      field('lookup_len', base + 0x10, 2, view.getUint16(0x10, true)),
      field('string_len', base + 0x12, 2, view.getUint16(0x12, true)),
      field('reserved', base + 0x14, 4, `${view.getUint16(0x14, true)}, ${view.getUint16(0x16, true)}`),
    ],
  });
}

/**
 * The 64-byte file header decoded from its raw bytes, so a header that failed a check (a bad
 * magic, a cut file) still shows every field whose bytes are there.
 */
export function fileHeaderNode(head: Uint8Array): InspectNode {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const has = (end: number) => head.byteLength >= end;
  const children: InspectNode[] = [
    field('magic', 0, Math.min(4, head.byteLength), String.fromCharCode(...head.subarray(0, 4))),
  ];
  if (has(8)) children.push(field('id', 4, 4, decodeId(head.subarray(4, 8)).id));
  if (has(16)) children.push(field('next', 8, 8, view.getBigUint64(8, true).toString()));
  if (has(32)) {
    const offset = readU64(view, 0x10);
    const size = readU64(view, 0x18);
    children.push(
      node('root', 'field', 0x10, 16, {
        value: offset === 0 && size === 0 ? 'null' : `${offset} + ${size}`,
        children: [field('offset', 0x10, 8, offset), field('size', 0x18, 8, size)],
      }),
    );
  }
  if (has(FILE_HEADER_SIZE)) {
    const reserved = [0, 1, 2, 3].map((i) => view.getBigUint64(0x20 + i * 8, true));
    children.push(field('reserved', 0x20, 32, reserved.join(', ')));
  }
  return node('file header', 'header', 0, Math.min(FILE_HEADER_SIZE, head.byteLength), { children });
}

/** The file's node: its header, then the datasets in walk order. */
export function fileNode(name: string, size: number, head: Uint8Array, datasets: InspectNode[]): InspectNode {
  return node(name, 'file', 0, size, {
    value: String.fromCharCode(...head.subarray(0, 4)),
    children: [
      fileHeaderNode(head),
      list(
        'datasets',
        'group',
        FILE_HEADER_SIZE,
        Math.max(0, size - FILE_HEADER_SIZE),
        datasets,
        (d) => d,
        datasets.length,
      ),
    ],
  });
}

/** File header → datasets (walk order) → header / descriptors / lookup / strings / table data. */
export async function inspectUdf(reader: UdfReader, options: ReadOptions = {}): Promise<InspectNode> {
  const { source } = reader;
  const datasets: InspectNode[] = [];
  for await (const d of reader.walkReporting())
    datasets.push(d instanceof UdfDataset ? datasetNode(d) : unloadedNode(d, source.size));
  return fileNode(source.name, source.size, await readFileHead(source, options), datasets);
}

/**
 * Inspect mode's tree, from the checked walk of the parse: a dataset that does not load keeps
 * its place (clamped to the file, marked) and its siblings keep theirs (U15); a file header
 * that fails a check still shows every field whose bytes are there. Core's markProblems places
 * every other problem.
 */
export function inspectParse(parsed: UdfParse): InspectNode {
  const { source, head, visited } = parsed;
  const datasets: InspectNode[] = [];
  const unloaded: { node: InspectNode; error: FormatError }[] = [];
  for (const checked of visited) {
    if (checked.dataset) {
      datasets.push(datasetNode(checked.dataset));
      continue;
    }
    const { error } = checked;
    // A dataset that did not load always has its reason; without one there is nothing to show.
    if (!error) continue;
    const shown = unloadedNode({ ref: checked.ref, error }, source.size, checked.head);
    datasets.push(shown);
    unloaded.push({ node: shown, error });
  }
  const root = fileNode(source.name, source.size, head, datasets);
  for (const { node, error } of unloaded) {
    // An error about the reference (its field lies elsewhere) also marks the dataset it fails
    // to reach; one inside the dataset is left to land on its deepest node.
    const problem = error.toProblem();
    const { offset } = problem;
    if (offset === undefined || (offset >= node.offset && offset < node.offset + node.length)) continue;
    markProblem(node, problem);
    const owners = nodesAt(root, offset);
    markProblem(owners[owners.length - 1] ?? root, problem);
  }
  return root;
}
