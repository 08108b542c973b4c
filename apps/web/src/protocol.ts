/**
 * The messages between the page and the parsing worker. The worker owns every byte source,
 * plugin and reader; the page only ever holds small, structured-clonable answers (a page of
 * tree nodes, a window of bytes, a page of records), so a multi-GB file never crosses over.
 * Nothing here names a format: formats, schemas and converters arrive as data.
 */
import type {
  Candidate,
  FormatRole,
  JsonValue,
  NearMiss,
  OptionSpec,
  OptionValues,
  Problem,
  Schema,
  Summary,
  ValidationReport,
} from '@binscope/core';

/** A file the user gave us, with its path inside a dropped or picked folder. */
export interface InputFile {
  path: string;
  file: File;
}

export type OpenInput =
  /** A picker selection or a drop: one file, several, or a folder's files (`folder` set). */
  { kind: 'files'; files: InputFile[]; folder?: string } | { kind: 'url'; url: string };

/** An entry of the worker's format list (built-in and loaded plugins), for the page's texts. */
export interface FormatEntry {
  id: string;
  title: string;
  kind: 'file' | 'directory';
  role: FormatRole;
  extensions: readonly string[];
}

/**
 * What the page needs to draw a tree row. `file` is the session path of the file the node's
 * bytes are in (see SessionInfo.files), inherited from ancestors; undefined only for nodes
 * that stand for a folder and own no bytes.
 */
export interface TreeNodeView {
  name: string;
  kind: string;
  offset: number;
  length: number;
  file?: string;
  value?: string | number | boolean | null;
  childCount: number;
  /** The defects marked on this node by the format's inspect mode. */
  problems?: NodeProblem[];
}

export interface NodeProblem extends Problem {
  severity: 'error' | 'warning';
}

/** A problem with the node it is marked on: `nodes` runs from the root to that node. */
export interface LocatedDefect extends NodeProblem {
  /** Node names below the root, joined by "/". */
  path: string;
  /** Child positions below the root (what the tree selects). */
  indexPath: number[];
  nodes: TreeNodeView[];
}

export interface ByteStats {
  /** Bytes actually read from the files or fetched over the network so far. */
  bytesRead: number;
  /** Total size of what was opened (all files of a folder). */
  size: number;
  requests: number;
  /** True when the bytes come over HTTP (the counter then means network bytes). */
  remote: boolean;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  offset?: number;
  file?: string;
}

/** A table of records the data view can page through: '' is the reader's main records. */
export interface TableView {
  name: string;
  title: string;
  schema: Schema;
  /** How many records, when the reader knows without reading them. */
  count?: number;
}

/** A conversion the registry offers for the opened format, as declared by its package. */
export interface ConverterView {
  id: string;
  title: string;
  to: string;
  output: 'file' | 'directory';
  extensions: readonly string[];
  options: readonly OptionSpec[];
}

/** One file of the session: `path` is the one name the page and worker use for it. */
export interface SessionFile {
  path: string;
  size: number;
  /** The format detected for it on its own, when it was looked at. */
  format?: string | null;
}

export interface SessionInfo {
  sessionId: number;
  /** The file or folder name (or URL) shown to the user. */
  name: string;
  source: 'file' | 'directory' | 'url';
  /** Session path of the single file being shown (file sessions, even with siblings). */
  mainFile?: string;
  /** Size of the main file (file sessions). */
  mainSize?: number;
  /** The detected entry's id, or null when nothing matched. */
  format: string | null;
  /** The detected entry's role; a plugin reads only 'format' entries and convertibles that have one. */
  role?: FormatRole;
  title: string;
  candidates: Candidate[];
  /** The first bytes, hex, for the unknown view. */
  headHex: string;
  /** For an unknown file: the format it nearly is, and the first byte that differs. */
  nearMiss?: NearMiss;
  /**
   * Every file of the session (a folder's, or the files picked together), by session path:
   * paths relative to what was opened, as picked. Tree nodes, byte locations and byte
   * requests all name files this way.
   */
  files: SessionFile[];
  /** The file whose bytes are shown first (the defect's, the tree's first, or the main file). */
  initialFile?: string;
  /** Opening (header parse) failed: the format matched but the file is broken. */
  openError?: SerializedError;
  summary?: Summary;
  root?: TreeNodeView;
  /** Every problem inspect mode marked in the tree, in check order (errors first). */
  located: LocatedDefect[];
  /** The record tables of the open reader known at open (none when nothing could be opened). */
  tables: TableView[];
  /** The plugin lists further tables as it reads the file: ask for them a page at a time ('tables'). */
  listsTables: boolean;
  /** Conversions from this format. */
  converters: ConverterView[];
  /** A plugin reads this: validation can run. */
  canValidate: boolean;
  /** Validation runs without asking for local files; over HTTP it would fetch everything. */
  autoValidate: boolean;
}

/** A session's tree as inspect mode built it, with the problems marked in it. */
export interface InspectedView {
  root: TreeNodeView;
  located: LocatedDefect[];
}

export interface NodeLocation {
  /** Child indices from the root to the node. */
  path: number[];
  nodes: TreeNodeView[];
}

/** Where a value's bytes are: a range of one session file (SessionInfo.files). */
export interface LocationView {
  file?: string;
  offset: number;
  length: number;
}

/**
 * A value as the page draws it, chosen by the field's logical type (never by format), cut to
 * what a page of records can carry: long text and JSON clipped, large arrays and byte strings
 * previewed by their head. Bytes travel as transferred buffers, never as JSON arrays.
 */
export type ViewValue =
  | { kind: 'null' }
  | { kind: 'number'; text: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'string'; text: string; length: number }
  | {
      kind: 'bytes';
      size: number;
      /** The first bytes, or all of them when `complete`. */
      head: Uint8Array;
      complete: boolean;
      mediaType?: string;
      /** The bytes as text, when they decode as UTF-8 without control characters. */
      text?: string;
    }
  | {
      kind: 'image';
      width: number;
      height: number;
      channels: number;
      mode?: number;
      /** Absent when the image is too large for a page (the detail view asks for it). */
      pixels?: Uint8Array;
    }
  | { kind: 'ndarray'; dtype: string; shape: number[]; count: number; values: string[]; grid?: NdGridView }
  | { kind: 'json'; text: string; length: number }
  | { kind: 'list'; items: ViewValue[]; count: number }
  | { kind: 'struct'; fields: Array<[string, ViewValue]> };

/** A 2-D array's cells for a heatmap (worker/ndarray-grid.ts). */
export interface NdGridView {
  rows: number;
  cols: number;
  /** Every rowStep-th row and colStep-th column is in `cells` (1 unless the array is large). */
  rowStep: number;
  colStep: number;
  shownRows: number;
  shownCols: number;
  /** shownRows × shownCols values, row-major. */
  cells: Float64Array;
  /** Over every finite element (±Infinity when none). */
  min: number;
  max: number;
}

export interface RecordView {
  /** Position in its table. */
  index: number;
  /** By field; a field missing here is absent from the record (or could not be read: see errors). */
  values: Record<string, ViewValue>;
  locations: Record<string, LocationView[]>;
  /** The record stands in for one the format could not read. */
  problem?: SerializedError;
  /** Values that could not be read, by field. */
  errors?: Record<string, SerializedError>;
}

export interface RecordsPage {
  table: string;
  offset: number;
  /** The fields asked for, in order. */
  columns: string[];
  records: RecordView[];
  /** There are records after this page. */
  more: boolean;
  /** Columns that could not be read at all for this page: their cells are blank. */
  columnErrors: Record<string, SerializedError>;
}

export interface ConvertResult {
  /** What was written: `<input>.<ext>` for a file, the folder's name for a directory. */
  name: string;
  output: 'file' | 'zip' | 'directory';
  warnings: string[];
  details: { [key: string]: JsonValue };
}

/**
 * An export the data view offers: one of core's record texts (CSV, JSON Lines: what the CLI's
 * `cat --format` prints) or a converter from any format with a file output, as declared.
 */
export interface ExportView {
  /** `text:<id>` or `converter:<converter id>`. */
  id: string;
  title: string;
  /** Of the file written, without the dot. */
  extension: string;
  mediaType: string;
}

export interface ExportRequest {
  sessionId: number;
  exporter: string;
  table: string;
  /** The fields to write, in the schema's order; all of them when absent. */
  columns?: string[];
  /** The records shown; the whole table when absent. */
  window?: { offset: number; limit: number };
  /** How many records that is, when the page knows (for progress). */
  total?: number;
  /** A file the user picked (File System Access): written chunk by chunk. Else a Blob to download. */
  file?: FileSystemFileHandle;
  values?: OptionValues;
}

export interface ExportResult {
  title: string;
  size: number;
  /** SHA-256 of the bytes written, hex. */
  sha256: string;
  /** Records written, when counted (a format's own CSV dialect streams text, not records). */
  records?: number;
  /** Written to the picked file; otherwise `blob` holds the bytes. */
  saved: boolean;
  blob?: Blob;
  warnings: string[];
}

/**
 * What to look for: exact bytes, or a regular expression over the bytes read as Latin-1 (one
 * character per byte, so a match's index and length are byte offsets).
 */
export type SearchQuery = { pattern: Uint8Array } | { regex: string; ignoreCase?: boolean };

export interface SearchMatch {
  offset: number;
  length: number;
}

/** Both hashes as lowercase hex, of the range they were computed over. */
export interface RangeHashes {
  offset: number;
  length: number;
  crc32: string;
  sha256: string;
}

/** Where a difference is in one file of a comparison: a byte range of a session file, a record. */
export interface DifferenceLocationView {
  /** A session path of that file's session (SessionInfo.files). */
  file?: string;
  offset?: number;
  length?: number;
  record?: number;
  /** The record field stored at this location. */
  field?: string;
}

/** One side of a difference: the value as JSON text (clipped), or absent from that file. */
export interface DifferenceSideView {
  present: boolean;
  text: string;
  location: DifferenceLocationView | null;
}

export interface DifferenceView {
  kind: 'format' | 'header' | 'structure' | 'count' | 'record' | 'layout';
  /** What differs, as core's comparison names it ("header.version", "records[3].label"). */
  path: string;
  a: DifferenceSideView;
  b: DifferenceSideView;
}

/** Two sessions compared by content (core's compareContent): what the compare view lists. */
export interface ComparisonView {
  equal: boolean;
  /** The two files' formats (ids); a comparison of two formats has one 'format' difference. */
  formats: [string, string];
  differences: DifferenceView[];
  recordsCompared: number;
  /** Stopped after `maxRecords` differing records. */
  truncated: boolean;
  maxRecords: number;
}

/** Histogram bins: bin i holds the values v with edges[i] <= v < edges[i + 1]. */
export interface HistogramView {
  edges: number[];
  counts: number[];
}

export interface TopValue {
  /** The value as text (a text longer than 120 characters is counted by its head, ending "…"). */
  value: string;
  count: number;
}

/** Statistics of one field over the records read (see worker/field-stats.ts). */
export interface FieldStatsView {
  name: string;
  /** numeric: int, float, and lists or ndarrays of numbers (their elements); text: strings, bools. */
  kind: 'numeric' | 'text' | 'other';
  /** Records that had the field (null included). */
  present: number;
  nulls: number;
  /** Non-null values: elements for lists and arrays. */
  count: number;
  numeric?: NumericView;
  distinct?: { count: number; exact: boolean };
  top?: TopValue[];
  /** A list or array field: each record's sum and count of its elements (see worker/record-totals.ts). */
  perRecord?: {
    sum: NumericView;
    count: NumericView;
    /** Mean of 1 − count / columns, when the field's metadata gives `columns` (the dense width). */
    sparsity?: number;
  };
  /** A field whose metadata names its `indices` field and `columns`: each column's total. */
  columnTotals?: {
    columns: number;
    /** Histogram (and min, max, mean) of the columns' totals, every column counted. */
    numeric: NumericView;
    /** The columns with the largest totals, largest first (ties by column number). */
    top: Array<{ column: number; total: number }>;
    /** Values whose column position was outside 0..columns − 1 (left out of the totals). */
    outside: number;
  };
}

export interface NumericView {
  min: number;
  max: number;
  mean: number;
  nonFinite: number;
  histogram: HistogramView;
}

/** Statistics of a table's fields, as far as they have been computed. */
export interface TableStatsView {
  table: string;
  /** Records read so far. */
  records: number;
  /** Records in the table, when known (given by the reader or found by probing). */
  total?: number;
  /** Computed from records spread evenly over the table, not all of them. */
  sampled: boolean;
  /** Records this pass reads in all, when known (for progress). */
  planned?: number;
  done: boolean;
  fields: FieldStatsView[];
  /** Reading stopped at a record that could not be read: the statistics are of those before it. */
  stopped?: SerializedError;
}

/** Shannon entropy (bits per byte, 0–8) of blocks sampled evenly along a file. */
export interface ByteProfileView {
  size: number;
  samples: Array<{ offset: number; length: number; entropy: number }>;
}

export type Request =
  | { type: 'formats' }
  /** Imports a format plugin module (same-origin URL, or a file the user picked) into the registry. */
  | { type: 'loadPlugin'; url?: string; file?: File }
  | { type: 'open'; input: OpenInput }
  /** Opens a second file to compare with the open one, beside it (the next 'open' closes both). */
  | { type: 'openCompare'; input: OpenInput }
  /** Compares two open sessions by content; differences after `maxRecords` differing records are not listed. */
  | { type: 'compare'; sessionId: number; otherId: number; maxRecords: number }
  | { type: 'close'; sessionId: number }
  | { type: 'children'; sessionId: number; path: number[]; start: number; end: number }
  | { type: 'nodeAt'; sessionId: number; file?: string; offset: number }
  | { type: 'bytes'; sessionId: number; file?: string; offset: number; length: number }
  | { type: 'size'; sessionId: number; file?: string }
  /** The next (or, backward, previous) match of `query` from `from`. */
  | { type: 'search'; sessionId: number; file?: string; query: SearchQuery; from: number; backward: boolean }
  /** The first `limit` matches of `query` in the file (at most 1,000). */
  | { type: 'searchAll'; sessionId: number; file?: string; query: SearchQuery; limit: number }
  /** CRC-32 and SHA-256 of a byte range, streamed through the file's byte source. */
  | { type: 'hash'; sessionId: number; file?: string; offset: number; length: number }
  | { type: 'validate'; sessionId: number }
  /** The format's inspect mode, once validation found problems: the tree with them marked. */
  | { type: 'inspect'; sessionId: number }
  | {
      type: 'records';
      sessionId: number;
      table: string;
      offset: number;
      limit: number;
      columns?: string[];
    }
  /** Tables the plugin lists by reading the file, [offset, offset + limit) of its listing. */
  | { type: 'tables'; sessionId: number; offset: number; limit: number }
  /** One value of one record, previewed at detail size (a larger image, more of a byte string). */
  | { type: 'value'; sessionId: number; table: string; index: number; field: string }
  | { type: 'stats'; sessionId: number }
  /**
   * Statistics of a table's fields, partial results as progress (`partial`). Unless `exact`, a
   * large table is estimated from records spread evenly over it. `total`: its record count,
   * when an earlier pass found it.
   */
  | { type: 'tableStats'; sessionId: number; table: string; exact: boolean; total?: number }
  /** The entropy of `strips` blocks spread evenly along a file (read on request: it reads them all). */
  | { type: 'byteProfile'; sessionId: number; file?: string; strips: number }
  /** Runs a declared converter on the session's input, into `directory` (File System Access) or memory. */
  | {
      type: 'convert';
      sessionId: number;
      converter: string;
      values: OptionValues;
      directory?: FileSystemDirectoryHandle;
    }
  /** Opens what the last in-memory conversion produced, as a new session. */
  | { type: 'openConverted'; sessionId: number }
  /** The exports the data view offers, and the most a download built in memory holds. */
  | { type: 'exports' }
  /** Writes records of a table (shown or all) as one of the exports, streamed. */
  | ({ type: 'export' } & ExportRequest);

export interface ResponseMap {
  formats: FormatEntry[];
  loadPlugin: FormatEntry[];
  open: SessionInfo;
  openCompare: SessionInfo;
  compare: ComparisonView;
  close: null;
  children: TreeNodeView[];
  nodeAt: NodeLocation;
  bytes: Uint8Array;
  size: number;
  search: SearchMatch | null;
  searchAll: { matches: SearchMatch[]; more: boolean };
  hash: RangeHashes;
  validate: ValidationReport;
  inspect: InspectedView;
  records: RecordsPage;
  tables: { tables: TableView[]; more: boolean };
  value: ViewValue;
  stats: ByteStats;
  tableStats: TableStatsView;
  byteProfile: ByteProfileView;
  /** `bytes`: a file output, or a directory output zipped, when it was built in memory. */
  convert: { result: ConvertResult; bytes?: Uint8Array };
  openConverted: SessionInfo;
  exports: { exports: ExportView[]; maxDownload: number };
  export: ExportResult;
}

export type Envelope = ({ id: number } & Request) | { id: number; type: 'cancel'; target: number };

export type Reply =
  | { id: number; ok: true; result: unknown; stats?: ByteStats }
  | { id: number; ok: false; error: SerializedError; stats?: ByteStats }
  | { id: number; progress: WorkProgress; stats?: ByteStats };

export interface WorkProgress {
  phase?: string;
  done: number;
  total?: number;
  /** What a long computation has found so far (tableStats). */
  partial?: TableStatsView;
}

export type { Problem, Schema, Summary, ValidationReport, JsonValue };
