/**
 * The messages between the page and the parsing worker. The worker owns every byte source
 * and reader; the page only ever holds small, structured-clonable answers (a page of tree
 * nodes, a window of bytes, a page of records), so a multi-GB file never crosses over.
 */
import type {
  Candidate,
  JsonRecord,
  JsonValue,
  NearMiss,
  Problem,
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

/** What the page needs to draw a tree row. `file` is already inherited from ancestors. */
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

/** Which format-specific data view fits the opened thing. */
export type DataViewKind = 'scbf' | 'mldf' | 'scdl' | 'udf' | 'taridx' | 'h5ad' | 'records' | 'none';

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

export interface SessionInfo {
  sessionId: number;
  /** The file or folder name (or URL) shown to the user. */
  name: string;
  source: 'file' | 'directory' | 'url';
  /** The single file being shown, when the session is a file (even when siblings came along). */
  mainFile?: string;
  /** Size of the main file (file sessions). */
  mainSize?: number;
  /** Plugin id, 'tar' for a plain tar shard, 'h5ad' for AnnData input, or null when unknown. */
  format: string | null;
  title: string;
  candidates: Candidate[];
  /** The first bytes, hex, for the unknown view. */
  headHex: string;
  /** For an unknown file: the format it nearly is, and the first byte that differs. */
  nearMiss?: NearMiss;
  /** Files of a folder session (or files dropped together), with sizes. */
  files: Array<{
    path: string;
    size: number;
    format?: string | null;
    /**
     * What to send as `file` to read this file's bytes: the name the tree uses for it (tree
     * names of a single file are relative to that file's folder), or its folder path after
     * a '/' when it lies outside that folder and no tree node can own its bytes.
     */
    ref: string;
  }>;
  /** Opening (header parse) failed: the format matched but the file is broken. */
  openError?: SerializedError;
  summary?: Summary;
  root?: TreeNodeView;
  /** Every problem inspect mode marked in the tree, in check order (errors first). */
  located: LocatedDefect[];
  view: DataViewKind;
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

/** Format-specific view queries answered by the worker's data-view providers. */
export interface ViewQuery {
  op: string;
  [key: string]: JsonValue | undefined;
}

export type Request =
  | { type: 'open'; input: OpenInput }
  | { type: 'close'; sessionId: number }
  | { type: 'children'; sessionId: number; path: number[]; start: number; end: number }
  | { type: 'nodeAt'; sessionId: number; file?: string; offset: number }
  | { type: 'bytes'; sessionId: number; file?: string; offset: number; length: number }
  | { type: 'size'; sessionId: number; file?: string }
  /** The next (or, backward, previous) occurrence of `pattern` from `from`. */
  | { type: 'search'; sessionId: number; file?: string; pattern: Uint8Array; from: number; backward: boolean }
  | { type: 'validate'; sessionId: number }
  /** The format's inspect mode, once validation found problems: the tree with them marked. */
  | { type: 'inspect'; sessionId: number }
  | { type: 'records'; sessionId: number; offset: number; limit: number; columns?: string[] }
  | { type: 'view'; sessionId: number; query: ViewQuery }
  | { type: 'stats'; sessionId: number }
  /** Converts the session's .h5ad file(s) to SCDL, into `directory` (File System Access) or a zip. */
  | {
      type: 'convertH5ad';
      sessionId: number;
      options: H5adConvertOptions;
      directory?: FileSystemDirectoryHandle;
    }
  /** Opens the archive the last in-memory conversion produced, as a new session. */
  | { type: 'openConverted'; sessionId: number };

export interface ResponseMap {
  open: SessionInfo;
  close: null;
  children: TreeNodeView[];
  nodeAt: NodeLocation;
  bytes: Uint8Array;
  size: number;
  search: number | null;
  validate: ValidationReport;
  inspect: InspectedView;
  records: JsonRecord[];
  view: ViewResult;
  stats: ByteStats;
  convertH5ad: { result: ConvertH5adResult; zip?: Uint8Array };
  openConverted: SessionInfo;
}

export interface H5adConvertOptions {
  dataDtype: string;
  /** Cast values the data dtype cannot hold as numpy does (C10) instead of refusing them. */
  lossyCast?: boolean;
  useX: boolean;
  /** obsp key for neighbor files, or '' for none. */
  neighbors: string;
}

export interface ConvertH5adResult {
  /** The archive folder's name (`<input>.scdl`). */
  name: string;
  output: 'zip' | 'directory';
  warnings: string[];
  result: { [key: string]: JsonValue };
}

/** A view answer: JSON plus, optionally, raw buffers (images, payloads, archive files). */
export interface ViewResult {
  json: JsonValue;
  buffers?: Record<string, Uint8Array>;
}

export type Envelope = ({ id: number } & Request) | { id: number; type: 'cancel'; target: number };

export type Reply =
  | { id: number; ok: true; result: unknown; stats?: ByteStats }
  | { id: number; ok: false; error: SerializedError; stats?: ByteStats }
  | { id: number; progress: { phase?: string; done: number; total?: number } };

export type { Problem, Summary, ValidationReport, JsonRecord, JsonValue };
