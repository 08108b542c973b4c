import {
  type AnyFormatPlugin,
  BlobSource,
  type ByteSource,
  type Detection,
  type DirectorySource,
  directoryTarget,
  FileListDirectory,
  type FormatReader,
  fileTarget,
  HttpSource,
  type InspectNode,
  isFormatError,
  isSourceError,
  type JsonRecord,
  nodesAt,
  type ProgressCallback,
  SubDirectory,
  type Summary,
  type Target,
  type ValidationReport,
  basename,
  dirname,
  toHex,
} from '@binscope/core';
import type {
  ByteStats,
  DataViewKind,
  InputFile,
  NodeLocation,
  OpenInput,
  SerializedError,
  SessionInfo,
  TreeNodeView,
} from '../protocol';
import { CoverageDirectory, CoverageSource } from './counting';
import { registry } from './plugins';

/** HDF5's signature; AnnData .h5ad files start with it (a user block may push it to 512, 1024, ...). */
const HDF5_MAGIC = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

export function isHdf5(head: Uint8Array): boolean {
  for (let at = 0; at + 8 <= head.byteLength; at = at === 0 ? 512 : at * 2) {
    if (HDF5_MAGIC.every((b, i) => head[at + i] === b)) return true;
  }
  return false;
}

const LAZY_PAGE = 256;

export function serializeError(error: unknown): SerializedError {
  if (isFormatError(error)) {
    return {
      name: 'FormatError',
      message: error.detail,
      code: error.code,
      offset: error.offset,
      file: error.file,
    };
  }
  if (isSourceError(error)) return { name: 'SourceError', message: error.message, file: error.path };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

interface Counters {
  http?: HttpSource;
  /** Every local file is read through this, so its coverage totals the session's reads. */
  directory?: CoverageDirectory;
}

interface Opened {
  target: Target;
  /** The file being shown, for file targets. */
  main?: { path: string; source: ByteSource };
  files: InputFile[] | null;
  /** Paths and sizes of a folder held in the worker (no Files behind it). */
  listing?: Array<{ path: string; size: number }>;
  directory?: DirectorySource;
  detection: Detection;
  fileFormats: Map<string, string | null>;
}

/**
 * Everything one opened file or folder needs: its sources, the plugin and its reader, the
 * inspection tree (lazy pages cached as they are asked for) and the byte counters.
 */
export class Session {
  plugin?: AnyFormatPlugin;
  reader?: FormatReader;
  root?: InspectNode;
  summary?: Summary;
  openError?: SerializedError;
  /** Anything format views want to keep between queries (decoded indexes, open sub-readers). */
  readonly cache = new Map<string, unknown>();
  private readonly lazyPages = new WeakMap<InspectNode, Map<number, Promise<InspectNode[]>>>();
  private readonly fileSources = new Map<string, Promise<ByteSource>>();

  private constructor(
    readonly id: number,
    readonly input: OpenInput,
    readonly opened: Opened,
    private readonly counters: Counters,
    readonly totalSize: number,
  ) {}

  get target(): Target {
    return this.opened.target;
  }
  get detection(): Detection {
    return this.opened.detection;
  }
  get format(): string | null {
    if (!this.detection.format && this.opened.target.kind === 'file' && isHdf5(this.detection.head))
      return 'h5ad';
    return this.detection.format;
  }

  static async open(id: number, input: OpenInput, signal: AbortSignal): Promise<Session> {
    const counters: Counters = {};
    let opened: Opened;
    let totalSize: number;
    if (input.kind === 'url') {
      const http = await HttpSource.open(input.url, { signal });
      counters.http = http;
      const target = fileTarget(http);
      const detection = await registry.detect(target, { signal });
      const path = basename(new URL(input.url, 'http://x/').pathname) || input.url;
      opened = { target, main: { path, source: http }, files: null, detection, fileFormats: new Map() };
      totalSize = http.size;
    } else {
      opened = await openFiles(input.files, input.folder, counters, signal);
      totalSize = input.files.reduce((sum, f) => sum + f.file.size, 0);
    }
    const session = new Session(id, input, opened, counters, totalSize);
    await session.load(signal);
    return session;
  }

  /** A directory held in the worker (an archive just converted from .h5ad), as a new session. */
  static async fromDirectory(id: number, directory: DirectorySource, signal: AbortSignal): Promise<Session> {
    const coverage = new CoverageDirectory(directory);
    const target = directoryTarget(coverage);
    const detection = await registry.detect(target, { signal });
    const listing: Array<{ path: string; size: number }> = [];
    for (const path of await directory.list())
      listing.push({ path, size: (await directory.open(path)).size });
    const totalSize = listing.reduce((sum, f) => sum + f.size, 0);
    const opened: Opened = {
      target,
      files: null,
      listing,
      directory: coverage,
      detection,
      fileFormats: new Map(),
    };
    const session = new Session(
      id,
      { kind: 'files', files: [], folder: directory.name },
      opened,
      { directory: coverage },
      totalSize,
    );
    await session.load(signal);
    return session;
  }

  /** The AnnData inputs of this session: the file shown, or every .h5ad dropped with it. */
  h5adFiles(): File[] {
    const { files, fileFormats, main } = this.opened;
    if (!files) return [];
    const all = files.filter((f) => fileFormats.get(f.path) === 'h5ad').map((f) => f.file);
    if (all.length > 0) return all;
    const shown = files.find((f) => f.path === main?.path);
    return shown ? [shown.file] : [];
  }

  /** Opens the reader and builds the summary and tree: header-sized reads only. */
  private async load(signal: AbortSignal): Promise<void> {
    const plugin = this.detection.plugin;
    if (!plugin) return;
    this.plugin = plugin;
    try {
      this.reader = await plugin.open(this.target, { signal });
      this.summary = await plugin.info(this.reader, { signal });
      this.root = await plugin.inspect(this.reader, { signal });
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError = serializeError(error);
    }
  }

  stats(): ByteStats {
    if (this.counters.http) {
      return {
        bytesRead: this.counters.http.bytesFetched,
        size: this.totalSize,
        requests: this.counters.http.requests,
        remote: true,
      };
    }
    const dir = this.counters.directory;
    return { bytesRead: dir?.bytesRead ?? 0, size: this.totalSize, requests: dir?.reads ?? 0, remote: false };
  }

  info(): SessionInfo {
    const { opened } = this;
    const format = this.format;
    const files = opened.files
      ? opened.files.map((f) => ({ path: f.path, size: f.file.size, format: opened.fileFormats.get(f.path) }))
      : (opened.listing ?? []);
    return {
      sessionId: this.id,
      name:
        this.input.kind === 'url'
          ? this.input.url
          : this.target.kind === 'directory'
            ? this.target.directory.name
            : (opened.main?.path ?? 'file'),
      source: this.input.kind === 'url' ? 'url' : this.target.kind,
      mainFile: opened.main?.path,
      mainSize: opened.main?.source.size,
      format,
      title: format === 'h5ad' ? 'AnnData (.h5ad, HDF5)' : this.detection.title,
      candidates: this.detection.candidates,
      headHex: this.detection.headHex || toHex(this.detection.head),
      nearMiss: this.detection.nearMiss,
      files,
      openError: this.openError,
      summary: this.summary,
      root: this.root ? this.view(this.root, this.root.file) : this.fallbackRoot(),
      view: this.dataView(),
      autoValidate: this.input.kind !== 'url' && !!this.plugin,
    };
  }

  /** Without a parser there is still a file to look at: the whole file as one range. */
  private fallbackRoot(): TreeNodeView | undefined {
    const main = this.opened.main;
    if (!main) return undefined;
    return { name: main.path, kind: 'file', offset: 0, length: main.source.size, childCount: 0 };
  }

  private dataView(): DataViewKind {
    const format = this.format;
    if (format === 'h5ad') return 'h5ad';
    if (!this.reader) return 'none';
    if (
      format === 'scbf' ||
      format === 'mldf' ||
      format === 'scdl' ||
      format === 'udf' ||
      format === 'taridx'
    ) {
      return format;
    }
    return 'records';
  }

  private view(node: InspectNode, file: string | undefined): TreeNodeView {
    return {
      name: node.name,
      kind: node.kind,
      offset: node.offset,
      length: node.length,
      file,
      value: node.value,
      childCount: (node.children?.length ?? 0) + (node.lazy?.count ?? 0),
    };
  }

  private async lazyChild(parent: InspectNode, index: number, signal?: AbortSignal): Promise<InspectNode> {
    const page = Math.floor(index / LAZY_PAGE);
    return (await this.lazyPage(parent, page, signal))[index - page * LAZY_PAGE];
  }

  private lazyPage(parent: InspectNode, page: number, signal?: AbortSignal): Promise<InspectNode[]> {
    let pages = this.lazyPages.get(parent);
    if (!pages) this.lazyPages.set(parent, (pages = new Map()));
    let loaded = pages.get(page);
    if (!loaded) {
      const lazy = parent.lazy!;
      const start = page * LAZY_PAGE;
      loaded = lazy.load(start, Math.min(lazy.count, start + LAZY_PAGE));
      // A failed or cancelled page must not stay cached.
      loaded.catch(() => pages.delete(page));
      pages.set(page, loaded);
    }
    signal?.throwIfAborted();
    return loaded;
  }

  private async child(parent: InspectNode, index: number, signal?: AbortSignal): Promise<InspectNode> {
    const eager = parent.children ?? [];
    if (index < eager.length) return eager[index];
    if (!parent.lazy || index - eager.length >= parent.lazy.count) throw new RangeError(`no child ${index}`);
    return this.lazyChild(parent, index - eager.length, signal);
  }

  private async resolve(path: number[], signal?: AbortSignal): Promise<{ node: InspectNode; file?: string }> {
    if (!this.root) throw new Error('this file has no structure tree');
    let node = this.root;
    let file = node.file;
    for (const index of path) {
      node = await this.child(node, index, signal);
      file = node.file ?? file;
    }
    return { node, file };
  }

  async children(path: number[], start: number, end: number, signal?: AbortSignal): Promise<TreeNodeView[]> {
    const { node, file } = await this.resolve(path, signal);
    const count = (node.children?.length ?? 0) + (node.lazy?.count ?? 0);
    const out: TreeNodeView[] = [];
    for (let i = Math.max(0, start); i < Math.min(count, end); i++) {
      const child = await this.child(node, i, signal);
      out.push(this.view(child, child.file ?? file));
    }
    return out;
  }

  /**
   * The deepest node owning `offset` (click a byte → its node). Core's nodesAt walks the
   * children built up front; where a node's children are lazy (millions of index rows) we
   * binary-search them a page at a time, which assumes they are in offset order, as every
   * format's row tables are. Returns the path as child indices so the page can expand it.
   */
  async nodeAt(file: string | undefined, offset: number, signal?: AbortSignal): Promise<NodeLocation> {
    if (!this.root) return { path: [], nodes: [] };
    const matchFile = this.target.kind === 'directory' ? file : undefined;
    const path: number[] = [];
    const nodes: TreeNodeView[] = [];
    let current = this.root;
    let currentFile = current.file;
    nodes.push(this.view(current, currentFile));
    for (;;) {
      const eagerPath = nodesAt(current, offset, matchFile);
      // nodesAt starts with `current` itself.
      for (let i = 1; i < eagerPath.length; i++) {
        const parent = eagerPath[i - 1];
        const child = eagerPath[i];
        path.push(parent.children!.indexOf(child));
        currentFile = child.file ?? currentFile;
        nodes.push(this.view(child, currentFile));
      }
      current = eagerPath[eagerPath.length - 1];
      if (!current.lazy) break;
      const found = await this.searchLazy(current, currentFile, matchFile, offset, signal);
      if (!found) break;
      path.push((current.children?.length ?? 0) + found.index);
      current = found.node;
      currentFile = current.file ?? currentFile;
      nodes.push(this.view(current, currentFile));
    }
    return { path, nodes };
  }

  private async searchLazy(
    parent: InspectNode,
    parentFile: string | undefined,
    file: string | undefined,
    offset: number,
    signal?: AbortSignal,
  ): Promise<{ node: InspectNode; index: number } | undefined> {
    let lo = 0;
    let hi = parent.lazy!.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const node = await this.lazyChild(parent, mid, signal);
      const nodeFile = node.file ?? parentFile;
      if (file !== undefined && nodeFile !== undefined && nodeFile !== file) return undefined;
      if (offset < node.offset) hi = mid - 1;
      else if (offset >= node.offset + Math.max(node.length, 1)) lo = mid + 1;
      else return node.length > 0 ? { node, index: mid } : undefined;
    }
    return undefined;
  }

  /** The byte source behind a tree node's `file` (the main file, an archive member, a shard). */
  private source(file: string | undefined): Promise<ByteSource> {
    const { target, main } = this.opened;
    if (target.kind === 'file') {
      if (
        !file ||
        file === main?.path ||
        file === basename(main?.path ?? '') ||
        file === target.source.name
      ) {
        return Promise.resolve(target.source);
      }
    }
    if (!file) {
      return Promise.reject(new Error('choose a file of the folder to see its bytes'));
    }
    let source = this.fileSources.get(file);
    if (!source) {
      const dir = target.kind === 'directory' ? target.directory : target.siblings;
      // A single file names only itself; whatever the tree calls it, its bytes are the file's.
      if (!dir && target.kind === 'file') return Promise.resolve(target.source);
      source = dir!.open(file);
      source.catch(() => this.fileSources.delete(file));
      this.fileSources.set(file, source);
    }
    return source;
  }

  async bytes(
    file: string | undefined,
    offset: number,
    length: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const source = await this.source(file);
    const start = Math.max(0, Math.min(offset, source.size));
    const end = Math.min(source.size, start + Math.max(0, Math.min(length, 1 << 20)));
    return (await source.read(start, end - start, { signal })).slice();
  }

  async fileSize(file: string | undefined): Promise<number> {
    return (await this.source(file)).size;
  }

  async validate(signal: AbortSignal, onProgress?: ProgressCallback): Promise<ValidationReport> {
    if (!this.plugin) return { valid: false, errors: [], warnings: [] };
    try {
      return await this.plugin.validate(this.target, { signal, onProgress });
    } catch (error) {
      if (signal.aborted) throw error;
      // validate() promises not to throw for bad input; if it does, show it rather than hide it.
      const e = serializeError(error);
      return {
        valid: false,
        errors: [{ code: e.code ?? e.name, message: e.message, offset: e.offset, file: e.file }],
        warnings: [],
      };
    }
  }

  async records(
    offset: number,
    limit: number,
    columns: string[] | undefined,
    signal: AbortSignal,
  ): Promise<JsonRecord[]> {
    if (!this.plugin || !this.reader) return [];
    const out: JsonRecord[] = [];
    for await (const record of this.plugin.records(this.reader, { offset, limit, columns, signal })) {
      out.push(record);
      if (out.length >= limit) break;
    }
    return out;
  }

  async close(): Promise<void> {
    await this.reader?.close?.().catch(() => {});
  }
}

async function openFiles(
  files: InputFile[],
  folder: string | undefined,
  counters: Counters,
  signal: AbortSignal,
): Promise<Opened> {
  if (files.length === 0) throw new Error('nothing to open: the selection was empty');
  const listing = new FileListDirectory(
    files.map((f) => [f.path, f.file] as [string, Blob]),
    folder,
  );
  const directory = new CoverageDirectory(listing);
  counters.directory = directory;
  // FileListDirectory strips a top folder shared by every path; keep our paths in step.
  const strip = commonTop(files.map((f) => f.path));
  const paths = files.map((f) => ({ ...f, path: strip ? f.path.slice(strip.length + 1) : f.path }));

  // A folder may be a directory format (an SCDL archive) as a whole.
  if (folder !== undefined || paths.some((f) => f.path.includes('/'))) {
    const target = directoryTarget(directory);
    const detection = await registry.detect(target, { signal });
    if (detection.plugin) return { target, files: paths, directory, detection, fileFormats: new Map() };
  }

  // Otherwise one of the files is the thing to show, the rest are its siblings (tar shards
  // dropped with their .taridx). A parsed format beats a plain tar; order breaks ties.
  const fileFormats = new Map<string, string | null>();
  let best: { path: string; source: ByteSource; detection: Detection; rank: number } | undefined;
  for (const f of paths.slice(0, 512)) {
    const source = new CoverageSource(new BlobSource(f.file, basename(f.path)), directory.coverageOf(f.path));
    const detection = await registry.detect(fileTarget(source), { signal });
    const head = detection.head;
    const format = detection.format ?? (isHdf5(head) ? 'h5ad' : null);
    fileFormats.set(f.path, format);
    const rank = detection.plugin ? 3 : format === 'h5ad' ? 2 : format ? 1 : 0;
    if (!best || rank > best.rank) best = { path: f.path, source, detection, rank };
  }
  const chosen = best!;
  const folderOfMain = dirname(chosen.path);
  const siblings = folderOfMain ? new SubDirectory(directory, folderOfMain) : directory;
  const target = fileTarget(chosen.source, paths.length > 1 || folder !== undefined ? siblings : undefined);
  return {
    target,
    main: { path: chosen.path, source: chosen.source },
    files: paths,
    directory,
    detection: chosen.detection,
    fileFormats,
  };
}

function commonTop(paths: string[]): string {
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.split('/')[0] : '')));
  return tops.size === 1 ? [...tops][0] : '';
}
