import {
  type DirectorySource,
  type InspectNode,
  node,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { HEADER_FILE, type ScdlHeader, type Span, UPSTREAM_DTYPE_NAMES } from './header.js';
import { parseNpyHeader } from './npy.js';
import type { ArchiveParse } from './parse.js';
import type { RawArray } from './raw-array.js';
import { ScdlReader } from './read.js';

/** What the tree is built from: an opened reader, or whatever a parse of a broken archive got. */
interface TreeInput {
  directory: DirectorySource;
  files: readonly string[];
  header: ScdlHeader | undefined;
  headerSize: number;
  /** The core header's bytes (16, fewer when the file is shorter). */
  headerHead: Uint8Array;
  arrays: { data?: RawArray; rowPtr?: RawArray; colPtr?: RawArray };
  /** Only with a reader are rows located (row_ptr read through its checks). */
  reader?: ScdlReader;
}

function field(name: string, span: Span, value: InspectNode['value'], kind = 'field'): InspectNode {
  return node(name, kind, span.offset, span.length, { value });
}

function magicText(head: Uint8Array): string {
  return Array.from(head.subarray(0, 4), (b) =>
    b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
  ).join('');
}

function versionText(head: Uint8Array): string {
  return head.byteLength >= 7 ? `${head[4]}.${head[5]}.${head[6]}` : '?';
}

/** The 16-byte core header's fields, decoded from its bytes (shown even when one is wrong). */
function coreFields(head: Uint8Array): InspectNode[] {
  const out: InspectNode[] = [];
  if (head.byteLength >= 4) out.push(field('magic', { offset: 0, length: 4 }, magicText(head)));
  if (head.byteLength >= 7) out.push(field('version', { offset: 4, length: 3 }, versionText(head)));
  if (head.byteLength < 16) return out;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const endianness = head[7];
  const backend = view.getUint32(8, false);
  out.push(field('endianness', { offset: 7, length: 1 }, endianness === 1 ? 'NETWORK (1)' : endianness));
  out.push(field('backend', { offset: 8, length: 4 }, backend === 1 ? 'MEMMAP_V0 (1)' : backend));
  out.push(field('array_count', { offset: 12, length: 4 }, view.getUint32(12, false)));
  return out;
}

function descriptorTrees(h: ScdlHeader): { arrays: InspectNode[]; features: InspectNode[] } {
  const arrays = h.arrays.map((a) =>
    node(a.name, 'array descriptor', a.span.offset, a.span.length, {
      value: `${a.dtype} × ${a.length}`,
      children: [
        field('name', a.fields.name, a.name),
        field('length', a.fields.length, a.length),
        field('dtype', a.fields.dtype, `${UPSTREAM_DTYPE_NAMES[a.dtype]} (${a.dtypeCode})`),
        field('has_shape', a.fields.shape, a.shape ? `[${a.shape.join(', ')}]` : 0),
      ],
    }),
  );
  const features = h.featureIndices.map((f) =>
    node(f.name, 'feature index descriptor', f.span.offset, f.span.length, {
      value: `${f.files.length} files, ${f.length} rows`,
      children: [
        field('name', f.fields.name, f.name),
        field('length', f.fields.length, f.length),
        field('dtype', f.fields.dtype, `${UPSTREAM_DTYPE_NAMES[f.dtype]} (${f.dtypeCode})`),
        field('index_files', f.fields.files, f.files.length, 'list'),
        field('has_shape', f.fields.shape, f.shape ? `[${f.shape.join(', ')}]` : 0),
      ],
    }),
  );
  return { arrays, features };
}

/** The descriptor whose reading failed, as far as it was read: the bad value is its last field. */
function cutTree(h: ScdlHeader): InspectNode | undefined {
  const cut = h.cut;
  const last = cut?.fields[cut.fields.length - 1];
  if (!cut || !last) return undefined;
  return node(
    cut.name,
    cut.list === 'arrays' ? 'array descriptor' : 'feature index descriptor',
    cut.offset,
    last.span.offset + last.span.length - cut.offset,
    {
      value: 'read part-way',
      children: cut.fields.map((f) => field(f.name, f.span, f.value)),
    },
  );
}

/** header.sch as byte ranges: the core header, each array and feature-index descriptor and its fields. */
function headerTree(input: TreeInput): InspectNode {
  const children = coreFields(input.headerHead);
  const h = input.header;
  if (h && input.headerHead.byteLength >= 16) {
    const { arrays, features } = descriptorTrees(h);
    const cut = cutTree(h);
    if (cut && h.cut?.list === 'arrays') arrays.push(cut);
    if (cut && h.cut?.list === 'feature_indices') features.push(cut);
    const last = h.arrays[h.arrays.length - 1];
    const arraysEnd =
      cut && h.cut?.list === 'arrays'
        ? cut.offset + cut.length
        : last
          ? last.span.offset + last.span.length
          : 16;
    children.push(node('arrays', 'list', 16, arraysEnd - 16, { children: arrays }));
    if (h.hasFeatureIndexCount) {
      children.push(field('feature_index_count', { offset: arraysEnd, length: 4 }, h.featureIndices.length));
      const cutEnd = cut && h.cut?.list === 'feature_indices' ? cut.offset + cut.length : 0;
      const end = Math.max(h.byteLength, arraysEnd + 4, cutEnd);
      children.push(
        node('feature_indices', 'list', arraysEnd + 4, end - arraysEnd - 4, { children: features }),
      );
    }
  }
  return node(HEADER_FILE, 'header', 0, input.headerSize, {
    file: HEADER_FILE,
    value: `${magicText(input.headerHead)} ${versionText(input.headerHead)}`,
    children,
  });
}

/** One lazy child per row: its byte range in data.npy / col_ptr.npy. */
function rowChildren(reader: ScdlReader, array: RawArray): InspectNode['lazy'] {
  return {
    count: reader.numRows,
    async load(start, end) {
      const out: InspectNode[] = [];
      const stop = Math.min(end, reader.numRows);
      for (let i = Math.max(0, start); i < stop; i++) {
        const [a, b] = await reader.rowExtent(i);
        out.push(
          node(`row ${i}`, 'row', a * array.itemSize, (b - a) * array.itemSize, {
            value: `${b - a} entries`,
          }),
        );
      }
      return out;
    },
  };
}

/** One lazy child per row_ptr entry the file holds. */
function rowPtrChildren(array: RawArray): InspectNode['lazy'] {
  const count = Math.min(array.length, Math.floor(array.source.size / array.itemSize));
  return {
    count,
    async load(start, end) {
      const stop = Math.min(end, count);
      if (stop <= start) return [];
      const values = await array.slice(start, stop);
      return Array.from(values as ArrayLike<number | bigint>, (v, k) =>
        node(`row_ptr[${start + k}]`, 'value', (start + k) * array.itemSize, array.itemSize, {
          value: Number(v),
        }),
      );
    },
  };
}

/** A matrix array file, its range clamped to the file (a short file still shows, marked by the parse). */
function arrayTree(input: TreeInput, which: 'data' | 'rowPtr' | 'colPtr'): InspectNode | undefined {
  const array = input.arrays[which];
  if (!array) return undefined;
  const lazy =
    which === 'rowPtr' ? rowPtrChildren(array) : input.reader ? rowChildren(input.reader, array) : undefined;
  return node(array.file, 'array', 0, Math.min(array.length * array.itemSize, array.source.size), {
    file: array.file,
    value: `${array.dtype} × ${array.length}`,
    ...(lazy ? { lazy } : {}),
  });
}

async function fileNode(
  directory: DirectorySource,
  path: string,
  options?: ReadOptions,
): Promise<InspectNode> {
  const source = await directory.open(path);
  const out = node(path, 'file', 0, source.size, { file: path, value: `${source.size} bytes` });
  if (/(^|\/)(cumulative_sum_index|version|labels)\.npy$/.test(path) && source.size >= 10) {
    try {
      const head = await readExact(source, 0, Math.min(source.size, 4096), options);
      const npy = parseNpyHeader(new Uint8Array(head), path);
      out.children = [
        node('npy header', 'header', 0, npy.dataOffset, { value: `${npy.descr} (${npy.shape.join(', ')})` }),
        node('npy data', 'array', npy.dataOffset, source.size - npy.dataOffset),
      ];
    } catch {
      // The tree shows what it can; the parse reports the defect.
    }
  }
  return out;
}

async function archiveTree(input: TreeInput, rootValue: string, options?: ReadOptions): Promise<InspectNode> {
  const files = await Promise.all(input.files.map((f) => fileNode(input.directory, f, options)));
  const featureDirs = ['var_features', 'obs_features', 'features'].filter((d) =>
    input.files.some((f) => f.startsWith(`${d}/`)),
  );
  const arrays = (['data', 'rowPtr', 'colPtr'] as const).map((w) => arrayTree(input, w));
  const children: InspectNode[] = [
    ...(input.headerSize > 0 ? [headerTree(input)] : []),
    ...arrays.filter((a): a is InspectNode => a !== undefined),
    ...featureDirs.map((d) =>
      node(`${d}/`, 'feature index', 0, 0, {
        value: `${files.filter((f) => f.name.startsWith(`${d}/`)).length} files`,
        children: files.filter((f) => f.name.startsWith(`${d}/`)),
      }),
    ),
    node('files', 'list', 0, 0, {
      value: `${files.length} files`,
      children: files.map((f) => ({ ...f, children: undefined })),
    }),
  ];
  return node(input.directory.name, 'archive', 0, 0, { value: rootValue, children });
}

/** The archive as a tree: header.sch fields as byte ranges, the matrix arrays, feature indices, every file with its size. */
export function inspectScdl(reader: ScdlReader, options?: ReadOptions): Promise<InspectNode> {
  const input: TreeInput = {
    directory: reader.directory,
    files: reader.files,
    header: reader.header,
    headerSize: reader.headerSize,
    headerHead: reader.headerHead,
    arrays: { data: reader.data, rowPtr: reader.rowPtr, colPtr: reader.colPtr },
    reader,
  };
  return archiveTree(
    input,
    `SCDL ${reader.version}, ${reader.numRows} rows, ${reader.nnz} stored values`,
    options,
  );
}

/** The files every archive has: a missing one still gets a node, where its problem is marked. */
const REQUIRED_FILES = [HEADER_FILE, 'data.npy', 'row_ptr.npy', 'col_ptr.npy'];

async function partialTree(state: ArchiveParse, options?: ReadOptions): Promise<InspectNode> {
  const { DATA: data, ROWPTR: rowPtr, COLPTR: colPtr } = state.arrays;
  const input: TreeInput = { ...state, arrays: { data, rowPtr, colPtr } };
  const shape =
    rowPtr && data ? `, ${Math.max(0, rowPtr.length - 1)} rows, ${data.length} stored values` : '';
  const value = `${magicText(state.headerHead)} ${versionText(state.headerHead)}${shape}`;
  const root = await archiveTree(input, value, options);
  const missing = REQUIRED_FILES.filter((f) => !state.files.includes(f));
  root.children?.unshift(...missing.map((f) => node(f, 'file', 0, 0, { file: f, value: 'missing' })));
  return root;
}

/**
 * Inspect mode: the tree of what the parse got (`tree` of the plugin). A valid archive gives
 * the tree of `inspectScdl(open(…))`; a broken one every file and header field that can be
 * located. Core's markProblems then marks each problem on its node: the structure an offset
 * falls in or a short file ends at, a file's node, the feature folder of a file it lacks.
 */
export async function scdlTree(parsed: ArchiveParse, problems: ProblemList): Promise<InspectNode> {
  return problems.hasErrors() || !parsed.matrixValid
    ? partialTree(parsed)
    : inspectScdl(ScdlReader.fromParse(parsed));
}
