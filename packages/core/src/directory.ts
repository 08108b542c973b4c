import { BlobSource, type ByteSource, MemorySource } from './bytes.js';
import { SourceError } from './errors.js';
import { type ByteSink, type DirectorySink, MemorySink } from './sink.js';

/**
 * A folder of files addressed by relative POSIX paths ("obs_features/labels.json"). Serves
 * directory formats (SCDL archives) and the sibling files a single-file format points into
 * (TARIDX shards).
 */
export interface DirectorySource {
  readonly name: string;
  /** Every file below the folder, recursively, as relative POSIX paths, sorted. */
  list(): Promise<string[]>;
  /** Opens one file; throws SourceError when it does not exist. */
  open(path: string): Promise<ByteSource>;
  /** Whether a file exists (cheaper than open for optional files). */
  has(path: string): Promise<boolean>;
}

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '');
}

/**
 * Directory contents held in memory: tests, and archives built in a browser before saving.
 * Also a DirectorySink: a folder format or a sample can be written into it, then read back.
 */
export class MemoryDirectory implements DirectorySource, DirectorySink {
  private readonly files = new Map<string, Uint8Array>();
  constructor(
    files: Record<string, Uint8Array> | Map<string, Uint8Array> = {},
    readonly name = 'memory',
  ) {
    const entries = files instanceof Map ? files.entries() : Object.entries(files);
    for (const [path, bytes] of entries) this.files.set(normalize(path), bytes);
  }
  set(path: string, bytes: Uint8Array): void {
    this.files.set(normalize(path), bytes);
  }
  get(path: string): Uint8Array | undefined {
    return this.files.get(normalize(path));
  }
  async write(path: string, content: Uint8Array | ((sink: ByteSink) => Promise<void>)): Promise<void> {
    if (content instanceof Uint8Array) {
      this.set(path, content.slice());
      return;
    }
    const sink = new MemorySink();
    await content(sink);
    this.set(path, sink.bytes());
  }
  async list(): Promise<string[]> {
    return [...this.files.keys()].sort();
  }
  async has(path: string): Promise<boolean> {
    return this.files.has(normalize(path));
  }
  async open(path: string): Promise<ByteSource> {
    const bytes = this.files.get(normalize(path));
    if (!bytes) throw new SourceError(`${path}: no such file in ${this.name}`, path);
    return new MemorySource(bytes, normalize(path));
  }
}

/**
 * Browser files: a `webkitdirectory` FileList, files from a drop, or any list of File
 * objects. Paths come from `webkitRelativePath` with the top folder stripped, so the
 * archive's own layout is what remains.
 */
export class FileListDirectory implements DirectorySource {
  private readonly files = new Map<string, Blob>();
  readonly name: string;
  constructor(files: Iterable<File> | ArrayLike<File> | Iterable<[string, Blob]>, name?: string) {
    const items = Array.from(files as Iterable<File | [string, Blob]>);
    const paths: Array<[string, Blob]> = items.map((item) =>
      Array.isArray(item)
        ? [normalize(item[0]), item[1]]
        : [normalize((item as File & { webkitRelativePath?: string }).webkitRelativePath || item.name), item],
    );
    const tops = new Set(paths.map(([path]) => (path.includes('/') ? path.split('/')[0] : '')));
    const sharedTop = tops.size === 1 ? [...tops][0] : '';
    this.name = name ?? (sharedTop || 'files');
    for (const [path, blob] of paths) {
      this.files.set(sharedTop ? path.slice(sharedTop.length + 1) : path, blob);
    }
  }
  async list(): Promise<string[]> {
    return [...this.files.keys()].sort();
  }
  async has(path: string): Promise<boolean> {
    return this.files.has(normalize(path));
  }
  async open(path: string): Promise<ByteSource> {
    const blob = this.files.get(normalize(path));
    if (!blob) throw new SourceError(`${path}: no such file in ${this.name}`, path);
    return new BlobSource(blob, normalize(path));
  }
}

/** The parent folder part of a relative path ("a/b/c.txt" → "a/b", "c.txt" → ""). */
export function dirname(path: string): string {
  const i = normalize(path).lastIndexOf('/');
  return i < 0 ? '' : normalize(path).slice(0, i);
}

/** The last component of a path or URL. */
export function basename(path: string): string {
  const clean = normalize(path).replace(/\/+$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1);
}

/** A view of one sub-folder of another directory source. */
export class SubDirectory implements DirectorySource {
  constructor(
    readonly parent: DirectorySource,
    readonly prefix: string,
  ) {}
  get name(): string {
    return `${this.parent.name}/${this.prefix}`;
  }
  private full(path: string): string {
    return this.prefix ? `${this.prefix}/${normalize(path)}` : normalize(path);
  }
  async list(): Promise<string[]> {
    const start = this.prefix ? `${this.prefix}/` : '';
    return (await this.parent.list()).filter((p) => p.startsWith(start)).map((p) => p.slice(start.length));
  }
  has(path: string): Promise<boolean> {
    return this.parent.has(this.full(path));
  }
  open(path: string): Promise<ByteSource> {
    return this.parent.open(this.full(path));
  }
}
