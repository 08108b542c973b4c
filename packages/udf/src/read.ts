import {
  type ByteSource,
  decodeUtf8,
  type ErrorCode,
  FormatError,
  type FormatReader,
  type ParseMode,
  Phase,
  type Problem,
  ProblemList,
  isFormatError,
  type NumericArray,
  type ReadOptions,
  readExact,
  readExactSync,
  readU64,
  toFormatError,
  toTypedArray,
} from '@binscope/core';
import {
  DATASET_CHECK,
  DESCRIPTOR_SIZE,
  decodeId,
  decodeShape,
  FILE_HEADER_SIZE,
  type FileOffset,
  fileOffsetKey,
  HINT_BY_VALUE,
  type Hint,
  LOOKUP_ENTRY_SIZE,
  PRIM_SIZE,
  type Prim,
  STATIC_HEADER_SIZE,
  unpackTypeInfo,
} from './types.js';
import { compressInfoProblem } from './compress.js';
import { dataSizeProblem, hintProblem, minGhosts } from './shape-rules.js';
import { decodeStored, sliceValues } from './stored.js';

export const FORMAT_ID = 'udf';

/** Scope of a dataset's own problems in its ProblemList; its tables' are tableScope(i) (U15). */
export const DATASET_SCOPE = 'dataset';

/** One table's problems: a bad table never hides the others (U15). */
export function tableScope(index: number): string {
  return `table ${index}`;
}

/** A fresh problem list for one structure of `source`'s file. */
export function udfProblems(source: ByteSource, mode: ParseMode): ProblemList {
  return new ProblemList(FORMAT_ID, { mode, file: source.name });
}

export interface UdfFileHeader {
  /** "UDF0". */
  magic: string;
  id: string;
  idBytes: Uint8Array;
  /** Reserved for future use; reported, never interpreted. */
  next: bigint;
  /** Null when the file has no datasets (U7). */
  root: FileOffset | null;
  reserved: bigint[];
}

export interface DatasetHeader {
  check: number;
  /** Opaque (U4): no algorithm is defined; 0 means absent. */
  checksum: number;
  id: string;
  idBytes: Uint8Array;
  headerSize: number;
  descsLen: number;
  lookupLen: number;
  stringLen: number;
  reserved: [number, number];
}

export interface NameEntry {
  hash: number;
  offset: number;
  len: number;
  string: string;
}

/** One datatable descriptor, decoded and with its names resolved through the lookup table. */
export interface TableInfo {
  /** Position in descriptor order. */
  index: number;
  name: string;
  keyHash: number;
  typeInfo: number;
  /** Undefined only for reserved primitive codes, which the reader rejects. */
  prim: Prim;
  /** Declared dimensions: 0 scalar, 1..3. */
  dims: number;
  hint: Hint;
  hintValue: number;
  compressInfo: number;
  memStart: number;
  memEnd: number;
  dataSize: number;
  dataShapeRaw: [number, number];
  /** Declared axes followed by ghost axes (U5). */
  shape: number[];
  ghostDims: number;
  elementCount: number;
  indexName: string | null;
  relatedName: string | null;
  typeName: string | null;
  /** Opaque (U4). */
  checksum: number;
  reserved: number;
  /** Absolute file offset of the table's data. */
  dataOffset: number;
  /** Absolute file offset of the descriptor. */
  descriptorOffset: number;
}

export interface UdfTable {
  info: TableInfo;
  /** The data: the stored bytes, or for a compressed table (U12) the decoded ones. */
  bytes: Uint8Array;
  /** A compressed table's stored stream (data_size bytes). */
  compressed?: Uint8Array;
  /** Elements, row-major, for every primitive except custom (JSON and opaque tables). */
  values?: NumericArray;
  /** TEXT: one string for a scalar, row-major strings (trailing NULs stripped) otherwise. */
  text?: string | string[];
  /** JSON: the parsed document. */
  json?: unknown;
  /** DATASET: the referenced file offsets, in order. */
  fileOffsets?: FileOffset[];
  /** INDEX / RANGE: the table the values index into (already checked against it). */
  target?: TableInfo;
}

/** A reference to a dataset and where the reference itself is stored (for error offsets). */
export interface DatasetRef {
  at: FileOffset;
  /** Absolute offset of the FileOffset field that points here. */
  from: number;
}

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
const utf16 = new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true });
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A UDF file opened lazily: only the 64-byte file header is read until datasets are asked for. */
export class UdfReader implements FormatReader {
  readonly format = FORMAT_ID;
  readonly wholeDatasetBelow: number;
  private readonly datasets = new Map<string, Promise<UdfDataset>>();

  private constructor(
    readonly source: ByteSource,
    readonly header: UdfFileHeader,
    readonly warnings: Problem[],
    readonly options: UdfOpenOptions,
  ) {
    this.wholeDatasetBelow = options.wholeDatasetBelow ?? DEFAULT_WHOLE_DATASET_BELOW;
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
    if (this.source.readSync) {
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
   * The walk of `walk()` without promises, for sources with `readSync` (core's NodeFileSource
   * and MemorySource): the fastest way through many datasets. Throws TypeError for other sources.
   */
  *walkSync(): Generator<UdfDataset> {
    if (!this.source.readSync)
      throw new TypeError(`${this.source.name}: walkSync needs a source with readSync`);
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
        (error: unknown) => (isFormatError(error) && ref.from !== 0x10 ? { error } : Promise.reject(error)),
      );
      if (!('dataset' in loaded)) return { value: { ref, error: loaded.error }, children: [] };
      // A DATASET table that does not decode is reported when read; its children are not walked.
      const children = await loaded.dataset
        .children()
        .catch((e: unknown) => (isFormatError(e) ? [] : Promise.reject(e)));
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

/** The (offset, size) pairs a walk has visited, keyed by number (no key strings). */
class SeenOffsets {
  private readonly sizes = new Map<number, number>();
  private readonly more = new Set<string>();
  /** True when `at` was not seen before (and records it). */
  add(at: FileOffset): boolean {
    const size = this.sizes.get(at.offset);
    if (size === undefined) {
      this.sizes.set(at.offset, at.size);
      return true;
    }
    if (size === at.size) return false;
    const key = fileOffsetKey(at);
    if (this.more.has(key)) return false;
    this.more.add(key);
    return true;
  }
}

/**
 * The U7 visiting order with an explicit stack, so a chain of a million datasets cannot
 * overflow the call stack. Checking `seen` when popping (not when pushing) gives exactly
 * recursive pre-order. Yields each ref to visit; the caller sends back its children (or
 * nothing for a ref that yielded no dataset).
 */
function* refOrder(root: FileOffset): Generator<DatasetRef, void, DatasetRef[] | undefined> {
  const seen = new SeenOffsets();
  const stack: DatasetRef[] = [{ at: root, from: 0x10 }];
  while (stack.length > 0) {
    const ref = stack.pop()!;
    if (ref.at.offset === 0 && ref.at.size === 0) continue;
    if (!seen.add(ref.at)) continue;
    const children = yield ref;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** The U7 walk: `visit` loads a ref's dataset (undefined to skip it) and lists its children. */
export async function* walkRefs<T>(
  root: FileOffset | null,
  visit: (ref: DatasetRef) => Promise<{ value: T; children: DatasetRef[] } | undefined>,
): AsyncGenerator<T> {
  if (!root) return;
  const order = refOrder(root);
  for (let step = order.next(); !step.done; ) {
    const visited = await visit(step.value);
    if (visited) yield visited.value;
    step = order.next(visited?.children);
  }
}

/** walkRefs without promises (same order and rules). */
export function* walkRefsSync<T>(
  root: FileOffset | null,
  visit: (ref: DatasetRef) => { value: T; children: DatasetRef[] } | undefined,
): Generator<T> {
  if (!root) return;
  const order = refOrder(root);
  for (let step = order.next(); !step.done; ) {
    const visited = visit(step.value);
    if (visited) yield visited.value;
    step = order.next(visited?.children);
  }
}

export async function openUdf(source: ByteSource, options?: UdfOpenOptions): Promise<UdfReader> {
  return UdfReader.open(source, options);
}

/** One dataset: its header, names and table descriptors. Table data is read on demand. */
export class UdfDataset {
  private readonly byName: Map<string, TableInfo>;

  constructor(
    readonly reader: UdfReader,
    readonly fileOffset: FileOffset,
    readonly header: DatasetHeader,
    readonly names: NameEntry[],
    readonly tables: TableInfo[],
    readonly warnings: Problem[],
    /** The whole dataset's bytes when it was small enough to fetch at once. */
    private readonly whole: Uint8Array | undefined,
    /** Tables whose descriptor failed a check, with the first problem: reading them throws it. */
    readonly broken: ReadonlyMap<number, FormatError> = new Map(),
    /** @internal the first table of each name, when the caller has built it already. */
    byName?: Map<string, TableInfo>,
  ) {
    if (byName) this.byName = byName;
    else {
      this.byName = new Map();
      for (const t of tables) if (!this.byName.has(t.name)) this.byName.set(t.name, t);
    }
  }

  get id(): string {
    return this.header.id;
  }

  tableNames(): string[] {
    return this.tables.map((t) => t.name);
  }

  /** The descriptor of the first table with this name. */
  table(name: string): TableInfo | undefined {
    return this.byName.get(name);
  }

  /** The stored bytes of one table; reads nothing else. */
  async readBytes(table: string | TableInfo, options: ReadOptions = {}): Promise<Uint8Array> {
    const info = this.resolve(table);
    if (this.whole) return this.inMemory(info);
    return readExact(this.reader.source, info.dataOffset, info.dataSize, {
      format: FORMAT_ID,
      what: `table ${JSON.stringify(info.name)}`,
      signal: options.signal,
    });
  }

  /** Elements [start, end) of a primitive table, reading only their bytes (a slice of a big table). */
  async readValues(
    table: string | TableInfo,
    start = 0,
    end = Number.POSITIVE_INFINITY,
    options: ReadOptions = {},
  ): Promise<NumericArray> {
    const info = this.resolve(table);
    if (info.prim === 'custom')
      throw new TypeError(`table ${JSON.stringify(info.name)} has a custom primitive: read its bytes`);
    if (info.compressInfo !== 0) return sliceValues((await this.read(info, options)).values!, start, end);
    const size = PRIM_SIZE[info.prim];
    const count = Math.floor(info.dataSize / size);
    const from = Math.min(Math.max(0, Math.floor(start)), count);
    const to = Math.min(Math.max(from, Math.floor(end)), count);
    let bytes: Uint8Array;
    if (this.whole) {
      const at = info.dataOffset - this.fileOffset.offset + from * size;
      bytes = this.whole.subarray(at, at + (to - from) * size);
    } else {
      bytes = await readExact(this.reader.source, info.dataOffset + from * size, (to - from) * size, {
        format: FORMAT_ID,
        what: `table ${JSON.stringify(info.name)}`,
        signal: options.signal,
      });
    }
    return toTypedArray(bytes, info.prim);
  }

  /** Reads and decodes one table per its type hint; payload problems raise FormatError. */
  async read(table: string | TableInfo, options: ReadOptions = {}): Promise<UdfTable> {
    const info = this.resolve(table);
    const bytes = this.whole ? this.inMemory(info) : await this.readBytes(info, options);
    return decodeTable(this, info, bytes);
  }

  /** @internal */
  inMemory(info: TableInfo): Uint8Array {
    const whole = this.whole!;
    // A plain view (cheaper than Buffer#subarray, which builds a Buffer).
    return new Uint8Array(
      whole.buffer,
      whole.byteOffset + info.dataOffset - this.fileOffset.offset,
      info.dataSize,
    );
  }

  /** The datasets this one references through its DATASET tables, in U7 order. */
  async children(options: ReadOptions = {}): Promise<DatasetRef[]> {
    if (this.whole || this.reader.source.readSync) return this.childrenSync();
    const out: DatasetRef[] = [];
    for (const info of this.tables) {
      if (info.hint !== 'dataset' || this.broken.has(info.index)) continue;
      const bytes = await this.readBytes(info, options);
      pushRefs(out, decodeFileOffsets(this, info, bytes, tableLabel(info)), info);
    }
    return out;
  }

  /** @internal children() for datasets read whole or sources with readSync. */
  childrenSync(): DatasetRef[] {
    const out: DatasetRef[] = [];
    for (const info of this.tables) {
      if (info.hint !== 'dataset' || this.broken.has(info.index)) continue;
      const bytes = this.whole
        ? this.inMemory(info)
        : readSyncExact(this.reader.source, info.dataOffset, info.dataSize, {
            format: FORMAT_ID,
            what: `table ${JSON.stringify(info.name)}`,
          })!;
      pushRefs(out, decodeFileOffsets(this, info, bytes, tableLabel(info)), info);
    }
    return out;
  }

  private resolve(table: string | TableInfo): TableInfo {
    const info = typeof table === 'string' ? this.byName.get(table) : table;
    if (!info) {
      throw new RangeError(
        `dataset ${JSON.stringify(this.id)} at ${this.fileOffset.offset} has no table ${JSON.stringify(table)}`,
      );
    }
    const problem = this.broken.get(info.index);
    if (problem) throw problem;
    return info;
  }
}

function u64Parts(view: DataView, pos: number): { value: number; safe: boolean; big: bigint } {
  const value = readU64(view, pos);
  return { value, safe: Number.isSafeInteger(value), big: view.getBigUint64(pos, true) };
}

/** Parses the 64-byte file header, recording problems in `issues`; undefined when it cannot go on. */
export async function parseFileHeader(
  source: ByteSource,
  issues: ProblemList,
  options: ReadOptions = {},
): Promise<UdfFileHeader | undefined> {
  const head = await source.read(0, Math.min(source.size, FILE_HEADER_SIZE), options);
  const magic = [0x55, 0x44, 0x46];
  for (let i = 0; i < Math.min(3, head.byteLength); i++) {
    if (head[i] !== magic[i]) {
      issues.error('BadMagic', `not a UDF file: the first bytes are not "UDF"`, {
        offset: i,
        phase: Phase.magic,
      });
      return undefined;
    }
  }
  if (head.byteLength < 4) {
    issues.error('Truncated', `the file ends after ${head.byteLength} bytes, inside its magic`, {
      offset: 0,
      phase: Phase.bounds,
    });
    return undefined;
  }
  if (head[3] !== 0x30) {
    if (head[3] >= 0x31 && head[3] <= 0x39) {
      issues.error(
        'UnsupportedVersion',
        `UDF revision "UDF${String.fromCharCode(head[3])}" is not supported (this reader implements UDF0)`,
        { offset: 3, phase: Phase.version },
      );
    } else {
      issues.error('BadMagic', `not a UDF file: magic byte 3 is 0x${head[3].toString(16)}, not "0"`, {
        offset: 3,
        phase: Phase.magic,
      });
    }
    return undefined;
  }
  if (head.byteLength < FILE_HEADER_SIZE) {
    issues.error(
      'Truncated',
      `the ${FILE_HEADER_SIZE}-byte file header needs ${FILE_HEADER_SIZE} bytes but the file has ${source.size}`,
      { offset: 0, phase: Phase.bounds },
    );
    return undefined;
  }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const idBytes = head.slice(4, 8);
  const id = decodeId(idBytes);
  if (!id.valid)
    issues.error('InvalidValue', `file id bytes ${hex(idBytes)} are not printable ASCII padded with NULs`, {
      offset: 4,
      phase: Phase.header,
    });
  const next = view.getBigUint64(8, true);
  if (next !== 0n)
    issues.warn('ReservedNonZero', `file header "next" (reserved for future use) is ${next}`, { offset: 8 });
  const reserved: bigint[] = [];
  for (let i = 0; i < 4; i++) {
    const value = view.getBigUint64(0x20 + i * 8, true);
    reserved.push(value);
    if (value !== 0n) {
      issues.error('ReservedNonZero', `file header reserved[${i}] must be zero, found ${value}`, {
        offset: 0x20 + i * 8,
        phase: Phase.header,
      });
    }
  }
  const offset = u64Parts(view, 0x10);
  const size = u64Parts(view, 0x18);
  let root: FileOffset | null = null;
  if (offset.big !== 0n || size.big !== 0n) {
    if (offset.big === 0n) {
      issues.error('InvalidValue', `root FileOffset has offset 0 but size ${size.big} (null must be 0, 0)`, {
        offset: 0x10,
        phase: Phase.header,
      });
    }
    root = { offset: offset.value, size: size.value };
  }
  return { magic: 'UDF0', id: id.id, idBytes, next, root, reserved };
}

/**
 * Checks a FileOffset against the file (U1): 16-aligned, after the file header, inside the file.
 * Problems are reported at `from`, the field holding the reference.
 */
export function checkFileOffset(
  at: FileOffset,
  from: number,
  fileSize: number,
  issues: ProblemList,
): boolean {
  const where = `dataset FileOffset (${at.offset}, ${at.size})`;
  const before = issues.errors.length;
  if (at.offset === 0 && at.size !== 0) {
    issues.error('InvalidValue', `${where}: a null offset must have size 0`, {
      offset: from,
      phase: Phase.header,
      scope: DATASET_SCOPE,
    });
    return false;
  }
  if (at.offset % 16 !== 0 || at.size % 16 !== 0) {
    issues.error('Misaligned', `${where}: offset and size must be multiples of 16`, {
      offset: from,
      phase: Phase.alignment,
      scope: DATASET_SCOPE,
    });
    return false;
  }
  if (!Number.isSafeInteger(at.offset) || !Number.isSafeInteger(at.size) || at.offset >= fileSize) {
    issues.error('OutOfBounds', `${where} starts past the end of the file (${fileSize} bytes)`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  } else if (at.offset < FILE_HEADER_SIZE) {
    issues.error('OutOfBounds', `${where} points into the ${FILE_HEADER_SIZE}-byte file header`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  } else if (at.offset + at.size > fileSize) {
    issues.error(
      'Truncated',
      `${where} runs to ${at.offset + at.size}, past the end of the file (${fileSize} bytes)`,
      { offset: from, phase: Phase.bounds, scope: DATASET_SCOPE },
    );
  } else if (at.size < STATIC_HEADER_SIZE) {
    issues.error('OutOfBounds', `${where} is smaller than the ${STATIC_HEADER_SIZE}-byte dataset header`, {
      offset: from,
      phase: Phase.bounds,
      scope: DATASET_SCOPE,
    });
  }
  return issues.errors.length === before;
}

/**
 * Reads and checks one dataset's header, descriptors and lookup table (all checks up to
 * cross-references; payloads are checked when tables are read). Returns undefined when the
 * header is too broken to go on; otherwise a dataset whose broken tables are marked.
 */
export async function loadDataset(
  reader: UdfReader,
  ref: DatasetRef,
  issues: ProblemList,
): Promise<UdfDataset | undefined> {
  const { source } = reader;
  // Sources with readSync (local files, memory) load without a single promise hop.
  if (source.readSync) return loadDatasetSync(reader, ref, issues);
  const { at } = ref;
  if (!checkFileOffset(at, ref.from, source.size, issues)) return undefined;
  const base = at.offset;
  const readOpts = { format: FORMAT_ID, signal: reader.options.signal };
  if (at.size <= reader.wholeDatasetBelow) {
    const whole = await readExact(source, base, at.size, { ...readOpts, what: 'dataset' });
    return parseDataset(reader, at, whole, whole, issues);
  }
  let head = await readExact(source, base, STATIC_HEADER_SIZE, { ...readOpts, what: 'dataset header' });
  const needed = headerBytesNeeded(head, at, issues);
  if (needed === undefined) return undefined;
  if (needed > STATIC_HEADER_SIZE) {
    const rest = await readExact(source, base + STATIC_HEADER_SIZE, needed - STATIC_HEADER_SIZE, {
      ...readOpts,
      what: 'dataset header',
    });
    head = joinBytes(head, rest);
  }
  return parseDataset(reader, at, head, undefined, issues);
}

/** loadDataset for sources with readSync: the same reads and checks, synchronously. */
export function loadDatasetSync(
  reader: UdfReader,
  ref: DatasetRef,
  issues: ProblemList,
): UdfDataset | undefined {
  const { source } = reader;
  const { at } = ref;
  reader.options.signal?.throwIfAborted();
  if (!checkFileOffset(at, ref.from, source.size, issues)) return undefined;
  const base = at.offset;
  if (at.size <= reader.wholeDatasetBelow) {
    const whole = readSyncExact(source, base, at.size, { format: FORMAT_ID, what: 'dataset' })!;
    return parseDataset(reader, at, whole, whole, issues);
  }
  let head = readSyncExact(source, base, STATIC_HEADER_SIZE, { format: FORMAT_ID, what: 'dataset header' })!;
  const needed = headerBytesNeeded(head, at, issues);
  if (needed === undefined) return undefined;
  if (needed > STATIC_HEADER_SIZE) {
    const rest = readSyncExact(source, base + STATIC_HEADER_SIZE, needed - STATIC_HEADER_SIZE, {
      format: FORMAT_ID,
      what: 'dataset header',
    })!;
    head = joinBytes(head, rest);
  }
  return parseDataset(reader, at, head, undefined, issues);
}

/** core's readExactSync, also checking the length the source returned (as readExact does). */
function readSyncExact(
  source: ByteSource,
  offset: number,
  length: number,
  options: { format: string; what: string },
): Uint8Array | undefined {
  const out = readExactSync(source, offset, length, options);
  if (out && out.byteLength !== length) {
    throw new FormatError(
      'Truncated',
      `${options.what} ends early: got ${out.byteLength} of ${length} bytes`,
      {
        offset,
        file: source.name,
        format: options.format,
      },
    );
  }
  return out;
}

function joinBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/**
 * How many header bytes (static header, descriptors, lookup, strings) the dataset needs, or
 * undefined when its static header is too broken to go on (the problem is in `issues`). Pure:
 * parseDataset repeats the checks and reports them, so they are recorded once.
 */
function headerBytesNeeded(head: Uint8Array, at: FileOffset, issues: ProblemList): number | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== DATASET_CHECK) {
    staticHeaderIssues(view, at, issues);
    return undefined;
  }
  const headerSize = view.getUint16(0x0c, true);
  const needed =
    STATIC_HEADER_SIZE +
    DESCRIPTOR_SIZE * view.getUint16(0x0e, true) +
    LOOKUP_ENTRY_SIZE * view.getUint16(0x10, true) +
    view.getUint16(0x12, true);
  if (headerSize > at.size || needed > headerSize) {
    staticHeaderIssues(view, at, issues);
    return undefined;
  }
  return needed;
}

/** Records the static header's problems (used when the header is too broken to read on). */
function staticHeaderIssues(view: DataView, at: FileOffset, issues: ProblemList): void {
  parseStaticHeader(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), view, at, issues);
}

/** Parses and checks a dataset's header bytes (`whole` when the whole dataset was read). */
function parseDataset(
  reader: UdfReader,
  at: FileOffset,
  head: Uint8Array,
  whole: Uint8Array | undefined,
  issues: ProblemList,
): UdfDataset | undefined {
  const { source } = reader;
  const base = at.offset;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const header = parseStaticHeader(head, view, at, issues);
  if (!header) return undefined;
  const lookupStart = STATIC_HEADER_SIZE + DESCRIPTOR_SIZE * header.descsLen;
  const stringsStart = lookupStart + LOOKUP_ENTRY_SIZE * header.lookupLen;

  // Lookup table (U3): resolve names only through it, never by re-hashing.
  const names: NameEntry[] = [];
  const byHash = new Map<number, NameEntry>();
  let sorted = true;
  for (let i = 0; i < header.lookupLen; i++) {
    const pos = lookupStart + i * LOOKUP_ENTRY_SIZE;
    const entry: NameEntry = {
      hash: view.getUint32(pos, true),
      offset: view.getUint16(pos + 4, true),
      len: view.getUint16(pos + 6, true),
      string: '',
    };
    if (entry.hash === 0)
      issues.error('InvalidValue', `lookup entry ${i} has hash 0`, {
        offset: base + pos,
        phase: Phase.header,
        scope: DATASET_SCOPE,
      });
    if (entry.offset + entry.len > header.stringLen) {
      issues.error(
        'OutOfBounds',
        `lookup entry ${i}: string ${entry.offset}+${entry.len} runs past the ${header.stringLen}-byte string blob`,
        { offset: base + pos + 4, phase: Phase.bounds, scope: DATASET_SCOPE },
      );
    } else {
      const ascii = asciiName(head, stringsStart + entry.offset, entry.len);
      if (ascii !== undefined) entry.string = ascii;
      else
        try {
          entry.string = decodeUtf8(
            head.subarray(stringsStart + entry.offset, stringsStart + entry.offset + entry.len),
            {
              offset: base + stringsStart + entry.offset,
              file: source.name,
              format: FORMAT_ID,
              what: `name of lookup entry ${i}`,
            },
          );
        } catch (error) {
          const e = error as FormatError;
          issues.error(e.code, e.detail, {
            offset: e.offset ?? base + pos,
            phase: Phase.payload,
            scope: DATASET_SCOPE,
          });
        }
    }
    if (i > 0 && entry.hash < names[i - 1].hash) sorted = false;
    if (entry.hash !== 0 && byHash.has(entry.hash)) {
      issues.error('InvalidValue', `lookup entry ${i} repeats hash ${entry.hash}`, {
        offset: base + pos,
        phase: Phase.reference,
        scope: DATASET_SCOPE,
      });
    } else {
      byHash.set(entry.hash, entry);
    }
    names.push(entry);
  }
  if (!sorted)
    issues.warn('InvalidValue', 'lookup entries are not sorted by hash', {
      offset: base + lookupStart,
      scope: DATASET_SCOPE,
    });

  const tables: TableInfo[] = [];
  const broken = new Map<number, FormatError>();
  const storage = at.size - header.headerSize;
  const markBroken = (i: number) => broken.set(i, toFormatError(issues.first(tableScope(i))!));
  for (let i = 0; i < header.descsLen; i++) {
    const errorsBefore = issues.errors.length;
    const table = parseDescriptor(view, i, base, header.headerSize, storage, byHash, issues);
    if (issues.errors.length > errorsBefore) markBroken(i);
    tables.push(table);
  }
  const byName = new Map<string, TableInfo>();
  const allIntact = broken.size === 0;
  for (const t of tables) {
    if (broken.has(t.index)) continue;
    if (byName.has(t.name)) {
      issues.warn(
        'InvalidValue',
        `two tables are named ${JSON.stringify(t.name)}; lookups by name find the first`,
        { offset: t.descriptorOffset, scope: DATASET_SCOPE },
      );
    } else {
      byName.set(t.name, t);
    }
  }
  for (const t of tables) {
    if (broken.has(t.index)) continue;
    const errorsBefore = issues.errors.length;
    checkRelations(t, byName, issues);
    if (issues.errors.length > errorsBefore) markBroken(t.index);
  }
  // With no broken descriptor the map is the one the dataset would build: share it.
  return new UdfDataset(
    reader,
    at,
    header,
    names,
    tables,
    issues.warnings,
    whole,
    broken,
    allIntact ? byName : undefined,
  );
}

/** The 24-byte static dataset header and its checks; undefined when it is too broken to go on. */
function parseStaticHeader(
  head: Uint8Array,
  view: DataView,
  at: FileOffset,
  issues: ProblemList,
): DatasetHeader | undefined {
  const base = at.offset;
  const check = view.getUint32(0, true);
  if (check !== DATASET_CHECK) {
    issues.error(
      'InvalidValue',
      `dataset check value is 0x${check.toString(16).padStart(8, '0')}, not 0x7fcea59b: no dataset at ${base}`,
      { offset: base, phase: Phase.header, scope: DATASET_SCOPE },
    );
    return undefined;
  }
  const idBytes = new Uint8Array(4);
  for (let k = 0; k < 4; k++) idBytes[k] = head[8 + k];
  const id = decodeId(idBytes);
  if (!id.valid)
    issues.error(
      'InvalidValue',
      `dataset id bytes ${hex(idBytes)} are not printable ASCII padded with NULs`,
      { offset: base + 8, phase: Phase.header, scope: DATASET_SCOPE },
    );
  const header: DatasetHeader = {
    check,
    checksum: view.getUint32(4, true),
    id: id.id,
    idBytes,
    headerSize: view.getUint16(0x0c, true),
    descsLen: view.getUint16(0x0e, true),
    lookupLen: view.getUint16(0x10, true),
    stringLen: view.getUint16(0x12, true),
    reserved: [view.getUint16(0x14, true), view.getUint16(0x16, true)],
  };
  if (header.reserved[0] !== 0 || header.reserved[1] !== 0) {
    issues.warn('ReservedNonZero', `dataset header reserved is [${header.reserved.join(', ')}]`, {
      offset: base + 0x14,
      scope: DATASET_SCOPE,
    });
  }
  if (header.headerSize % 8 !== 0) {
    issues.error('Misaligned', `dataset header_size ${header.headerSize} is not a multiple of 8`, {
      offset: base + 0x0c,
      phase: Phase.alignment,
      scope: DATASET_SCOPE,
    });
  }
  if (header.stringLen % 8 !== 0) {
    issues.error('Misaligned', `dataset string_len ${header.stringLen} is not a multiple of 8`, {
      offset: base + 0x12,
      phase: Phase.alignment,
      scope: DATASET_SCOPE,
    });
  }
  const needed =
    STATIC_HEADER_SIZE +
    DESCRIPTOR_SIZE * header.descsLen +
    LOOKUP_ENTRY_SIZE * header.lookupLen +
    header.stringLen;
  if (header.headerSize > at.size) {
    issues.error(
      'OutOfBounds',
      `dataset header_size ${header.headerSize} runs past the dataset's ${at.size} bytes`,
      { offset: base + 0x0c, phase: Phase.bounds, scope: DATASET_SCOPE },
    );
    return undefined;
  }
  if (needed > header.headerSize) {
    issues.error(
      'CountMismatch',
      `dataset header_size ${header.headerSize} is smaller than its ${header.descsLen} descriptors, ${header.lookupLen} lookup entries and ${header.stringLen} string bytes need (${needed})`,
      { offset: base + 0x0c, phase: Phase.reference, scope: DATASET_SCOPE },
    );
    return undefined;
  }
  return header;
}

function parseDescriptor(
  view: DataView,
  index: number,
  base: number,
  headerSize: number,
  storage: number,
  byHash: Map<number, NameEntry>,
  issues: ProblemList,
): TableInfo {
  const pos = STATIC_HEADER_SIZE + index * DESCRIPTOR_SIZE;
  const at = base + pos;
  const keyHash = view.getUint32(pos, true);
  const typeInfo = view.getUint16(pos + 4, true);
  const compressInfo = view.getUint16(pos + 6, true);
  const memStart = view.getUint32(pos + 8, true);
  const memEnd = view.getUint32(pos + 0x0c, true);
  const dataSize = view.getUint32(pos + 0x10, true);
  const raw: [number, number] = [view.getUint32(pos + 0x14, true), view.getUint32(pos + 0x18, true)];
  const indexHash = view.getUint32(pos + 0x1c, true);
  const relatedHash = view.getUint32(pos + 0x20, true);
  const typeHash = view.getUint32(pos + 0x24, true);
  const checksum = view.getUint32(pos + 0x28, true);
  const reserved = view.getUint32(pos + 0x2c, true);
  const type = unpackTypeInfo(typeInfo);
  const label = new IndexLabel(index);

  if (type.reservedBits !== 0) {
    issues.error(
      'ReservedNonZero',
      `${label}: type_info 0x${hex16(typeInfo)} sets reserved bits (6, 14, 15)`,
      { offset: at + 4, phase: Phase.header, scope: tableScope(index) },
    );
  }
  if (!type.prim) {
    issues.error(
      'InvalidValue',
      `${label}: type_info 0x${hex16(typeInfo)} has a reserved primitive (${type.extension ? 'X bit' : `code ${type.primCode}`})`,
      { offset: at + 4, phase: Phase.header, scope: tableScope(index) },
    );
  }
  const compressProblem = type.prim && compressInfoProblem(compressInfo, type.prim);
  if (compressProblem)
    issues.error(compressProblem.code, `${label}: ${compressProblem.message}`, {
      offset: at + 6,
      phase: Phase.header,
      scope: tableScope(index),
    });
  if (reserved !== 0)
    issues.warn('ReservedNonZero', `${label}: descriptor reserved is ${reserved}`, {
      offset: at + 0x2c,
      scope: tableScope(index),
    });
  if (keyHash === 0)
    issues.error('InvalidValue', `${label}: key_name is 0 (every table needs a name)`, {
      offset: at,
      phase: Phase.header,
      scope: tableScope(index),
    });
  if (memEnd < memStart)
    issues.error('InvalidValue', `${label}: mem_end ${memEnd} is below mem_start ${memStart}`, {
      offset: at + 0x0c,
      phase: Phase.header,
      scope: tableScope(index),
    });

  const prim = type.prim ?? 'custom';
  const hint = type.hint;
  const decoded = decodeShape(type.dims, raw[0], raw[1], hint);
  if (!decoded) {
    issues.error(
      'InvalidValue',
      `${label}: data_shape [${raw.join(', ')}] has a zero axis between ghost axes`,
      { offset: at + 0x14, phase: Phase.header, scope: tableScope(index) },
    );
  }
  const shape = decoded ?? { shape: [], ghostDims: 0, elementCount: 0 };
  // A hint's element axis left zero (a list of empty strings) holds no elements.
  if (shape.ghostDims < minGhosts(hint)) shape.elementCount = 0;
  const knownHint = type.hintValue < HINT_BY_VALUE.length;
  const hintIssue =
    type.prim && knownHint
      ? hintProblem(label, prim, hint, type.dims, shape.shape, shape.ghostDims, dataSize)
      : undefined;
  if (hintIssue)
    issues.error(hintIssue.code, hintIssue.message, {
      offset: at + hintIssue.field,
      phase: Phase.header,
      scope: tableScope(index),
    });
  const usesIndex = hint === 'index' || hint === 'range';
  if (usesIndex && indexHash === 0)
    issues.error('InvalidValue', `${label}: a ${hint} table needs index_name`, {
      offset: at + 0x1c,
      phase: Phase.header,
      scope: tableScope(index),
    });
  if (!usesIndex && indexHash !== 0) {
    issues.error('InvalidValue', `${label}: index_name is only allowed on INDEX and RANGE tables`, {
      offset: at + 0x1c,
      phase: Phase.header,
      scope: tableScope(index),
    });
  }

  const dataStart = headerSize + memStart * 8;
  const dataOffset = base + dataStart;
  if (memEnd >= memStart) {
    if (headerSize + memEnd * 8 > headerSize + storage) {
      issues.error(
        'OutOfBounds',
        `${label}: data blocks ${memStart}..${memEnd} run past the dataset's ${storage} storage bytes`,
        { offset: at + 8, phase: Phase.bounds, scope: tableScope(index) },
      );
    } else if (dataSize > (memEnd - memStart) * 8) {
      issues.error(
        'OutOfBounds',
        `${label}: data_size ${dataSize} does not fit its ${(memEnd - memStart) * 8}-byte block range ${memStart}..${memEnd}`,
        { offset: at + 0x10, phase: Phase.bounds, scope: tableScope(index) },
      );
    }
  }

  const name = resolveName(byHash, keyHash, 'key_name', at, label, issues) ?? '';
  const indexName = resolveName(byHash, indexHash, 'index_name', at + 0x1c, label, issues);
  const relatedName = resolveName(byHash, relatedHash, 'related_name', at + 0x20, label, issues);
  const typeName = resolveName(byHash, typeHash, 'type_name', at + 0x24, label, issues);

  // A compressed table's data_size is the stream's: its size is checked after decoding (U12).
  const sizeIssue =
    type.prim &&
    decoded &&
    compressInfo === 0 &&
    prim !== 'custom' &&
    dataSize !== shape.elementCount * PRIM_SIZE[prim]
      ? dataSizeProblem(
          `${label} ${JSON.stringify(name)}`,
          prim,
          hint,
          type.dims,
          shape.shape,
          shape.elementCount,
          dataSize,
        )
      : undefined;
  if (sizeIssue)
    issues.error(sizeIssue.code, sizeIssue.message, {
      offset: at + sizeIssue.field,
      phase: Phase.reference,
      scope: tableScope(index),
    });

  return {
    index,
    name,
    keyHash,
    typeInfo,
    prim,
    dims: type.dims,
    hint,
    hintValue: type.hintValue,
    compressInfo,
    memStart,
    memEnd,
    dataSize,
    dataShapeRaw: raw,
    shape: shape.shape,
    ghostDims: shape.ghostDims,
    elementCount: shape.elementCount,
    indexName,
    relatedName,
    typeName,
    checksum,
    reserved,
    dataOffset,
    descriptorOffset: at,
  };
}

/** A name hash resolved through the lookup table (U3); null for 0. */
function resolveName(
  byHash: Map<number, NameEntry>,
  hash: number,
  field: string,
  offset: number,
  label: IndexLabel,
  issues: ProblemList,
): string | null {
  if (hash === 0) return null;
  const entry = byHash.get(hash);
  if (!entry) {
    issues.error('InvalidValue', `${label}: ${field} hash ${hash} is not in the lookup table`, {
      offset: offset,
      phase: Phase.reference,
      scope: tableScope(label.index),
    });
    return `#${hash}`;
  }
  return entry.string;
}

/** A lazily formatted "table N" for messages. */
class IndexLabel {
  constructor(readonly index: number) {}
  toString(): string {
    return `table ${this.index}`;
  }
}

/** INDEX/RANGE targets (U13) and related tables (U14), within the same dataset. */
function checkRelations(t: TableInfo, byName: Map<string, TableInfo>, issues: ProblemList): void {
  const label = tableLabel(t);
  if ((t.hint === 'index' || t.hint === 'range') && t.indexName !== null) {
    const target = byName.get(t.indexName);
    if (!target) {
      issues.error(
        'InvalidValue',
        `${label}: index_name ${JSON.stringify(t.indexName)} is not a table of this dataset`,
        { offset: t.descriptorOffset + 0x1c, phase: Phase.reference, scope: tableScope(t.index) },
      );
    } else if (target.dims !== 1) {
      issues.error(
        'InvalidValue',
        `${label}: its ${t.hint} target ${JSON.stringify(target.name)} must be 1D, it has ${target.dims} dimensions`,
        { offset: t.descriptorOffset + 0x1c, phase: Phase.reference, scope: tableScope(t.index) },
      );
    }
  }
  if (t.relatedName !== null) {
    const related = byName.get(t.relatedName);
    if (!related) {
      issues.error(
        'InvalidValue',
        `${label}: related_name ${JSON.stringify(t.relatedName)} is not a table of this dataset`,
        { offset: t.descriptorOffset + 0x20, phase: Phase.reference, scope: tableScope(t.index) },
      );
    } else {
      const mine = t.shape.slice(0, t.dims);
      const theirs = related.shape.slice(0, related.dims);
      if (t.dims !== related.dims || mine.some((n, i) => n !== theirs[i])) {
        issues.error(
          'CountMismatch',
          `${label}: declared shape [${mine.join(', ')}] differs from related table ${JSON.stringify(related.name)}'s [${theirs.join(', ')}]`,
          { offset: t.descriptorOffset + 0x20, phase: Phase.reference, scope: tableScope(t.index) },
        );
      }
    }
  }
}

/** A name for messages whose text is built only when a message is. */
type Label = { toString(): string };

function tableLabel(info: TableInfo): Label {
  return { toString: () => `table ${JSON.stringify(info.name)}` };
}

function payloadError(dataset: UdfDataset, code: ErrorCode, message: string, offset: number): FormatError {
  return new FormatError(code, message, { offset, file: dataset.reader.source.name, format: FORMAT_ID });
}

/** Decodes a table's bytes by primitive and hint (U10, U11, U13, DATASET offsets). */
export function decodeTable(dataset: UdfDataset, info: TableInfo, stored: Uint8Array): UdfTable {
  const bytes = info.compressInfo === 0 ? stored : decodeStored(info, stored, dataset.reader.source.name);
  const out: UdfTable = bytes === stored ? { info, bytes } : { info, bytes, compressed: stored };
  const label = tableLabel(info);
  if (info.prim !== 'custom') out.values = toTypedArray(bytes, info.prim);
  switch (info.hint) {
    case 'text':
      out.text = decodeText(dataset, info, bytes, label);
      break;
    case 'json': {
      let json: unknown;
      try {
        json = JSON.parse(utf8.decode(bytes));
      } catch (error) {
        throw payloadError(
          dataset,
          'InvalidValue',
          `${label}: not valid JSON (${(error as Error).message})`,
          info.dataOffset,
        );
      }
      checkJsonShape(dataset, info, json, label);
      out.json = json;
      break;
    }
    case 'dataset':
      out.fileOffsets = decodeFileOffsets(dataset, info, bytes, label);
      break;
    case 'index':
    case 'range': {
      const target = dataset.table(info.indexName ?? '');
      if (!target) {
        throw payloadError(
          dataset,
          'InvalidValue',
          `${label}: index target ${JSON.stringify(info.indexName)} is missing`,
          info.descriptorOffset + 0x1c,
        );
      }
      checkIndices(dataset, info, out.values!, target.shape[0] ?? 0, label);
      out.target = target;
      break;
    }
  }
  return out;
}

/** A DATASET table's FileOffsets (u64 offset, u64 size each). */
function decodeFileOffsets(
  dataset: UdfDataset,
  info: TableInfo,
  bytes: Uint8Array,
  label: Label,
): FileOffset[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offsets: FileOffset[] = [];
  for (let pos = 0; pos + 16 <= bytes.byteLength; pos += 16) {
    const offset = readU64(view, pos);
    const size = readU64(view, pos + 8);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size)) {
      throw payloadError(
        dataset,
        'OutOfBounds',
        `${label}: FileOffset ${pos / 16} is beyond any file size`,
        info.dataOffset + pos,
      );
    }
    offsets.push({ offset, size });
  }
  return offsets;
}

function pushRefs(out: DatasetRef[], offsets: FileOffset[], info: TableInfo): void {
  for (let i = 0; i < offsets.length; i++) out.push({ at: offsets[i], from: info.dataOffset + i * 16 });
}

function checkIndices(
  dataset: UdfDataset,
  info: TableInfo,
  values: NumericArray,
  length: number,
  label: Label,
): void {
  const size = PRIM_SIZE[info.prim];
  const limit = BigInt(length);
  const n = values.length;
  if (info.hint === 'index') {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v === 'bigint' ? v >= limit : v >= length) {
        throw payloadError(
          dataset,
          'OutOfBounds',
          `${label}: index ${v} at element ${i} is not below target length ${length}`,
          info.dataOffset + i * size,
        );
      }
    }
    return;
  }
  for (let i = 0; i + 1 < n; i += 2) {
    const start = values[i];
    const end = values[i + 1];
    if (start > end) {
      throw payloadError(
        dataset,
        'InvalidValue',
        `${label}: range ${i / 2} starts at ${start}, after its end ${end}`,
        info.dataOffset + i * size,
      );
    }
    if (typeof end === 'bigint' ? end > limit : end > length) {
      throw payloadError(
        dataset,
        'OutOfBounds',
        `${label}: range ${i / 2} ends at ${end}, past target length ${length}`,
        info.dataOffset + (i + 1) * size,
      );
    }
  }
}

function checkJsonShape(dataset: UdfDataset, info: TableInfo, json: unknown, label: Label): void {
  // U11: a JSON table's declared axes are the lengths of its nested top-level arrays.
  let level: unknown[] = [json];
  for (let axis = 0; axis < info.dims; axis++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (!Array.isArray(v) || v.length !== info.shape[axis]) {
        throw payloadError(
          dataset,
          'CountMismatch',
          `${label}: JSON ${axis === 0 ? 'value' : 'nested value'} is not an array of length ${info.shape[axis]} (axis ${axis} of shape [${info.shape.join(', ')}])`,
          info.dataOffset,
        );
      }
      for (const item of v) next.push(item);
    }
    level = next;
  }
}

function decodeText(
  dataset: UdfDataset,
  info: TableInfo,
  bytes: Uint8Array,
  label: Label,
): string | string[] {
  const unit = PRIM_SIZE[info.prim];
  const width = info.ghostDims > 0 ? info.shape[info.shape.length - 1] : 0;
  const decode = (part: Uint8Array, at: number): string => {
    if (unit === 1) {
      const ascii = asciiName(part, 0, part.byteLength);
      if (ascii !== undefined) return ascii;
      try {
        return utf8.decode(part);
      } catch {
        throw payloadError(dataset, 'InvalidValue', `${label}: text is not valid UTF-8`, at);
      }
    }
    if (unit === 2) {
      try {
        return utf16.decode(part);
      } catch {
        throw payloadError(dataset, 'InvalidValue', `${label}: text is not valid UTF-16LE`, at);
      }
    }
    return decodeUtf32(dataset, part, at, label);
  };
  if (info.dims === 0) return decode(bytes, info.dataOffset);
  const rowBytes = width * unit;
  let rows = 1;
  for (let axis = 0; axis < info.dims; axis++) rows *= info.shape[axis];
  if (rowBytes === 0) return new Array<string>(rows).fill('');
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    let end = (r + 1) * rowBytes;
    const start = r * rowBytes;
    // Strip trailing NUL code units (U10).
    while (end > start && isNulUnit(bytes, end - unit, unit)) end -= unit;
    out.push(decode(bytes.subarray(start, end), info.dataOffset + start));
  }
  return out;
}

function isNulUnit(bytes: Uint8Array, at: number, unit: number): boolean {
  for (let k = 0; k < unit; k++) if (bytes[at + k] !== 0) return false;
  return true;
}

function decodeUtf32(dataset: UdfDataset, bytes: Uint8Array, at: number, label: Label): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  const chunk: number[] = [];
  for (let pos = 0; pos + 4 <= bytes.byteLength; pos += 4) {
    const cp = view.getUint32(pos, true);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      throw payloadError(
        dataset,
        'InvalidValue',
        `${label}: 0x${cp.toString(16)} is not a Unicode scalar value (UTF-32)`,
        at + pos,
      );
    }
    chunk.push(cp);
    if (chunk.length === 4096) parts.push(String.fromCodePoint(...chunk.splice(0)));
  }
  parts.push(String.fromCodePoint(...chunk));
  return parts.join('');
}

/**
 * Recently decoded short ASCII strings by length and first bytes' hash: most datasets of a file
 * share their table names, so a walk builds each name once.
 */
const asciiCache = new Map<number, string>();

/** Short ASCII strings (most names and labels) without a TextDecoder call; undefined otherwise. */
function asciiName(bytes: Uint8Array, start: number, len: number): string | undefined {
  if (len > 64) return undefined;
  let h = len;
  for (let i = start; i < start + len; i++) {
    const b = bytes[i];
    if (b >= 0x80) return undefined;
    h = (Math.imul(h, 31) + b) | 0;
  }
  const cached = asciiCache.get(h);
  if (cached !== undefined && cached.length === len) {
    let same = true;
    for (let i = 0; i < len; i++) {
      if (cached.charCodeAt(i) !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cached;
  }
  let out = '';
  for (let i = start; i < start + len; i++) out += String.fromCharCode(bytes[i]);
  if (asciiCache.size >= 4096) asciiCache.clear();
  asciiCache.set(h, out);
  return out;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

function hex16(value: number): string {
  return value.toString(16).padStart(4, '0');
}
