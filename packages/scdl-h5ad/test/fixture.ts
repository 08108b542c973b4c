/**
 * Writes small AnnData `.h5ad` files with h5wasm in anndata's on-disk layout (0.8+ encodings,
 * or the 0.7 layout), for cases the vectors do not cover: CSC and dense X, categoricals,
 * nullable columns, obsp graphs, missing raw. Python is not available here, so the layout
 * follows anndata's documented encodings.
 */
import h5wasm from 'h5wasm/node';

await h5wasm.ready;

type H5Group = ReturnType<InstanceType<typeof h5wasm.File>['create_group']>;

/** A matrix given densely (rows of numbers); stored in the layout asked for. */
export interface MatrixSpec {
  layout: 'csr' | 'csc' | 'dense';
  values: number[][];
  /** numpy-style dtype of the stored values: '<f4' float32, '<f8', '<i4', '<i8', '<u2', ... */
  dtype?: string;
  /** dtype of indptr (anndata writes int32 or int64). */
  indptrDtype?: '<i4' | '<i8';
  /** Keep explicit zeros at these [row, col] positions (sparse layouts). */
  explicitZeros?: [number, number][];
  /** anndata 0.7: h5sparse_format / h5sparse_shape attributes instead of encoding-type. */
  legacy?: boolean;
  /** gzip level: store chunked and deflate-compressed (as write_h5ad(compression='gzip')). */
  gzip?: number;
}

export type ColumnSpec =
  | { name: string; kind: 'string'; values: string[] }
  | { name: string; kind: 'numeric'; values: number[]; dtype: string }
  | { name: string; kind: 'int64'; values: bigint[]; unsigned?: boolean }
  | {
      name: string;
      kind: 'categorical';
      categories: string[] | number[];
      codes: number[];
      categoryDtype?: string;
    }
  | { name: string; kind: 'nullable-integer'; values: number[]; mask: boolean[] }
  | { name: string; kind: 'nullable-boolean'; values: boolean[]; mask: boolean[] };

export interface FrameSpec {
  index: string[];
  columns?: ColumnSpec[];
  /** anndata 0.7: categories as object references into __categories. */
  legacy?: boolean;
}

export interface AnnDataSpec {
  X?: MatrixSpec;
  raw?: MatrixSpec;
  /** Store raw as the pre-0.7 root dataset group `raw.X` instead of raw/X. */
  rawAtRoot?: boolean;
  obs: FrameSpec;
  var: FrameSpec;
  obsp?: Record<string, MatrixSpec>;
}

const TYPED: Record<string, (v: number[]) => ArrayBufferView> = {
  '<f4': (v) => Float32Array.from(v),
  '<f8': (v) => Float64Array.from(v),
  '<i4': (v) => Int32Array.from(v),
  '<i8': (v) => BigInt64Array.from(v.map((x) => BigInt(x))),
  '<u2': (v) => Uint16Array.from(v),
  '<u4': (v) => Uint32Array.from(v),
  '<i1': (v) => Int8Array.from(v),
  '<i2': (v) => Int16Array.from(v),
  '<u1': (v) => Uint8Array.from(v),
};

const H5_DTYPE: Record<string, string> = {
  '<f4': '<f',
  '<f8': '<d',
  '<i4': '<i',
  '<i8': '<q',
  '<u2': '<H',
  '<u4': '<I',
  '<i1': '<b',
  '<i2': '<h',
  '<u1': '<B',
};

function encoding(
  group: { create_attribute: H5Group['create_attribute'] },
  type: string,
  version: string,
): void {
  group.create_attribute('encoding-type', type);
  group.create_attribute('encoding-version', version);
}

function dataset(group: H5Group, name: string, values: number[], dtype: string, gzip?: number) {
  const compression =
    gzip && values.length > 0 ? { chunks: [Math.min(values.length, 64)], compression: gzip } : {};
  return group.create_dataset({
    name,
    data: TYPED[dtype](values) as never,
    dtype: H5_DTYPE[dtype],
    ...compression,
  });
}

/** Dense rows → compressed arrays along rows (CSR) or columns (CSC). */
export function compress(values: number[][], layout: 'csr' | 'csc', explicitZeros: [number, number][] = []) {
  const rows = values.length;
  const cols = rows ? values[0].length : 0;
  const keep = (r: number, c: number) =>
    values[r][c] !== 0 || explicitZeros.some(([zr, zc]) => zr === r && zc === c);
  const data: number[] = [];
  const indices: number[] = [];
  const indptr = [0];
  const major = layout === 'csr' ? rows : cols;
  const minor = layout === 'csr' ? cols : rows;
  for (let a = 0; a < major; a++) {
    for (let b = 0; b < minor; b++) {
      const [r, c] = layout === 'csr' ? [a, b] : [b, a];
      if (keep(r, c)) {
        data.push(values[r][c]);
        indices.push(b);
      }
    }
    indptr.push(data.length);
  }
  return { data, indices, indptr };
}

function writeMatrix(parent: H5Group, name: string, spec: MatrixSpec): void {
  const dtype = spec.dtype ?? '<f4';
  const rows = spec.values.length;
  const cols = rows ? spec.values[0].length : 0;
  if (spec.layout === 'dense') {
    parent.create_dataset({
      name,
      data: TYPED[dtype](spec.values.flat()) as never,
      shape: [rows, cols],
      dtype: H5_DTYPE[dtype],
    });
    const ds = parent.get(name) as unknown as { create_attribute: H5Group['create_attribute'] };
    encoding(ds, 'array', '0.2.0');
    return;
  }
  const group = parent.create_group(name);
  if (spec.legacy) {
    group.create_attribute('h5sparse_format', spec.layout);
    group.create_attribute('h5sparse_shape', new BigInt64Array([BigInt(rows), BigInt(cols)]));
  } else {
    encoding(group, `${spec.layout}_matrix`, '0.1.0');
    group.create_attribute('shape', new BigInt64Array([BigInt(rows), BigInt(cols)]));
  }
  const { data, indices, indptr } = compress(spec.values, spec.layout, spec.explicitZeros);
  dataset(group, 'data', data, dtype, spec.gzip);
  dataset(group, 'indices', indices, '<i4', spec.gzip);
  dataset(group, 'indptr', indptr, spec.indptrDtype ?? '<i4', spec.gzip);
}

function writeStrings(group: H5Group, name: string, values: string[]) {
  // h5wasm cannot create an empty vlen string dataset from []: use a fixed-size one.
  const ds =
    values.length > 0
      ? group.create_dataset({ name, data: values })
      : group.create_dataset({ name, data: new Uint8Array(0), dtype: 'S1' });
  return ds as unknown as { create_attribute: H5Group['create_attribute']; create_reference(): unknown };
}

function writeFrame(parent: H5Group, name: string, spec: FrameSpec): void {
  const group = parent.create_group(name);
  encoding(group, 'dataframe', spec.legacy ? '0.1.0' : '0.2.0');
  group.create_attribute('_index', '_index');
  const columns = spec.columns ?? [];
  if (columns.length > 0)
    group.create_attribute(
      'column-order',
      columns.map((c) => c.name),
    );
  else group.create_attribute('column-order', new Float64Array(0));
  const index = writeStrings(group, '_index', spec.index);
  if (!spec.legacy) encoding(index, 'string-array', '0.2.0');
  for (const column of columns) {
    switch (column.kind) {
      case 'string': {
        const ds = writeStrings(group, column.name, column.values);
        if (!spec.legacy) encoding(ds, 'string-array', '0.2.0');
        break;
      }
      case 'numeric': {
        const ds = dataset(group, column.name, column.values, column.dtype) as unknown as {
          create_attribute: H5Group['create_attribute'];
        };
        if (!spec.legacy) encoding(ds, 'array', '0.2.0');
        break;
      }
      case 'int64': {
        const ds = group.create_dataset({
          name: column.name,
          data: (column.unsigned ? BigUint64Array : BigInt64Array).from(column.values) as never,
          dtype: column.unsigned ? '<Q' : '<q',
        });
        encoding(ds as never, 'array', '0.2.0');
        break;
      }
      case 'categorical': {
        const isString = typeof column.categories[0] === 'string';
        if (spec.legacy) {
          const holder = group.keys().includes('__categories')
            ? (group.get('__categories') as H5Group)
            : group.create_group('__categories');
          const cats = isString
            ? writeStrings(holder, column.name, column.categories as string[])
            : (dataset(
                holder,
                column.name,
                column.categories as number[],
                column.categoryDtype ?? '<i8',
              ) as never as { create_reference(): unknown });
          const codes = dataset(group, column.name, column.codes, '<i1') as unknown as {
            create_attribute: (...a: unknown[]) => void;
          };
          codes.create_attribute('categories', [cats.create_reference()], null, 'Reference');
        } else {
          const cat = group.create_group(column.name);
          encoding(cat, 'categorical', '0.2.0');
          cat.create_attribute('ordered', new Uint8Array([0]) as never);
          if (isString)
            encoding(writeStrings(cat, 'categories', column.categories as string[]), 'string-array', '0.2.0');
          else dataset(cat, 'categories', column.categories as number[], column.categoryDtype ?? '<i8');
          dataset(cat, 'codes', column.codes, '<i1');
        }
        break;
      }
      case 'nullable-integer':
      case 'nullable-boolean': {
        const g = group.create_group(column.name);
        encoding(g, column.kind, '0.1.0');
        if (column.kind === 'nullable-integer') dataset(g, 'values', column.values, '<i8');
        else dataset(g, 'values', column.values.map(Number), '<u1');
        dataset(g, 'mask', column.mask.map(Number), '<u1');
        break;
      }
    }
  }
}

/** Writes `spec` as an .h5ad file at `path`. */
export function writeH5ad(path: string, spec: AnnDataSpec): void {
  const file = new h5wasm.File(path, 'w');
  try {
    encoding(file as never, 'anndata', '0.1.0');
    const root = file as unknown as H5Group;
    if (spec.X) writeMatrix(root, 'X', spec.X);
    if (spec.raw) {
      if (spec.rawAtRoot) writeMatrix(root, 'raw.X', spec.raw);
      else {
        const raw = root.create_group('raw');
        encoding(raw, 'raw', '0.1.0');
        writeMatrix(raw, 'X', spec.raw);
        writeFrame(raw, 'var', spec.var);
      }
    }
    writeFrame(root, 'obs', spec.obs);
    writeFrame(root, 'var', spec.var);
    const obsp = root.create_group('obsp');
    encoding(obsp, 'dict', '0.1.0');
    for (const [key, m] of Object.entries(spec.obsp ?? {})) writeMatrix(obsp, key, m);
    for (const name of ['obsm', 'varm', 'varp', 'layers', 'uns'])
      encoding(root.create_group(name), 'dict', '0.1.0');
  } finally {
    file.close();
  }
}

/** A deterministic pseudo-random generator (mulberry32) for fixture contents. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A sparse-ish random matrix of small counts (about `density` non-zeros). */
export function randomCounts(rows: number, cols: number, density: number, seed: number): number[][] {
  const next = rng(seed);
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => (next() < density ? 1 + Math.floor(next() * 50) : 0)),
  );
}

export { h5wasm };
