import {
  type AnyFormatPlugin,
  type ByteSource,
  type Detection,
  type DirectorySource,
  directoryTarget,
  type FormatReader,
  fileTarget,
  type InspectNode,
  isBinscopeError,
  type LocatedProblem,
  type JsonRecord,
  recordToJson,
  nodesAt,
  type ProgressCallback,
  type Summary,
  type Target,
  type ValidationReport,
  basename,
  dirname,
} from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { HttpSource } from '@binscope/core/http';
import type {
  ByteStats,
  DataViewKind,
  InspectedView,
  LocatedDefect,
  NodeLocation,
  OpenInput,
  SerializedError,
  SessionInfo,
  TreeNodeView,
} from '../protocol';
import { CoverageDirectory } from './counting';
import { explainFetchFailure } from './fetch-failure';
import { inspectedFormat, inspectModeTree, inspectTree, locatedDefect, nodeView } from './inspect-mode';
import { type Counters, isHdf5, type Opened, openFiles } from './open-files';
import { registry } from './plugins';

const LAZY_PAGE = 256;

export function serializeError(error: unknown): SerializedError {
  if (isBinscopeError(error, 'FormatError')) {
    return {
      name: 'FormatError',
      message: error.detail,
      code: error.code,
      offset: error.offset,
      file: error.file,
    };
  }
  if (isBinscopeError(error, 'SourceError'))
    return { name: 'SourceError', message: error.message, file: error.path };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
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
  /** The problems inspect mode marked on tree nodes, in check order. */
  located: LocatedProblem[] = [];
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
      const http = await HttpSource.open(input.url, { signal }).catch((error: unknown) => {
        throw explainFetchFailure(input.url, error);
      });
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
    const format = inspectedFormat(this.detection, registry);
    if (!format) return;
    let plugin: AnyFormatPlugin;
    try {
      // The parser's chunk is fetched now, for the detected format only.
      plugin = await registry.load(format.id);
      this.plugin = plugin;
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError = serializeError(error);
      return;
    }
    try {
      this.reader = await plugin.open(this.target, { signal });
      this.summary = await plugin.info(this.reader, { signal });
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError = serializeError(error);
    }
    try {
      const tree = await inspectTree(plugin, this.target, this.reader, signal);
      this.root = tree.root;
      this.located = tree.located;
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError ??= serializeError(error);
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
      ? opened.files.map((f) => ({
          path: f.path,
          size: f.file.size,
          format: opened.fileFormats.get(f.path),
          ref: this.refOf(f.path),
        }))
      : (opened.listing ?? []).map((f) => ({ ...f, ref: f.path }));
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
      located: this.locatedViews(),
      view: this.dataView(),
      autoValidate: this.input.kind !== 'url' && !!this.plugin,
    };
  }

  /**
   * The `file` a folder path is read by. A directory target names its files by folder path,
   * as its tree does. A single file's tree names its siblings relative to its own folder,
   * so a file outside that folder is addressed by its folder path after a '/'.
   */
  private refOf(path: string): string {
    const { target, main } = this.opened;
    if (target.kind === 'directory' || !main) return path;
    if (path === main.path) return path;
    const base = dirname(main.path);
    if (!base) return path;
    return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : `/${path}`;
  }

  /** True when `file` names the opened single file itself (the tree's own bytes). */
  private isMain(file: string | undefined): boolean {
    const { target, main } = this.opened;
    if (target.kind !== 'file') return false;
    return (
      !file ||
      file === main?.path ||
      file === basename(main?.path ?? '') ||
      file === target.source.name ||
      file === this.root?.file
    );
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

  private locatedViews(): LocatedDefect[] {
    const root = this.root;
    return root ? this.located.map((p) => locatedDefect(root, p, this.located)) : [];
  }

  /** Re-parses in inspect mode (validation found problems in a file that opened): the marked tree. */
  async inspect(signal: AbortSignal): Promise<InspectedView> {
    if (!this.plugin) throw new Error('no format reads this file');
    const tree = await inspectModeTree(this.plugin, this.target, signal);
    this.root = tree.root;
    this.located = tree.located;
    return { root: this.view(tree.root, tree.root.file), located: this.locatedViews() };
  }

  private view(node: InspectNode, file: string | undefined): TreeNodeView {
    return nodeView(node, file, this.located);
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
    // Bytes of a file no tree node lives in belong to no node (not to the main file's node
    // at the same offset).
    if (file?.startsWith('/')) return { path: [], nodes: [] };
    const matchFile = this.target.kind === 'directory' || !this.isMain(file) ? file : undefined;
    const path: number[] = [];
    const nodes: TreeNodeView[] = [];
    // Nodes without a file of their own belong to the main file: name it, so that a sibling's
    // bytes (a shard, a CSV next to it) never land on them.
    const mainName = this.target.kind === 'file' ? this.opened.main?.path : undefined;
    let current: InspectNode = matchFile && !this.root.file ? { ...this.root, file: mainName } : this.root;
    let currentFile = current.file;
    nodes.push(this.view(this.root, this.root.file));
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
    // The root of a single file's tree is that file, not its sibling.
    if (mainName && matchFile && path.length === 0) return { path: [], nodes: [] };
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
    const { target } = this.opened;
    if (target.kind === 'file' && this.isMain(file)) return Promise.resolve(target.source);
    if (file?.startsWith('/')) return this.rootFile(file.slice(1));
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

  /** A file of the picked folder by its folder path (files outside the main file's folder). */
  private rootFile(path: string): Promise<ByteSource> {
    const root = this.opened.directory;
    if (!root) return Promise.reject(new Error(`${path}: no such file`));
    const key = `/${path}`;
    let source = this.fileSources.get(key);
    if (!source) {
      source = root.open(path);
      source.catch(() => this.fileSources.delete(key));
      this.fileSources.set(key, source);
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

  /** The bytes behind a tree node's or a files-panel entry's `file`. */
  fileSource(file: string | undefined): Promise<ByteSource> {
    return this.source(file);
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
      out.push(await recordToJson(this.reader.schema, record));
      if (out.length >= limit) break;
    }
    return out;
  }

  async close(): Promise<void> {
    await this.reader?.close?.().catch(() => {});
  }
}
