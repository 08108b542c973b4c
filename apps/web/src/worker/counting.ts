import { type ByteSource, CountingSource, type DirectorySource } from '@binscope/core';

/**
 * A directory whose opened files count their reads, so the page can show how little of a
 * folder was actually read. Every open gets its own counter; the session sums them.
 */
export class CountingDirectory implements DirectorySource {
  readonly counters: CountingSource[] = [];
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
  async open(path: string): Promise<ByteSource> {
    const source = new CountingSource(await this.inner.open(path));
    this.counters.push(source);
    return source;
  }
  get bytesRead(): number {
    return this.counters.reduce((sum, c) => sum + c.bytesRead, 0);
  }
  get reads(): number {
    return this.counters.reduce((sum, c) => sum + c.reads, 0);
  }
}
