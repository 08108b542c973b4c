import {
  type AnyFormatPlugin,
  type ByteSource,
  type FormatReader,
  isBinscopeError,
  type ProgressCallback,
  type Summary,
  type ValidationReport,
} from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import type {
  ByteStats,
  InspectedView,
  OpenInput,
  SerializedError,
  SessionInfo,
  TableView,
} from '../protocol';
import { inspectedFormat, inspectModeTree, inspectTree } from './inspect-mode';
import { type Opened, openFiles, openUrl } from './open-files';
import { registry } from './registry';
import { plain, TableCatalogue, tableLister, tableView } from './tables';
import { SessionTree } from './tree';

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
 * Everything one opened file or folder needs: its files, the plugin and its reader, the
 * inspection tree and the byte counters. Nothing here depends on which format it is.
 */
export class Session {
  plugin?: AnyFormatPlugin;
  reader?: FormatReader;
  tree?: SessionTree;
  /** The tables the plugin lists only by reading the file, as far as listed. */
  catalogue?: TableCatalogue;
  summary?: Summary;
  openError?: SerializedError;
  /** What the last in-memory conversion of this session produced, for "open it". */
  converted?: { name: string; open(signal: AbortSignal): Promise<Opened> };

  constructor(
    readonly id: number,
    readonly opened: Opened,
    /** What the user calls it: the file or folder name, or the URL. */
    readonly name: string,
    readonly remote: boolean,
  ) {}

  get target() {
    return this.opened.target;
  }
  get detection() {
    return this.opened.detection;
  }
  get files() {
    return this.opened.files;
  }

  static async open(id: number, input: OpenInput, signal: AbortSignal): Promise<Session> {
    if (input.kind === 'url')
      return Session.load(id, await openUrl(input.url, signal), input.url, true, signal);
    const opened = await openFiles(input.files, input.folder, signal);
    const name =
      opened.target.kind === 'directory'
        ? opened.target.directory.name
        : (opened.files.main?.path ?? input.files[0].path);
    return Session.load(id, opened, name, false, signal);
  }

  static async load(id: number, opened: Opened, name: string, remote: boolean, signal: AbortSignal) {
    const session = new Session(id, opened, name, remote);
    await session.load(signal);
    return session;
  }

  /**
   * Opens the reader and builds the summary and tree: header-sized reads only. The parser's
   * chunk is fetched now, for the detected format only. A detection-only entry (a container,
   * a convertible without a plugin) has none: the page shows what it is.
   */
  private async load(signal: AbortSignal): Promise<void> {
    const format = inspectedFormat(this.detection, registry());
    if (!format) return;
    try {
      this.plugin = await registry().load(format.id);
    } catch (error) {
      if (signal.aborted) throw error;
      if (!isBinscopeError(error, 'DetectionOnly')) this.openError = serializeError(error);
      return;
    }
    try {
      this.reader = await this.plugin.open(this.target, { signal });
      const lister = tableLister(this.plugin);
      if (lister) this.catalogue = new TableCatalogue(lister, this.reader);
      this.summary = await this.plugin.info(this.reader, { signal });
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError = this.named(serializeError(error));
    }
    try {
      const tree = await inspectTree(this.plugin, this.target, this.reader, signal);
      this.tree = await SessionTree.create(tree.root, tree.located, this.files, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      this.openError ??= this.named(serializeError(error));
    }
  }

  private named(error: SerializedError): SerializedError {
    return error.file === undefined ? error : { ...error, file: this.files.fromPlugin(error.file) };
  }

  stats(): ByteStats {
    const { http, directory } = this.opened.counters;
    const size = this.files.list.reduce((sum, f) => sum + f.size, 0);
    if (http) return { bytesRead: http.bytesFetched, size, requests: http.requests, remote: true };
    return { bytesRead: directory?.bytesRead ?? 0, size, requests: directory?.reads ?? 0, remote: false };
  }

  tables(): TableView[] {
    const reader = this.reader;
    if (!reader) return [];
    const out: TableView[] = [];
    if (reader.schema.fields.length > 0)
      out.push({ name: '', title: 'records', schema: plain(reader.schema) });
    for (const t of reader.tables ?? []) out.push(tableView(t));
    return out;
  }

  info(): SessionInfo {
    const { detection, files, tree } = this;
    const located = tree?.locatedViews() ?? [];
    const defectFile = located[0]?.nodes.at(-1)?.file;
    const main = files.main;
    return {
      sessionId: this.id,
      name: this.name,
      source: this.remote ? 'url' : this.target.kind,
      mainFile: main?.path,
      mainSize: main?.source.size,
      format: detection.format,
      role: detection.role,
      title: detection.title,
      candidates: detection.candidates,
      headHex: detection.headHex || toHex(detection.head),
      nearMiss: detection.nearMiss,
      files: files.list,
      initialFile: defectFile ?? tree?.firstFile() ?? main?.path ?? files.list[0]?.path,
      openError: this.openError,
      summary: this.summary,
      root: tree?.rootView() ?? this.fallbackRoot(),
      located,
      tables: this.tables(),
      listsTables: !!this.catalogue,
      converters: this.converters(),
      canValidate: !!this.plugin,
      autoValidate: !this.remote && !!this.plugin,
    };
  }

  private converters(): SessionInfo['converters'] {
    const format = this.detection.format;
    if (!format) return [];
    return registry()
      .convertersFrom(format)
      .map((c) => ({
        id: c.id,
        title: c.title,
        to: c.to,
        output: c.output,
        extensions: [...c.extensions],
        options: plain(c.options ?? []),
      }));
  }

  /** Without a parser there is still a file to look at: the whole file as one range. */
  private fallbackRoot() {
    const main = this.files.main;
    if (!main) return undefined;
    return {
      name: main.path,
      kind: 'file',
      offset: 0,
      length: main.source.size,
      file: main.path,
      childCount: 0,
    };
  }

  /** Re-parses in inspect mode (validation found problems in a file that opened): the marked tree. */
  async inspect(signal: AbortSignal): Promise<InspectedView> {
    if (!this.plugin) throw new Error('no format reads this file');
    const tree = await inspectModeTree(this.plugin, this.target, signal);
    this.tree = await SessionTree.create(tree.root, tree.located, this.files, signal);
    return { root: this.tree.rootView(), located: this.tree.locatedViews() };
  }

  requireTree(): SessionTree {
    if (!this.tree) throw new Error('this file has no structure tree');
    return this.tree;
  }

  fileSource(file: string | undefined): Promise<ByteSource> {
    return this.files.open(file);
  }

  async bytes(file: string | undefined, offset: number, length: number, signal?: AbortSignal) {
    const source = await this.files.open(file);
    const start = Math.max(0, Math.min(offset, source.size));
    const end = Math.min(source.size, start + Math.max(0, Math.min(length, 1 << 20)));
    // A copy: the answer is transferred, and a read may alias the source's own buffers.
    return (await source.read(start, end - start, { signal })).slice();
  }

  async validate(signal: AbortSignal, onProgress?: ProgressCallback): Promise<ValidationReport> {
    if (!this.plugin) return { valid: false, errors: [], warnings: [] };
    // Over a network the pass reads ahead and its progress follows the bytes (RemotePass).
    const pass = this.opened.pass?.(signal, onProgress);
    const target = pass?.target ?? this.target;
    try {
      const report = await this.plugin.validate(target, {
        signal,
        onProgress: pass?.onProgress ?? onProgress,
      });
      pass?.finish();
      const name = (p: ValidationReport['errors'][number]) => this.files.problem(p);
      return { ...report, errors: report.errors.map(name), warnings: report.warnings.map(name) };
    } catch (error) {
      if (signal.aborted) throw error;
      // validate() promises not to throw for bad input; if it does, show it rather than hide it.
      const e = this.named(serializeError(error));
      return {
        valid: false,
        errors: [{ code: e.code ?? e.name, message: e.message, offset: e.offset, file: e.file }],
        warnings: [],
      };
    }
  }

  async close(): Promise<void> {
    // The reader closes what it opened itself; the session closes the sources it opened.
    await this.reader?.close?.().catch(() => {});
    await this.files.close();
  }
}
