import {
  type ByteSource,
  type DirectorySource,
  type FormatError,
  formatErrors,
  isBinscopeError,
  type ReadOptions,
  parseBoundedJson,
  readExact,
} from '@binscope/core';
import { decodeUtf8 } from '@binscope/core/binary';
import {
  type AsyncBuffer,
  type FileMetaData,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
} from 'hyparquet';
import { FORMAT, type FeatureIndexDescriptor } from './header.js';
import { checkPageHeaders } from './parquet-pages.js';
import { parseNpy } from './npy.js';

const fail = formatErrors(FORMAT);

/** A cell from a feature table: strings, numbers, int64 as bigint, booleans, null. */
export type FeatureValue = string | number | bigint | boolean | null;

export interface FeatureTable {
  /** Column names in file order. */
  columns: string[];
  /** One array per column. */
  values: FeatureValue[][];
  numRows: number;
}

export interface FeatureBlockInfo {
  index: number;
  label: string | undefined;
  /** First row (inclusive) and end row (exclusive) of the matrix this block covers. */
  start: number;
  end: number;
  file: string | undefined;
}

/** Opens a file of the archive or raises the taxonomy's error naming it (issue 11: missing files). */
export async function openRequired(
  dir: DirectorySource,
  file: string,
  options?: ReadOptions,
): Promise<ByteSource> {
  options?.signal?.throwIfAborted();
  if (!(await dir.has(file))) {
    throw fail('Truncated', `missing file ${file}`, 0, file);
  }
  try {
    return await dir.open(file);
  } catch (error) {
    if (isBinscopeError(error, 'SourceError'))
      throw fail('Truncated', `missing file ${file}: ${error.message}`, 0, file);
    throw error;
  }
}

/** Feature metadata files are small; refuse a huge one instead of loading it. */
const MAX_METADATA_FILE = 256 * 1024 * 1024;

async function readWhole(source: ByteSource, file: string, options?: ReadOptions): Promise<Uint8Array> {
  if (source.size > MAX_METADATA_FILE) {
    throw fail(
      'InvalidValue',
      `${file} is ${source.size} bytes, too large for feature-index metadata`,
      0,
      file,
    );
  }
  return new Uint8Array(await readExact(source, 0, source.size, { ...options, format: FORMAT, what: file }));
}

function asyncBuffer(source: ByteSource, file: string): AsyncBuffer {
  return {
    byteLength: source.size,
    async slice(start: number, end = source.size) {
      const s = Math.max(0, Math.min(start, source.size));
      const e = Math.max(s, Math.min(end, source.size));
      const bytes = await readExact(source, s, e - s, { format: FORMAT, what: file });
      return new Uint8Array(bytes).buffer as ArrayBuffer;
    },
  };
}

function parquetError(file: string, error: unknown): FormatError {
  if (isBinscopeError(error, 'FormatError')) return error;
  const message = error instanceof Error ? error.message : String(error);
  return fail('InvalidValue', `${file} is not a readable parquet table: ${message}`, 0, file);
}

/**
 * A block's parquet file as upstream's FeatureIndex.save names it: the index zero-padded to
 * the number of digits of the block count (`dataframe_00` … `dataframe_10` for 11 blocks).
 */
export function featureTableFile(indexName: string, block: number, blockCount: number): string {
  return `${indexName}/dataframe_${String(block).padStart(String(blockCount).length, '0')}.parquet`;
}

const PANDAS_INDEX = /^__index_level_\d+__$/;
/** Decoded row groups kept per obs index (bounded memory for random lookups). */
const ROW_GROUP_CACHE = 4;

/** One parquet table of a feature index, read lazily: whole (var) or one row group at a time (obs). */
class ParquetTable {
  private metadata: FileMetaData | undefined;
  private whole: FeatureTable | undefined;
  private readonly groups = new Map<number, Record<string, FeatureValue>[]>();
  private readonly checkedGroups = new Set<number>();

  constructor(
    readonly file: string,
    private readonly open: () => Promise<ByteSource>,
  ) {}

  private async buffer(): Promise<AsyncBuffer> {
    return asyncBuffer(await this.open(), this.file);
  }

  async meta(): Promise<{ metadata: FileMetaData; columns: string[]; numRows: number; types: string[] }> {
    if (!this.metadata) {
      const file = await this.buffer();
      try {
        this.metadata = await parquetMetadataAsync(file);
      } catch (error) {
        throw parquetError(this.file, error);
      }
    }
    let columns: string[];
    let types: string[];
    try {
      const children = parquetSchema(this.metadata).children.filter(
        (c) => !PANDAS_INDEX.test(c.element.name),
      );
      columns = children.map((c) => c.element.name);
      types = children.map((c) => arrowType(c.element));
    } catch (error) {
      throw parquetError(this.file, error);
    }
    const numRows = Number(this.metadata.num_rows);
    if (!Number.isSafeInteger(numRows) || numRows < 0)
      throw parquetError(this.file, new Error(`bad row count ${this.metadata.num_rows}`));
    return { metadata: this.metadata, columns, numRows, types };
  }

  private async readRows(rowStart: number, rowEnd: number): Promise<Record<string, FeatureValue>[]> {
    const { metadata, columns } = await this.meta();
    if (columns.length === 0 || rowEnd <= rowStart)
      return Array.from({ length: Math.max(0, rowEnd - rowStart) }, () => ({}));
    try {
      const file = await this.buffer();
      const unchecked = this.uncheckedGroups(metadata, rowStart, rowEnd);
      await checkPageHeaders(file, metadata, unchecked);
      for (const g of unchecked) this.checkedGroups.add(g);
      const rows = (await parquetReadObjects({
        file,
        metadata,
        columns,
        rowStart,
        rowEnd,
      })) as Record<string, FeatureValue>[];
      if (rows.length !== rowEnd - rowStart)
        throw new Error(`expected ${rowEnd - rowStart} rows, decoded ${rows.length}`);
      return rows;
    } catch (error) {
      throw parquetError(this.file, error);
    }
  }

  /** The row groups overlapping [rowStart, rowEnd) whose page headers are not checked yet. */
  private uncheckedGroups(metadata: FileMetaData, rowStart: number, rowEnd: number): number[] {
    const out: number[] = [];
    let start = 0;
    metadata.row_groups.forEach((group, g) => {
      const end = start + Number(group.num_rows);
      if (start < rowEnd && end > rowStart && !this.checkedGroups.has(g)) out.push(g);
      start = end;
    });
    return out;
  }

  async table(): Promise<FeatureTable> {
    if (this.whole) return this.whole;
    const { columns, numRows } = await this.meta();
    const rows = await this.readRows(0, numRows);
    this.whole = { columns, numRows, values: columns.map((name) => rows.map((r) => normalise(r[name]))) };
    return this.whole;
  }

  /** One row as {column: value}; decodes (and caches) only the row group holding it. */
  async row(index: number): Promise<{ columns: string[]; values: FeatureValue[] }> {
    const { metadata, columns, numRows } = await this.meta();
    if (!(index >= 0 && index < numRows)) {
      throw fail(
        'OutOfBounds',
        `${this.file} has ${numRows} rows, row ${index} asked for`,
        undefined,
        this.file,
      );
    }
    if (this.whole) return { columns, values: this.whole.values.map((col) => col[index]) };
    let start = 0;
    for (let g = 0; g < metadata.row_groups.length; g++) {
      const n = Number(metadata.row_groups[g].num_rows);
      if (index < start + n) {
        let rows = this.groups.get(g);
        if (!rows) {
          rows = await this.readRows(start, start + n);
          if (this.groups.size >= ROW_GROUP_CACHE)
            this.groups.delete(this.groups.keys().next().value as number);
          this.groups.set(g, rows);
        }
        const row = rows[index - start];
        return { columns, values: columns.map((c) => normalise(row[c])) };
      }
      start += n;
    }
    throw parquetError(this.file, new Error(`row groups hold ${start} rows, the footer says ${numRows}`));
  }
}

/** A parquet column's type in Arrow's words (what pyarrow reports): string, int64, double, bool, ... */
function arrowType(element: {
  type?: string;
  converted_type?: string;
  logical_type?: { type: string };
}): string {
  const logical = element.logical_type?.type;
  if (element.type === 'BYTE_ARRAY')
    return logical === 'STRING' || element.converted_type === 'UTF8' ? 'string' : 'binary';
  if (element.type === 'BOOLEAN') return 'bool';
  if (element.type === 'DOUBLE') return 'double';
  if (element.type === 'FLOAT') return 'float';
  if (element.type === 'FIXED_LEN_BYTE_ARRAY' && logical === 'FLOAT16') return 'halffloat';
  if (element.type === 'INT32' || element.type === 'INT64') {
    const bits = element.type === 'INT32' ? 32 : 64;
    const converted = element.converted_type ?? '';
    if (/^UINT_(8|16|32|64)$/.test(converted)) return `uint${converted.slice(5)}`;
    if (/^INT_(8|16)$/.test(converted)) return `int${converted.slice(4)}`;
    return `int${bits}`;
  }
  return (element.type ?? 'group').toLowerCase();
}

function normalise(v: unknown): FeatureValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('');
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

/**
 * A feature index (`var_features/` or `obs_features/`, C6): the cumulative row index, the
 * block labels, the version, and one parquet table per block, loaded on first use.
 */
export class FeatureIndex {
  private constructor(
    readonly name: string,
    /** `[-1, n1, n1+n2, …]` as upstream stores it. */
    readonly cumulativeSumIndex: number[],
    readonly labels: string[],
    readonly version: string | undefined,
    private readonly tables: Array<ParquetTable | undefined>,
    /** Problems that did not stop reading (old layouts, missing optional parts). */
    readonly warnings: string[],
  ) {}

  /** Rows covered: the last cumulative sum. */
  get rows(): number {
    const last = this.cumulativeSumIndex[this.cumulativeSumIndex.length - 1];
    return Math.max(0, last ?? 0);
  }

  get blockCount(): number {
    return Math.max(0, this.cumulativeSumIndex.length - 1);
  }

  block(b: number): FeatureBlockInfo {
    return {
      index: b,
      label: this.labels[b],
      start: Math.max(0, this.cumulativeSumIndex[b]),
      end: Math.max(0, this.cumulativeSumIndex[b + 1]),
      file: this.tables[b]?.file,
    };
  }

  /** The block covering `row`: the number of cumulative entries ≤ row, minus one (upstream's lookup). */
  blockOf(row: number): number {
    const csi = this.cumulativeSumIndex;
    let lo = 0;
    let hi = csi.length - 1;
    if (hi < 1 || row >= csi[hi] || row < 0) return -1;
    // Find the first b with csi[b+1] > row.
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (csi[mid + 1] > row) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private tableFor(b: number): ParquetTable {
    const table = this.tables[b];
    if (!table) {
      const file = featureTableFile(this.name, b, this.blockCount);
      throw fail('Truncated', `missing file ${file}`, undefined, file);
    }
    return table;
  }

  /** Column names of a block's table. */
  async columns(b: number): Promise<string[]> {
    return (await this.tableFor(b).meta()).columns;
  }

  /** A block's parquet footer facts: rows, writer, columns with their Arrow type names. */
  async parquetInfo(b: number): Promise<{
    file: string;
    numRows: number;
    createdBy: string | undefined;
    columns: Array<{ name: string; type: string }>;
  }> {
    const table = this.tableFor(b);
    const { metadata, columns, numRows, types } = await table.meta();
    return {
      file: table.file,
      numRows,
      createdBy: metadata.created_by,
      columns: columns.map((name, k) => ({ name, type: types[k] })),
    };
  }

  /** A block's number of table rows (features for var; cells for obs) from the parquet footer. */
  async tableRows(b: number): Promise<number> {
    return (await this.tableFor(b).meta()).numRows;
  }

  /** A block's whole table (for var: the features of that block's column space). */
  table(b: number): Promise<FeatureTable> {
    return this.tableFor(b).table();
  }

  /** Row `r` of a block's table. */
  tableRow(b: number, r: number): Promise<{ columns: string[]; values: FeatureValue[] }> {
    return this.tableFor(b).row(r);
  }

  /**
   * Loads a feature index. Files the header declares must exist (a missing one is
   * `Truncated`, naming it); older layouts (labels.npy, no header entry) are read where
   * possible, with warnings, and never crash.
   */
  static async load(
    dir: DirectorySource,
    name: string,
    descriptor: FeatureIndexDescriptor | undefined,
    allFiles: readonly string[],
    options?: ReadOptions,
  ): Promise<FeatureIndex> {
    const warnings: string[] = [];
    const prefix = `${name}/`;
    const present = new Set(allFiles);
    const declared = new Set(descriptor?.files ?? []);
    const need = async (file: string): Promise<ByteSource | undefined> => {
      if (declared.has(file)) return openRequired(dir, file, options);
      return present.has(file) ? dir.open(file) : undefined;
    };

    const csiFile = `${prefix}cumulative_sum_index.npy`;
    let cumulative: number[] = [];
    const csiSource = await need(csiFile);
    if (csiSource) {
      const npy = parseNpy(await readWhole(csiSource, csiFile, options), csiFile);
      if (npy.header.shape.length !== 1) {
        throw fail(
          'InvalidValue',
          `${csiFile} must be 1-d, has shape (${npy.header.shape.join(', ')})`,
          0,
          csiFile,
        );
      }
      cumulative = npy.values.map((v, i) => {
        const n = typeof v === 'bigint' || typeof v === 'number' ? Number(v) : Number.NaN;
        if (!Number.isSafeInteger(n)) {
          throw fail('InvalidValue', `${csiFile}[${i}] is not an integer`, npy.header.dataOffset, csiFile);
        }
        return n;
      });
      for (let i = 1; i < cumulative.length; i++) {
        if (cumulative[i] < cumulative[i - 1] || cumulative[i] < 0) {
          throw fail(
            'InvalidValue',
            `${csiFile} decreases at entry ${i} (${cumulative[i - 1]} → ${cumulative[i]})`,
            npy.header.dataOffset + i * 8,
            csiFile,
          );
        }
      }
      if (cumulative.length > 0 && cumulative[0] !== -1)
        warnings.push(`${csiFile} starts at ${cumulative[0]}, upstream starts it at -1`);
    } else {
      warnings.push(`${csiFile} is missing; the index has no row blocks`);
    }

    let labels: string[] = [];
    const labelsFile = `${prefix}labels.json`;
    const labelsSource = await need(labelsFile);
    if (labelsSource) {
      const bytes = await readWhole(labelsSource, labelsFile, options);
      const text = decodeUtf8(bytes, { file: labelsFile, offset: 0, format: FORMAT, what: labelsFile });
      let parsed: unknown;
      try {
        parsed = parseBoundedJson(text);
      } catch {
        throw fail('InvalidValue', `${labelsFile} is not valid JSON`, 0, labelsFile);
      }
      if (!Array.isArray(parsed))
        throw fail('InvalidValue', `${labelsFile} is not a JSON list`, 0, labelsFile);
      labels = parsed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    } else if (present.has(`${prefix}labels.npy`)) {
      // Older archives kept the labels as a .npy of strings.
      try {
        const file = `${prefix}labels.npy`;
        const npy = parseNpy(await readWhole(await dir.open(file), file, options), file);
        labels = npy.values.map(String);
        warnings.push(`${name} uses the older labels.npy`);
      } catch (error) {
        if (!isBinscopeError(error, 'FormatError')) throw error;
        warnings.push(`${name}/labels.npy is unreadable: ${error.message}`);
      }
    }

    let version: string | undefined;
    const versionFile = `${prefix}version.npy`;
    const versionSource = await need(versionFile);
    if (versionSource) {
      const npy = parseNpy(await readWhole(versionSource, versionFile, options), versionFile);
      version = npy.values.length ? String(npy.values[0]) : undefined;
    }

    // Parquet blocks: those the header lists, else dataframe_<i>.parquet found in the folder.
    const blockCount = Math.max(0, cumulative.length - 1);
    const { files: parquetFiles, duplicates } = blockFiles(
      name,
      descriptor ? descriptor.files : allFiles,
      blockCount,
    );
    for (const [b, names] of duplicates)
      warnings.push(
        `${name} has several files for block ${b} (${names.join(', ')}); using ${parquetFiles.get(b)}`,
      );
    const tables: Array<ParquetTable | undefined> = [];
    for (let b = 0; b < blockCount; b++) {
      const file = parquetFiles.get(b);
      if (!file) {
        tables.push(undefined);
        continue;
      }
      if (declared.has(file) && !present.has(file)) {
        throw fail('Truncated', `missing file ${file}`, 0, file);
      }
      tables.push(present.has(file) ? new ParquetTable(file, () => dir.open(file)) : undefined);
    }
    if (parquetFiles.size !== blockCount) {
      warnings.push(`${name} has ${parquetFiles.size} dataframe files for ${blockCount} row blocks`);
    }
    return new FeatureIndex(name, cumulative, labels, version, tables, warnings);
  }
}

/**
 * Block index → parquet file. Upstream loads `sorted(rglob("*.parquet"))` and takes the i-th
 * file as block i; its writer pads indices to the block count's digits, so that sorted order
 * is the numeric one. Names without padding (older writers) sort wrongly from 10 blocks on
 * (`dataframe_10` before `dataframe_2`), so blocks are matched by the number in the name:
 * the same mapping as upstream's wherever upstream's is right. When two names give the same
 * number (`dataframe_1`, `dataframe_01`), the upstream-padded one wins, else the first sorted.
 */
function blockFiles(
  indexName: string,
  candidates: readonly string[],
  blockCount: number,
): { files: Map<number, string>; duplicates: Map<number, string[]> } {
  const pattern = new RegExp(
    `^${indexName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/dataframe_(\\d+)\\.parquet$`,
  );
  const byBlock = new Map<number, string[]>();
  for (const file of [...candidates].sort(comparePythonPaths)) {
    const m = pattern.exec(file);
    if (!m) continue;
    const b = Number(m[1]);
    const list = byBlock.get(b);
    if (list) list.push(file);
    else byBlock.set(b, [file]);
  }
  const files = new Map<number, string>();
  const duplicates = new Map<number, string[]>();
  for (const [b, list] of byBlock) {
    const padded = featureTableFile(indexName, b, blockCount);
    files.set(b, list.includes(padded) ? padded : list[0]);
    if (list.length > 1) duplicates.set(b, list);
  }
  return { files, duplicates };
}

/** Python's sorted() on paths of the same folder: by code point, as str comparison does. */
function comparePythonPaths(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
