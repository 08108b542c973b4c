import { type InspectNode, node, type ReadOptions, readExact } from '@binscope/core';
import { HEADER_FILE, type Span, UPSTREAM_DTYPE_NAMES } from './header.js';
import { parseNpyHeader } from './npy.js';
import type { ScdlReader } from './read.js';

function field(name: string, span: Span, value: InspectNode['value'], kind = 'field'): InspectNode {
  return node(name, kind, span.offset, span.length, { value });
}

/** header.sch as byte ranges: the core header, each array and feature-index descriptor and its fields. */
function headerTree(reader: ScdlReader): InspectNode {
  const h = reader.header;
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
  const arraysEnd = h.arrays.length
    ? h.arrays[h.arrays.length - 1].span.offset + h.arrays[h.arrays.length - 1].span.length
    : 16;
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
  const children: InspectNode[] = [
    field('magic', { offset: 0, length: 4 }, 'SCDL'),
    field('version', { offset: 4, length: 3 }, reader.version),
    field('endianness', { offset: 7, length: 1 }, 'NETWORK (1)'),
    field('backend', { offset: 8, length: 4 }, 'MEMMAP_V0 (1)'),
    field('array_count', { offset: 12, length: 4 }, h.arrays.length),
    node('arrays', 'list', 16, arraysEnd - 16, { children: arrays }),
  ];
  if (h.hasFeatureIndexCount) {
    children.push(field('feature_index_count', { offset: arraysEnd, length: 4 }, h.featureIndices.length));
    children.push(
      node('feature_indices', 'list', arraysEnd + 4, h.byteLength - arraysEnd - 4, { children: features }),
    );
  }
  return node(HEADER_FILE, 'header', 0, reader.headerSize, {
    file: HEADER_FILE,
    value: `SCDL ${reader.version}`,
    children,
  });
}

/** A matrix array file; data.npy and col_ptr.npy get one lazy child per row (its byte range). */
function arrayTree(reader: ScdlReader, which: 'data' | 'rowPtr' | 'colPtr'): InspectNode {
  const array = reader[which];
  const extra: Partial<InspectNode> = { file: array.file, value: `${array.dtype} × ${array.length}` };
  if (which !== 'rowPtr') {
    extra.lazy = {
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
  } else {
    extra.lazy = {
      count: array.length,
      async load(start, end) {
        const stop = Math.min(end, array.length);
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
  return node(array.file, 'array', 0, array.length * array.itemSize, extra);
}

async function fileNode(reader: ScdlReader, path: string, options?: ReadOptions): Promise<InspectNode> {
  const source = await reader.directory.open(path);
  const out = node(path, 'file', 0, source.size, { file: path, value: `${source.size} bytes` });
  if (
    path.endsWith('.npy') &&
    /(^|\/)(cumulative_sum_index|version|labels)\.npy$/.test(path) &&
    source.size >= 10
  ) {
    try {
      const head = await readExact(source, 0, Math.min(source.size, 4096), options);
      const npy = parseNpyHeader(new Uint8Array(head), path);
      out.children = [
        node('npy header', 'header', 0, npy.dataOffset, { value: `${npy.descr} (${npy.shape.join(', ')})` }),
        node('npy data', 'array', npy.dataOffset, source.size - npy.dataOffset),
      ];
    } catch {
      // Inspect shows what it can; validate reports the defect.
    }
  }
  return out;
}

/** The archive as a tree: header.sch fields as byte ranges, the matrix arrays, feature indices, every file with its size. */
export async function inspectScdl(reader: ScdlReader, options?: ReadOptions): Promise<InspectNode> {
  const files = await Promise.all(reader.files.map((f) => fileNode(reader, f, options)));
  const featureDirs = ['var_features', 'obs_features', 'features'].filter((d) =>
    reader.files.some((f) => f.startsWith(`${d}/`)),
  );
  const children: InspectNode[] = [
    headerTree(reader),
    arrayTree(reader, 'data'),
    arrayTree(reader, 'rowPtr'),
    arrayTree(reader, 'colPtr'),
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
  return node(reader.directory.name, 'archive', 0, 0, {
    value: `SCDL ${reader.version}, ${reader.numRows} rows, ${reader.nnz} non-zeros`,
    children,
  });
}
