import {
  type Awaitable,
  BlobSource,
  type ByteSource,
  type DirectorySource,
  type ReadRequest,
} from '@binscope/core';

/**
 * The distinct bytes read so far, as merged [start, end) intervals. Core's CountingSource
 * counts every read, so a header read by detection and again by the parser counts twice;
 * the page's "read N of M bytes" should say how much of the file was touched at all.
 */
export class Coverage {
  private starts: number[] = [];
  private ends: number[] = [];
  bytes = 0;
  reads = 0;

  add(start: number, end: number): void {
    this.reads++;
    if (end <= start) return;
    // First interval that ends at or after `start` (could merge with the new one).
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid] < start) lo = mid + 1;
      else hi = mid;
    }
    let i = lo;
    let newStart = start;
    let newEnd = end;
    while (i < this.starts.length && this.starts[i] <= end) {
      newStart = Math.min(newStart, this.starts[i]);
      newEnd = Math.max(newEnd, this.ends[i]);
      this.bytes -= this.ends[i] - this.starts[i];
      i++;
    }
    this.starts.splice(lo, i - lo, newStart);
    this.ends.splice(lo, i - lo, newEnd);
    this.bytes += newEnd - newStart;
  }
}

/**
 * A byte source that records which bytes were read (see Coverage). One method forwards every
 * request as made, so the inner source's fast paths (a synchronous answer, `into`) are kept.
 */
export class CoverageSource implements ByteSource {
  constructor(
    readonly inner: ByteSource,
    readonly coverage = new Coverage(),
  ) {}
  get size(): number {
    return this.inner.size;
  }
  get name(): string {
    return this.inner.name;
  }
  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    const out = this.inner.read(offset, length, request);
    if (out instanceof Promise) return out.then((bytes) => this.covered(offset, bytes));
    return this.covered(offset, out);
  }
  protected covered(offset: number, bytes: Uint8Array): Uint8Array {
    this.coverage.add(offset, offset + bytes.byteLength);
    return bytes;
  }
  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}

/**
 * A browser File that records which bytes were read. It stays a core BlobSource, because a
 * format may hand a File to a library that reads it on its own (HDF5 in wasm mounts the Blob
 * with WORKERFS, since its reads cannot wait for a promise): such reads bypass `read` and
 * are not counted, but the file opens. Every read through `read` is counted as by CoverageSource.
 */
export class CoverageBlobSource extends BlobSource {
  constructor(
    blob: Blob,
    name: string,
    readonly coverage = new Coverage(),
  ) {
    super(blob, name);
  }
  override async read(offset: number, length: number, request?: ReadRequest): Promise<Uint8Array> {
    const bytes = await super.read(offset, length, request);
    this.coverage.add(offset, offset + bytes.byteLength);
    return bytes;
  }
}

/** A source that records its reads in `coverage`: a File stays a BlobSource (see CoverageBlobSource). */
export function covered(source: ByteSource, coverage = new Coverage()): ByteSource {
  if (source instanceof BlobSource) return new CoverageBlobSource(source.blob, source.name, coverage);
  return new CoverageSource(source, coverage);
}

/**
 * A directory whose files record their reads: one Coverage per path, shared by every open
 * of that path, so the session can total how much of a folder was read.
 */
export class CoverageDirectory implements DirectorySource {
  readonly coverage = new Map<string, Coverage>();
  constructor(readonly inner: DirectorySource) {}
  get name(): string {
    return this.inner.name;
  }
  list(): Promise<string[]> {
    return this.inner.list();
  }
  has(path: string): Promise<boolean> {
    return this.inner.has(path);
  }
  coverageOf(path: string): Coverage {
    let c = this.coverage.get(path);
    if (!c) this.coverage.set(path, (c = new Coverage()));
    return c;
  }
  async open(path: string): Promise<ByteSource> {
    return covered(await this.inner.open(path), this.coverageOf(path));
  }
  get bytesRead(): number {
    let sum = 0;
    for (const c of this.coverage.values()) sum += c.bytes;
    return sum;
  }
  get reads(): number {
    let sum = 0;
    for (const c of this.coverage.values()) sum += c.reads;
    return sum;
  }
}
