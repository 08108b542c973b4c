import {
  type Awaitable,
  type ByteSource,
  type ErrorFactory,
  type FormatError,
  type FormatReader,
  formatErrors,
  isBinscopeError,
  type OpenOptions,
  type Problem,
  type ProblemList,
  plainProblem,
  type ReadExactOptions,
  type Schema,
} from '@binscope/core';
import type { UdfDataset } from './dataset.js';
import { loadDataset } from './dataset-header.js';
import { openUdf } from './plugin.js';
import type { UdfFileHeader } from './header.js';
import { catalogueSchema } from './schema.js';
import { DATASET_SCOPE, type FileOffset, FORMAT_ID, fileOffsetKey } from './types.js';
import { type DatasetRef, DatasetWalk, ROOT_FROM, type Visited } from './walk.js';

export interface UdfOpenOptions extends OpenOptions {
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

/** A dataset walkReporting() could not load, with the reference that points at it. */
export interface UnloadedDataset {
  ref: DatasetRef;
  error: FormatError;
}

/**
 * A UDF file opened lazily: only the 64-byte file header is read until datasets are asked
 * for. Its records are the table catalogue (one per table, `schema`); each table's own rows
 * come from `records(reader, { table })`, the tables from the plugin's `capabilities.tables`.
 * Closing it closes the source only when it opened it (`openUdfFile`), never a target.
 */
export class UdfReader implements FormatReader {
  readonly format = FORMAT_ID;
  readonly schema: Schema = catalogueSchema;
  /** The file header's warnings (U8's "only reported" fields). */
  readonly warnings: readonly Problem[];
  readonly wholeDatasetBelow: number;
  /** The format's one error factory, for this file. */
  readonly fail: ErrorFactory;
  /** @internal The read options of the walk's reads, made once (a walk reads once per dataset). */
  readonly requests: { readonly dataset: ReadExactOptions; readonly header: ReadExactOptions };
  private readonly datasets = new Map<string, Awaitable<UdfDataset>>();
  private ownsSource = false;

  /**
   * @internal Made by the plugin after the file header parsed (`problems`: that parse's list,
   * from which each dataset load forks its own).
   */
  constructor(
    readonly source: ByteSource,
    readonly header: UdfFileHeader,
    private readonly problems: ProblemList,
    readonly options: UdfOpenOptions = {},
  ) {
    this.wholeDatasetBelow = options.wholeDatasetBelow ?? DEFAULT_WHOLE_DATASET_BELOW;
    this.fail = formatErrors(FORMAT_ID, source.name);
    this.warnings = problems.warnings.map(plainProblem);
    const { signal } = options;
    this.requests = {
      dataset: { format: FORMAT_ID, what: 'dataset', signal },
      header: { format: FORMAT_ID, what: 'dataset header', signal },
    };
  }

  /** `openUdf(source, options)`: the plugin's open, for code that starts from the class. */
  static open(source: ByteSource, options: UdfOpenOptions = {}): Promise<UdfReader> {
    return openUdf(source, options);
  }

  /** @internal The reader closes its source: it opened it (`openUdfFile`). */
  ownSource(): this {
    this.ownsSource = true;
    return this;
  }

  /** The root dataset, or null when the root FileOffset is null. */
  root(): Awaitable<UdfDataset | null> {
    const root = this.header.root;
    return root ? this.dataset(root, ROOT_FROM) : null;
  }

  /** The dataset at a FileOffset (recent ones cached). `from` is where the reference is stored, for error offsets. */
  dataset(at: FileOffset, from = ROOT_FROM): Awaitable<UdfDataset> {
    const key = fileOffsetKey(at);
    let cached = this.datasets.get(key);
    if (cached !== undefined) {
      // Refresh its place in the LRU order.
      this.datasets.delete(key);
    } else {
      cached = this.load({ at, from });
      if (cached instanceof Promise) cached.catch(() => this.datasets.delete(key));
    }
    this.datasets.set(key, cached);
    if (this.datasets.size > DATASET_CACHE) this.datasets.delete(this.datasets.keys().next().value!);
    return cached;
  }

  /** A dataset, checked as a strict read checks it: its own first error (A2 order) is thrown. */
  private load(ref: DatasetRef): Awaitable<UdfDataset> {
    const issues = this.problems.fork({ mode: 'read' });
    const dataset = loadDataset(this, ref, issues);
    if (dataset instanceof Promise) return dataset.then((d) => checked(d, issues));
    return checked(dataset, issues);
  }

  /**
   * Every dataset reachable from the root, depth-first pre-order (U7): tables in descriptor
   * order, DATASET elements in order, each (offset, size) once, (0, 0) skipped, cycles
   * survived. `for await` over it, or `step()` for a loop that makes no promise at all on a
   * source that answers synchronously (a local file, memory).
   */
  walk(): DatasetWalk<UdfDataset> {
    return new DatasetWalk(this.header.root, (ref) => {
      const dataset = this.load(ref);
      return dataset instanceof Promise ? dataset.then(withChildren) : withChildren(dataset);
    });
  }

  /**
   * walk() that goes on past a child dataset it cannot load (a DATASET table's bad FileOffset),
   * yielding the error in its place, so one bad table never hides the rest of the file (U15).
   * The root's own failure is the file's: it still throws.
   */
  walkReporting(): DatasetWalk<UdfDataset | UnloadedDataset> {
    return new DatasetWalk<UdfDataset | UnloadedDataset>(this.header.root, (ref) => {
      let dataset: Awaitable<UdfDataset>;
      try {
        dataset = this.load(ref);
      } catch (error) {
        return unloaded(ref, error);
      }
      if (dataset instanceof Promise)
        return dataset.then(withReportedChildren, (error: unknown) => unloaded(ref, error));
      return withReportedChildren(dataset);
    });
  }

  /** All datasets of the walk, in walk order. */
  async allDatasets(): Promise<UdfDataset[]> {
    const out: UdfDataset[] = [];
    for await (const d of this.walk()) out.push(d);
    return out;
  }

  /** Closes the source only if the reader opened it (`openUdfFile`): whoever opens a source closes it. */
  async close(): Promise<void> {
    if (this.ownsSource) await this.source.close?.();
  }
}

function checked(dataset: UdfDataset | undefined, issues: ProblemList): UdfDataset {
  issues.checkpoint(DATASET_SCOPE);
  return dataset!;
}

function withChildren(dataset: UdfDataset): Awaitable<Visited<UdfDataset>> {
  const children = dataset.children();
  if (children instanceof Promise) return children.then((c) => ({ value: dataset, children: c }));
  return { value: dataset, children };
}

/** A dataset whose DATASET table does not decode: that table is reported when read, its children not walked. */
function withReportedChildren(dataset: UdfDataset): Awaitable<Visited<UdfDataset>> {
  const none = (error: unknown) => {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { value: dataset, children: [] };
  };
  let children: Awaitable<DatasetRef[]>;
  try {
    children = dataset.children();
  } catch (error) {
    return none(error);
  }
  if (children instanceof Promise) return children.then((c) => ({ value: dataset, children: c }), none);
  return { value: dataset, children };
}

function unloaded(ref: DatasetRef, error: unknown): Visited<UnloadedDataset> {
  if (!isBinscopeError(error, 'FormatError') || ref.from === ROOT_FROM) throw error;
  return { value: { ref, error }, children: [] };
}
