import { type ByteSource, type FormatError, pacer, type ReadOptions } from '@binscope/core';
import { answersSynchronously } from '@binscope/core/binary';
import { HEADER_SLOTS, headerCheck } from './header-wasm.js';
import { TAR_BLOCK, fail } from './layout.js';
import { checksumProblem, isZeroBlock, paxSize, plainOctalSize, sizeField, wordSum } from './tar.js';

/**
 * The walk over a tar's headers (T1), for the indexer: a 512-byte read per header of a local
 * shard, 64 KiB windows over remote ones. The fields themselves are read by tar.ts.
 */

/** PAX extended headers larger than this are refused rather than read into memory. */
const MAX_PAX_HEADER = 16 * 1024 * 1024;
/** Header-walk window for sources where every read is a round trip (Blob, HTTP; see walkTar). */
const REMOTE_WINDOW = 64 * 1024;

/** What walkTar hands each member header to (the index builder). */
export interface HeaderSink {
  /**
   * One header: `block[at..at + 512)`, at `offset` in the shard, with its payload size (PAX
   * record, else base-256, else octal). The block is reused: it is valid during the call only.
   * `name`, where the walk has header-wasm.ts, is its scan of the name field (a NameCode, with
   * the previous stem and the extensions of this walk), else -1.
   */
  addHeader(block: Uint8Array, at: number, offset: number, size: number, name: number): void;
}

type Reader = (offset: number, length: number) => Uint8Array | Promise<Uint8Array>;
type WalkOptions = ReadOptions & { onBytes?: (offset: number) => void };

/**
 * Walks a tar's headers in order (T1): reads 512 bytes at each header and seeks over the
 * payload, stopping at the first all-zero block or a short read. A member whose payload
 * runs past the end of the shard is a half-copied shard: `Truncated`. Returns the number of
 * headers handed to `sink`.
 *
 * Sources that answer synchronously (local files, memory) get one 512-byte read per header into
 * a reused block, so payload bytes are never read: on network file systems and cold disks the
 * payloads are what costs. Sources where each read is a round trip (Blob, HTTP) read 64 KiB
 * windows instead: a request per header would cost far more than the payload bytes the
 * windows carry along.
 */
export function walkTar(source: ByteSource, sink: HeaderSink, options: WalkOptions = {}): Promise<number> {
  return answersSynchronously(source)
    ? walkBlocks(source, sink, options)
    : walkWindows(source, sink, options);
}

/**
 * walkTar for sources that answer synchronously: one 512-byte read per header, and nothing
 * allocated per header. The reads go into a ring of HEADER_SLOTS blocks and the sink gets
 * each ring's headers in one go, before the walk yields (pace), returns or throws. Between two
 * read calls the loop does little (the common header is checked by `plain`, header-wasm.ts),
 * and the sink's work runs back to back: run between the reads, each of which evicts much of
 * what the work before it had in the caches, the same work took about twice as long.
 */
async function walkBlocks(source: ByteSource, sink: HeaderSink, options: WalkOptions): Promise<number> {
  const BLOCK = 512;
  const SLOTS = HEADER_SLOTS;
  const size = source.size;
  const file = source.name;
  // The ring lives in the memory of the module that checks the headers, where there is one.
  const check = headerCheck();
  const ring = check?.blocks ?? new Uint8Array(SLOTS * BLOCK);
  const plain = check?.plain;
  const name = check?.name;
  // A read request per slot (made once): each read fills its slot.
  const requests = Array.from({ length: SLOTS }, (_, k) => ({
    into: ring.subarray(k * BLOCK, (k + 1) * BLOCK),
  }));
  const words: Uint32Array[] = [];
  const offsets = new Float64Array(SLOTS);
  const sizes = new Float64Array(SLOTS);
  let pending = 0;
  const flush = () => {
    const n = pending;
    pending = 0;
    for (let k = 0; k < n; k++) {
      sink.addHeader(ring, k * BLOCK, offsets[k], sizes[k], name !== undefined ? name(k * BLOCK) : -1);
    }
  };
  // Local reads are synchronous: without turns of the event loop, a walk of a large shard
  // would hold off an abort or a SIGTERM handler until its end.
  const pace = pacer(options.signal);
  let offset = 0;
  /** The size a PAX header gave the next member, -1 when none. */
  let paxSize = -1;
  let count = 0;
  try {
    while (offset < size) {
      if (offset + BLOCK > size) {
        await refuseCutHeader((at, length) => source.read(at, length, options), offset, size, file);
        break;
      }
      const slot = requests[pending].into;
      const got = source.read(offset, BLOCK, requests[pending]);
      // The slot itself, usually: comparing first spares the prototype walk of instanceof.
      let header = got === slot ? slot : got instanceof Promise ? await got : got;
      if (header.length < BLOCK) throw cutHeader(offset, size, file);
      if (header !== slot) header = copyInto(header, slot);
      let memberSize = plain !== undefined ? plain(pending * BLOCK) : -1;
      if (memberSize < 0) {
        // The end-of-archive marker: what follows is not read.
        if (header[0] === 0 && isZeroBlock(header, 0)) break;
        // The same block as words, for the checksum in JavaScript (slots are 4-byte aligned).
        words[pending] ??= new Uint32Array(ring.buffer, ring.byteOffset + pending * BLOCK, BLOCK / 4);
        memberSize = checkedSize(header, words[pending], offset, file);
      }
      const type = header[156];
      if (type === 0x78 /* x */ || type === 0x67 /* g */ || type === 0x4c /* L */ || type === 0x4b /* K */) {
        if (type === 0x78) paxSize = (await readPaxSize(source, offset, memberSize, header, offset)) ?? -1;
      } else if (paxSize >= 0) {
        memberSize = paxSize;
        paxSize = -1;
      }
      if (offset + BLOCK + memberSize > size) throw payloadPastEnd(offset, memberSize, size, file);
      offsets[pending] = offset;
      sizes[pending] = memberSize;
      // The payload rounded up to whole blocks: in integers while they fit (no division).
      offset +=
        BLOCK + (memberSize < 0x7ffffe00 ? (memberSize + 511) & -512 : Math.ceil(memberSize / BLOCK) * BLOCK);
      if (++pending === SLOTS) {
        flush();
        count += SLOTS;
        if ((count & 0xff) === 0) {
          await pace();
          if ((count & 0x3fff) === 0) options.onBytes?.(offset);
        }
      }
    }
  } catch (error) {
    // The sink gets what was read before the error first: an error it finds there came first.
    flush();
    throw error;
  }
  count += pending;
  flush();
  options.onBytes?.(Math.min(offset, size));
  return count;
}

function copyInto(bytes: Uint8Array, slot: Uint8Array): Uint8Array {
  slot.set(bytes.subarray(0, slot.length));
  return slot;
}

/**
 * The size of the member whose header is `header[0..512)`, any header: its checksum checked
 * (summed as `words`, a view of the same block), its size from the octal or base-256 field.
 */
function checkedSize(header: Uint8Array, words: Uint32Array, offset: number, file: string): number {
  const badChecksum = checksumProblem(header, 0, wordSum(words));
  if (badChecksum !== undefined) throw checksumError(badChecksum, offset, file);
  const memberSize = plainOctalSize(header, 0);
  return memberSize >= 0 ? memberSize : sizeField(header, 0, { file, offset });
}

/** walkTar for sources where every read is a round trip: headers from 64 KiB windows. */
async function walkWindows(source: ByteSource, sink: HeaderSink, options: WalkOptions): Promise<number> {
  const size = source.size;
  const file = source.name;
  const read: Reader = (offset, length) => source.read(offset, length, options);
  const pace = pacer(options.signal);
  let window: Uint8Array = new Uint8Array(0);
  let windowStart = 0;
  let offset = 0;
  let paxSize = -1;
  let count = 0;
  while (offset < size) {
    if (offset + TAR_BLOCK > size) {
      await refuseCutHeader(read, offset, size, file);
      break;
    }
    if (offset < windowStart || offset + TAR_BLOCK > windowStart + window.byteLength) {
      const got = read(offset, Math.min(REMOTE_WINDOW, size - offset));
      window = got instanceof Uint8Array ? got : await got;
      windowStart = offset;
      if (window.byteLength < TAR_BLOCK) throw cutHeader(offset, size, file);
    }
    const at = offset - windowStart;
    if (window[at] === 0 && isZeroBlock(window, at)) break;
    const badChecksum = checksumProblem(window, at);
    if (badChecksum !== undefined) throw checksumError(badChecksum, offset, file);
    let memberSize = plainOctalSize(window, at);
    if (memberSize < 0) memberSize = sizeField(window, at, { file, offset });
    const type = window[at + 156];
    if (type === 0x78 /* x */ || type === 0x67 /* g */ || type === 0x4c /* L */ || type === 0x4b /* K */) {
      if (type === 0x78) paxSize = (await readPaxSize(source, offset, memberSize, window, windowStart)) ?? -1;
    } else if (paxSize >= 0) {
      memberSize = paxSize;
      paxSize = -1;
    }
    if (offset + TAR_BLOCK + memberSize > size) throw payloadPastEnd(offset, memberSize, size, file);
    sink.addHeader(window, at, offset, memberSize, -1);
    offset += TAR_BLOCK + Math.ceil(memberSize / TAR_BLOCK) * TAR_BLOCK;
    if ((++count & 0xff) === 0) {
      await pace();
      if ((count & 0x3fff) === 0) options.onBytes?.(offset);
    }
  }
  options.onBytes?.(Math.min(offset, size));
  return count;
}

function checksumError(problem: string, offset: number, file: string): FormatError {
  return fail('InvalidValue', `tar header at ${offset}: ${problem}`, offset + 148, file);
}

function payloadPastEnd(offset: number, memberSize: number, size: number, file: string): FormatError {
  return fail(
    'Truncated',
    `tar member at ${offset} needs ${memberSize} payload bytes but the shard ends at ${size} (a half-copied shard?)`,
    offset,
    file,
  );
}

function cutHeader(offset: number, size: number, file: string): FormatError {
  return fail(
    'Truncated',
    `tar header at ${offset} is cut off: the shard ends at ${size}, ${size - offset} of its 512 bytes (a half-copied shard?)`,
    offset,
    file,
  );
}

/**
 * Fewer than 512 bytes after the last member: a header cut short (a half-copied shard or an
 * interrupted stream) unless they are all zero (an end-of-archive block cut short, which
 * loses nothing).
 */
async function refuseCutHeader(read: Reader, offset: number, size: number, file: string): Promise<void> {
  const got = read(offset, size - offset);
  const tail = got instanceof Uint8Array ? got : await got;
  if (tail.some((b) => b !== 0)) throw cutHeader(offset, size, file);
}

async function readPaxSize(
  source: ByteSource,
  offset: number,
  size: number,
  window: Uint8Array,
  windowStart: number,
): Promise<number | undefined> {
  const where = { file: source.name, offset };
  if (size > MAX_PAX_HEADER) {
    throw fail(
      'UnsupportedFeature',
      `PAX extended header of ${size} bytes is too large to read`,
      where.offset,
      where.file,
    );
  }
  const start = offset + TAR_BLOCK;
  if (start + size > source.size) {
    throw fail('Truncated', 'PAX extended header runs past the end of the shard', where.offset, where.file);
  }
  let payload: Uint8Array;
  if (start >= windowStart && start + size <= windowStart + window.byteLength) {
    payload = window.subarray(start - windowStart, start - windowStart + size);
  } else {
    // A fresh read, so the walk's reused 512-byte buffer is not clobbered.
    payload = (await source.read(start, size)).slice();
  }
  return paxSize(payload, where);
}
