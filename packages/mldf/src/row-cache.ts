import { type Awaitable, type ByteSource, type ReadOptions, readExact } from '@binscope/core';
import { FORMAT_ID, type MldfHeader } from './layout.js';

const METADATA_PAGE_BYTES = 1 << 20;

export interface RowRef {
  view: DataView;
  pos: number;
}

interface Page {
  bytes: Uint8Array;
  view: DataView;
}

/** Metadata rows, read in 1 MiB pages on first use and kept up to a byte budget (oldest page out). */
export class RowCache {
  readonly pageRows: number;
  private readonly pages = new Map<number, Page>();
  private readonly maxPages: number;
  private readonly numSamples: number;

  constructor(
    private readonly source: ByteSource,
    private readonly header: MldfHeader,
    private readonly rowSize: number,
    cacheBytes = 64 << 20,
  ) {
    this.numSamples = header.numSamples;
    this.pageRows = Math.max(1, Math.floor(METADATA_PAGE_BYTES / Math.max(1, rowSize)));
    this.maxPages = Math.max(1, Math.ceil(cacheBytes / METADATA_PAGE_BYTES));
  }

  /**
   * The metadata row of a sample: a view of its cached page and the row's position in it.
   * `into`: a cached row is written there instead of a new object (a caller that uses it before
   * asking again).
   */
  rowOf(index: number, options: ReadOptions, into?: RowRef): Awaitable<RowRef> {
    if (!Number.isInteger(index) || index < 0 || index >= this.numSamples) {
      throw new RangeError(`sample index ${index} is out of range (0..${this.numSamples - 1})`);
    }
    const pageIndex = Math.floor(index / this.pageRows);
    const pos = (index - pageIndex * this.pageRows) * this.rowSize;
    const page = this.pages.get(pageIndex);
    if (page) {
      if (into === undefined) return { view: page.view, pos };
      into.view = page.view;
      into.pos = pos;
      return into;
    }
    const first = pageIndex * this.pageRows;
    const rows = Math.min(this.pageRows, this.numSamples - first);
    // Samples without fields have empty rows, and the (empty) table may start past the end of the file.
    const loaded =
      this.rowSize === 0
        ? new Uint8Array(0)
        : readExact(this.source, this.header.metadataPtr + first * this.rowSize, rows * this.rowSize, {
            format: FORMAT_ID,
            what: 'metadata table',
            signal: options.signal,
          });
    const store = (bytes: Uint8Array) => {
      if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value as number);
      const p: Page = { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      this.pages.set(pageIndex, p);
      return { view: p.view, pos };
    };
    return loaded instanceof Uint8Array ? store(loaded) : loaded.then(store);
  }

  clear(): void {
    this.pages.clear();
  }
}
