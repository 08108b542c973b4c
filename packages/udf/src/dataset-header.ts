import {
  type Awaitable,
  type FormatError,
  Phase,
  type ProblemList,
  readExact,
  toFormatError,
} from '@binscope/core';
import { decodeUtf8 } from '@binscope/core/binary';
import {
  DATASET_CHECK,
  DATASET_SCOPE,
  DESCRIPTOR_SIZE,
  decodeId,
  FORMAT_ID,
  type FileOffset,
  LOOKUP_ENTRY_SIZE,
  STATIC_HEADER_SIZE,
  tableScope,
} from './types.js';
import { asciiName } from './ascii.js';
import { joinBytes } from './bytes.js';
import { UdfDataset } from './dataset.js';
import { type TableInfo, checkRelations, parseDescriptor } from './descriptor.js';
import { checkFileOffset, hex } from './header.js';
import type { UdfReader } from './read.js';
import type { DatasetRef } from './walk.js';

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

/**
 * Reads and checks one dataset's header, descriptors and lookup table (all checks up to
 * cross-references; payloads are checked when tables are read). Undefined when the header is
 * too broken to go on; otherwise a dataset whose broken tables are marked. Synchronous when the
 * source answers synchronously (local files, memory): a walk then makes no promise.
 */
export function loadDataset(
  reader: UdfReader,
  ref: DatasetRef,
  issues: ProblemList,
): Awaitable<UdfDataset | undefined> {
  const { source, requests } = reader;
  const { at } = ref;
  // Synchronous reads do not look at the signal: the walk does, once per dataset.
  reader.options.signal?.throwIfAborted();
  if (!checkFileOffset(at, ref.from, source.size, issues)) return undefined;
  if (at.size <= reader.wholeDatasetBelow) {
    const whole = readExact(source, at.offset, at.size, requests.dataset);
    if (whole instanceof Promise) return whole.then((w) => parseDataset(reader, at, w, w, issues));
    return parseDataset(reader, at, whole, whole, issues);
  }
  const head = readExact(source, at.offset, STATIC_HEADER_SIZE, requests.header);
  if (head instanceof Promise) return head.then((h) => loadHeader(reader, at, h, issues));
  return loadHeader(reader, at, head, issues);
}

/** A large dataset: the rest of its header after the static part, then the parse. */
function loadHeader(
  reader: UdfReader,
  at: FileOffset,
  head: Uint8Array,
  issues: ProblemList,
): Awaitable<UdfDataset | undefined> {
  const needed = headerBytesNeeded(head, at, issues);
  if (needed === undefined) return undefined;
  if (needed <= STATIC_HEADER_SIZE) return parseDataset(reader, at, head, undefined, issues);
  const start = at.offset + STATIC_HEADER_SIZE;
  const rest = readExact(reader.source, start, needed - STATIC_HEADER_SIZE, reader.requests.header);
  const parse = (more: Uint8Array) => parseDataset(reader, at, joinBytes(head, more), undefined, issues);
  return rest instanceof Promise ? rest.then(parse) : parse(rest);
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
