import {
  type ByteSource,
  type FormatError,
  type FormatReader,
  type Problem,
  isBinscopeError,
  type ReadOptions,
  type ErrorFactory,
  formatErrors,
} from '@binscope/core';
import { answersSynchronously } from '@binscope/core/binary';
import { type FileOffset, fileOffsetKey } from './types.js';
import type { UdfDataset } from './dataset.js';
import { loadDataset, loadDatasetSync } from './dataset-header.js';
import { type UdfFileHeader, parseFileHeader } from './header.js';
import { DATASET_SCOPE, FORMAT_ID, udfProblems } from './problems.js';
import { type DatasetRef, walkRefs, walkRefsSync } from './walk.js';

export interface UdfOpenOptions extends ReadOptions {
  /**
   * Datasets up to this size are fetched in one read (header and all tables): a few KiB cost
   * the same as one table, and a walk over many small datasets then needs one read each.
   * Larger datasets read their header, then only the tables asked for. Default 32 KiB; 0 = off.
   */
  wholeDatasetBelow?: number;
}

const DEFAULT_WHOLE_DATASET_BELOW = 32 * 1024;

/** dataset() keeps this many recently opened datasets; a walk keeps none (its seen-set handles cycles). */
const DATASET_CACHE = 256;

/** A UDF file opened lazily: only the 64-byte file header is read until datasets are asked for. */
export class UdfReader implements FormatReader {
  readonly format = FORMAT_ID;
  readonly wholeDatasetBelow: number;
  /** Whether the source answers synchronously (local files, memory): walks then need no promise. */
  readonly sync: boolean;
  /** The format's one error factory, for this file. */
  readonly fail: ErrorFactory;
  private readonly datasets = new Map<string, Promise<UdfDataset>>();

  private constructor(
    readonly source: ByteSource,
    readonly header: UdfFileHeader,
    readonly warnings: Problem[],
    readonly options: UdfOpenOptions,
  ) {
    this.wholeDatasetBelow = options.wholeDatasetBelow ?? DEFAULT_WHOLE_DATASET_BELOW;
    this.sync = answersSynchronously(source);
    this.fail = formatErrors(FORMAT_ID, source.name);
  }

  /** Reads and checks the file header; throws FormatError for a file that is not a valid UDF. */
  static async open(source: ByteSource, options: UdfOpenOptions = {}): Promise<UdfReader> {
    const issues = udfProblems(source, 'read');
    const header = await parseFileHeader(source, issues, options);
    issues.checkpoint();
    return new UdfReader(source, header!, issues.warnings, options);
  }

  /** @internal used by validate, which keeps going after errors. */
  static fromHeader(source: ByteSource, header: UdfFileHeader, options: UdfOpenOptions = {}): UdfReader {
    return new UdfReader(source, header, [], options);
  }

  /** The root dataset, or null when the root FileOffset is null. */
  async root(): Promise<UdfDataset | null> {
    const root = this.header.root;
    return root ? this.dataset(root, 0x10) : null;
  }

  /** The dataset at a FileOffset (recent ones cached). `from` is where the reference is stored, for error offsets. */
  dataset(at: FileOffset, from = 0x10): Promise<UdfDataset> {
    const key = fileOffsetKey(at);
    let pending = this.datasets.get(key);
    if (pending) {
      // Refresh its place in the LRU order.
      this.datasets.delete(key);
    } else {
      pending = this.load({ at, from });
      pending.catch(() => this.datasets.delete(key));
    }
    this.datasets.set(key, pending);
    if (this.datasets.size > DATASET_CACHE) this.datasets.delete(this.datasets.keys().next().value!);
    return pending;
  }

  private async load(ref: DatasetRef): Promise<UdfDataset> {
    const issues = udfProblems(this.source, 'read');
    const dataset = await loadDataset(this, ref, issues);
    issues.checkpoint(DATASET_SCOPE);
    return dataset!;
  }

  /**
   * Every dataset reachable from the root, depth-first pre-order (U7): tables in descriptor
   * order, DATASET elements in order, each (offset, size) once, (0, 0) skipped, cycles survived.
   */
  async *walk(): AsyncGenerator<UdfDataset> {
    if (this.sync) {
      // Local files and memory: the whole walk runs synchronously between yields.
      for (const dataset of this.walkSync()) yield dataset;
      return;
    }
    for await (const dataset of walkRefs(this.header.root, async (r) => {
      const dataset = await this.load(r);
      return { value: dataset, children: await dataset.children() };
    })) {
      yield dataset;
    }
  }

  /**
   * The walk of `walk()` without promises, for sources that answer synchronously (core's
   * NodeFileSource and MemorySource): the fastest way through many datasets. Throws TypeError
   * for other sources.
   */
  *walkSync(): Generator<UdfDataset> {
    if (!this.sync)
      throw new TypeError(`${this.source.name}: walkSync needs a source that answers synchronously`);
    yield* walkRefsSync(this.header.root, (r) => {
      const dataset = this.loadSync(r);
      return { value: dataset, children: dataset.childrenSync() };
    });
  }

  private loadSync(ref: DatasetRef): UdfDataset {
    const issues = udfProblems(this.source, 'read');
    const dataset = loadDatasetSync(this, ref, issues);
    issues.checkpoint(DATASET_SCOPE);
    return dataset!;
  }

  /**
   * walk() that goes on past a child dataset it cannot load (a DATASET table's bad FileOffset),
   * yielding the error in its place, so one bad table never hides the rest of the file (U15).
   */
  async *walkReporting(): AsyncGenerator<UdfDataset | UnloadedDataset> {
    yield* walkRefs<UdfDataset | UnloadedDataset>(this.header.root, async (ref) => {
      const loaded = await this.load(ref).then(
        (dataset) => ({ dataset }),
        // The root's own failure is the file's: it still throws.
        (error: unknown) =>
          isBinscopeError(error, 'FormatError') && ref.from !== 0x10 ? { error } : Promise.reject(error),
      );
      if (!('dataset' in loaded)) return { value: { ref, error: loaded.error }, children: [] };
      // A DATASET table that does not decode is reported when read; its children are not walked.
      const children = await loaded.dataset
        .children()
        .catch((e: unknown) => (isBinscopeError(e, 'FormatError') ? [] : Promise.reject(e)));
      return { value: loaded.dataset, children };
    });
  }

  /** All datasets of the walk, in walk order. */
  async allDatasets(): Promise<UdfDataset[]> {
    const out: UdfDataset[] = [];
    for await (const d of this.walk()) out.push(d);
    return out;
  }

  async close(): Promise<void> {
    await this.source.close?.();
  }
}

/** A dataset walkReporting() could not load, with the reference that points at it. */
export interface UnloadedDataset {
  ref: DatasetRef;
  error: FormatError;
}

export async function openUdf(source: ByteSource, options?: UdfOpenOptions): Promise<UdfReader> {
  return UdfReader.open(source, options);
}
