import { type ByteSource, basename, type DirectorySource, dirname, type Problem } from '@binscope/core';
import type { SessionFile } from '../protocol';

/**
 * The one meaning of a file's name in a session: its path in what was opened (a picked
 * folder's layout, the picked files' names; for a URL, its last path segment). Plugins name
 * files relative to their target (a folder format: within its folder; a file format: its
 * siblings, within the file's own folder, and the file itself by its source name or not at
 * all); every name that leaves the worker is translated here, and every name the page sends
 * back is a session path, so `file` means the same thing in the tree, in byte locations, in
 * problems and in byte requests.
 */
export class SessionFiles {
  private readonly sources = new Map<string, Promise<ByteSource>>();
  private readonly mainNames: Set<string>;
  private readonly mainFolder: string;

  constructor(
    /** How the plugin reads the session: one file (maybe with siblings) or a folder. */
    readonly kind: 'file' | 'directory',
    /** Every file of the session (its paths are session paths). */
    readonly list: SessionFile[],
    /** The shown file, for file sessions. */
    readonly main?: { path: string; source: ByteSource },
    /** Every file by session path, when the session has more than the main file. */
    private readonly root?: DirectorySource,
    /** Whether the plugin was given the main file's folder (names of siblings then mean files). */
    private readonly hasSiblings = false,
  ) {
    this.mainNames = new Set(main ? [main.path, basename(main.path), main.source.name] : []);
    this.mainFolder = main ? dirname(main.path) : '';
  }

  /** A plugin's name for a file (a tree node's, a problem's, a location's) as a session path. */
  fromPlugin(file: string | undefined): string | undefined {
    if (this.kind === 'directory') return file;
    if (file === undefined || this.mainNames.has(file)) return this.main?.path;
    // Without siblings the name is of a file the session does not have: reading it says so.
    if (!this.hasSiblings) return file;
    return this.mainFolder ? `${this.mainFolder}/${file}` : file;
  }

  /** A problem with its file named by session path. */
  problem<P extends Problem>(problem: P): P {
    const file = problem.file === undefined ? undefined : this.fromPlugin(problem.file);
    return file === problem.file ? problem : { ...problem, file };
  }

  isMain(path: string | undefined): boolean {
    return this.main !== undefined && (path === undefined || path === this.main.path);
  }

  /** Closes what the session opened: the main file's source and every file opened since. */
  async close(): Promise<void> {
    const opened = await Promise.all([...this.sources.values()].map((s) => s.catch(() => undefined)));
    for (const source of opened) await source?.close?.().catch(() => {});
    await this.main?.source.close?.().catch(() => {});
  }

  /** The bytes of a session file (the main one when `path` is undefined in a file session). */
  open(path: string | undefined): Promise<ByteSource> {
    if (this.main && this.isMain(path)) return Promise.resolve(this.main.source);
    if (path === undefined) return Promise.reject(new Error('choose a file of the folder to see its bytes'));
    const root = this.root;
    if (!root) return Promise.reject(new Error(`${path}: no such file in this session`));
    let source = this.sources.get(path);
    if (!source) {
      source = root.open(path);
      source.catch(() => this.sources.delete(path));
      this.sources.set(path, source);
    }
    return source;
  }
}
