import {
  type ByteSource,
  type FormatError,
  formatErrors,
  type Problem,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { crc32 } from '@binscope/core/binary';
import { FLAG_CHECKSUMMED, FORMAT_ID, HEADER_OFFSET, type MldfHeader, type MldfLayout } from './layout.js';

/**
 * FLAG_CHECKSUMMED (0x4) layout. The design text asks for "a checksum field (CRC32 of the
 * data region)" in the header without placing it; the only room the fixed 64-byte header has
 * is its 8 reserved bytes, so a checksummed file keeps them as two CRC-32s (IEEE, as zlib):
 *
 * | header offset | file offset | field          | covers                                           |
 * |---------------|-------------|----------------|--------------------------------------------------|
 * | 56            | 65          | data_crc32     | [data_ptr, alloc_table_ptr): every value's bytes |
 * | 60            | 69          | metadata_crc32 | [metadata_ptr, + num_samples · row size)         |
 *
 * An empty region's CRC is 0. Without the flag the bytes stay zero (ReservedNonZero
 * otherwise), so files written without checksums are byte-identical to before.
 */
export const DATA_CRC_OFFSET = HEADER_OFFSET + 56;
export const METADATA_CRC_OFFSET = HEADER_OFFSET + 60;

export type MldfRegion = 'data' | 'metadata';

export interface MldfChecksums {
  data: number;
  metadata: number;
}

/** The stored checksums, or undefined when the file has no FLAG_CHECKSUMMED. */
export function storedChecksums(header: MldfHeader): MldfChecksums | undefined {
  if (!(header.flags & FLAG_CHECKSUMMED)) return undefined;
  const view = new DataView(header.reserved.buffer, header.reserved.byteOffset, 8);
  return { data: view.getUint32(0, true), metadata: view.getUint32(4, true) };
}

/** Puts both CRCs into an encoded header (magic + 64 bytes) and sets the flag. */
export function stampChecksums(head: Uint8Array, sums: MldfChecksums): void {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  view.setUint32(HEADER_OFFSET + 4, view.getUint32(HEADER_OFFSET + 4, true) | FLAG_CHECKSUMMED, true);
  view.setUint32(DATA_CRC_OFFSET, sums.data, true);
  view.setUint32(METADATA_CRC_OFFSET, sums.metadata, true);
}

const CHUNK = 4 << 20;

/** CRC-32 of [start, start + length), read in 4 MiB pieces so memory stays bounded. */
export async function regionCrc(
  source: ByteSource,
  start: number,
  length: number,
  options: ReadOptions = {},
): Promise<number> {
  let crc = 0;
  for (let pos = start; pos < start + length; pos += CHUNK) {
    const n = Math.min(CHUNK, start + length - pos);
    const bytes = await readExact(source, pos, n, {
      format: FORMAT_ID,
      what: 'checksummed region',
      signal: options.signal,
    });
    crc = crc32(bytes, crc);
  }
  return crc;
}

export interface RegionCheck {
  region: MldfRegion;
  start: number;
  length: number;
  stored: number;
  computed: number;
}

const fail = formatErrors(FORMAT_ID);
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
const CORRUPTED = ') is corrupted: CRC32 ';

/** The region a problem reports as corrupted (one of verifyMldfChecksums' errors), if it is one. */
export function corruptedRegion(problem: Problem): 'metadata' | 'data' | undefined {
  if (problem.code !== 'InvalidValue' || !problem.message.includes(CORRUPTED)) return undefined;
  const region = problem.message.slice(0, problem.message.indexOf(' region ['));
  return region === 'metadata' || region === 'data' ? region : undefined;
}

/**
 * Recomputes both regions' CRCs. Returns one `InvalidValue` error per region that differs
 * (empty when the file has no checksums or all agree), each naming the region and its range.
 */
export async function verifyMldfChecksums(
  source: ByteSource,
  header: MldfHeader,
  layout: Pick<MldfLayout, 'rowSize' | 'dataEnd'>,
  options: ReadOptions = {},
): Promise<FormatError[]> {
  const stored = storedChecksums(header);
  if (!stored) return [];
  const regions: Array<Omit<RegionCheck, 'computed'>> = [
    {
      region: 'metadata',
      start: header.metadataPtr,
      length: header.numSamples * layout.rowSize,
      stored: stored.metadata,
    },
    { region: 'data', start: header.dataPtr, length: layout.dataEnd - header.dataPtr, stored: stored.data },
  ];
  const errors: FormatError[] = [];
  for (const r of regions) {
    const computed = r.length > 0 ? await regionCrc(source, r.start, r.length, options) : 0;
    if (computed === r.stored) continue;
    errors.push(
      fail(
        'InvalidValue',
        `${r.region} region [${r.start}, ${r.start + r.length}${CORRUPTED}${hex(computed)}, header stores ${hex(r.stored)}`,
        r.start,
        source.name,
      ),
    );
  }
  return errors;
}

export interface VerifyOption {
  /**
   * Recompute the CRC-32s of a FLAG_CHECKSUMMED file's metadata and data regions while
   * opening (reads both regions once) and throw `InvalidValue` naming the first corrupted
   * region. Files without checksums open as usual.
   */
  verify?: boolean;
}

/** `openMldf(…, {verify: true})`: throws the first corrupted region's error. */
export async function verifyOnOpen(
  source: ByteSource,
  header: MldfHeader,
  layout: MldfLayout,
  options: ReadOptions & VerifyOption,
): Promise<void> {
  if (!options.verify) return;
  const [corrupted] = await verifyMldfChecksums(source, header, layout, options);
  if (corrupted) throw corrupted;
}
