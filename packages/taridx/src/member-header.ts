import { type ByteSource, type ReadOptions, readExact } from '@binscope/core';
import { FORMAT, TAR_BLOCK, fail } from './layout.js';
import { nameEnd, splitName, typeflagOf } from './tar.js';

/**
 * Reading what a member's tar header says, and the full path its pseudo headers give it.
 * Only 512-byte header blocks are read, plus the payloads of GNU long-name (`L`) and PAX
 * (`x`) headers: never an earlier member's payload, which in a WebDataset shard is the
 * previous sample's image (hundreds of MB read per key before this file existed).
 */

/** A tar header as the index sees it (T2), plus the member's full path as tar tools show it. */
export interface TarMemberInfo {
  typeflag: string;
  /** The header's 100-byte name field, up to NUL, UTF-8 with U+FFFD replacement. */
  headerName: string;
  stem: string;
  ext: string;
  /** Full member path (GNU long name, PAX path or USTAR prefix applied; directories without the
   * trailing slash); null for pseudo headers (L, K, x, g). */
  path: string | null;
}

/** Where a member is: what the path lookup needs of a row. */
export interface HeaderLocation {
  row: number;
  fid: number;
  offset: number;
  size: number;
}

/**
 * Largest GNU long-name or PAX payload read to resolve a path. Real ones hold a path (PATH_MAX
 * is 4 KiB) and a few records; anything bigger is not a name, and reading it would let one
 * crafted header make a key lookup cost gigabytes.
 */
export const PSEUDO_PAYLOAD_LIMIT = 1 << 20;
/** How many pseudo headers may precede a member (GNU L and K, PAX x, in any order). */
const MAX_PSEUDO_HEADERS = 4;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The member's 512-byte header block. */
export function readHeaderBlock(
  source: ByteSource,
  m: HeaderLocation,
  options: ReadOptions = {},
): Promise<Uint8Array> {
  return readExact(source, m.offset, TAR_BLOCK, {
    format: FORMAT,
    what: `tar header of row ${m.row} (shard ${source.name})`,
    signal: options.signal,
  });
}

/** The T2 fields of a header block; `path` is left null for `resolvePath`. */
export function headerInfo(block: Uint8Array): TarMemberInfo {
  const end = nameEnd(block, 0);
  const { stemStart, dot } = splitName(block, 0, end);
  return {
    typeflag: typeflagOf(block, 0),
    headerName: decoder.decode(block.subarray(0, end)),
    stem: decoder.decode(block.subarray(stemStart, dot < 0 ? end : dot)),
    ext: dot < 0 ? '' : decoder.decode(block.subarray(dot + 1, end)).toLowerCase(),
    path: null,
  };
}

/**
 * The member's full path: a GNU long name or PAX path from the pseudo headers just before it
 * (rows of the same shard whose blocks end where the next begins), else the USTAR prefix and
 * name. Each earlier row's header is read first and its typeflag decides: only `L` and `x`
 * payloads are read, and only up to PSEUDO_PAYLOAD_LIMIT (UnsupportedFeature above it).
 */
export async function resolvePath(
  source: ByteSource,
  m: HeaderLocation,
  block: Uint8Array,
  headerName: string,
  previous: (row: number) => HeaderLocation,
): Promise<string> {
  let path: string | undefined;
  const isDir =
    block[156] === 0x35 || ((block[156] === 0 || block[156] === 0x30) && headerName.endsWith('/'));
  for (let row = m.row - 1, expect = m.offset; row >= 0 && row >= m.row - MAX_PSEUDO_HEADERS; row--) {
    const prev = previous(row);
    if (
      prev.fid !== m.fid ||
      prev.offset + TAR_BLOCK + Math.ceil(prev.size / TAR_BLOCK) * TAR_BLOCK !== expect
    )
      break;
    const type = typeflagOf(await readHeaderBlock(source, prev), 0);
    if (type === 'L' || type === 'x') {
      const payload = await readPseudoPayload(source, prev, type);
      if (type === 'L') {
        const nul = payload.indexOf(0);
        path ??= decoder.decode(nul < 0 ? payload : payload.subarray(0, nul));
      } else {
        path ??= paxPath(payload);
      }
    } else if (type !== 'K') {
      break;
    }
    expect = prev.offset;
  }
  if (path === undefined) {
    path = headerName;
    if (isDir) path = path.replace(/\/+$/, '');
    const prefixEnd = block.subarray(345, 500).indexOf(0);
    const prefix = decoder.decode(block.subarray(345, prefixEnd < 0 ? 500 : 345 + prefixEnd));
    return prefix ? `${prefix}/${path}` : path;
  }
  return isDir ? path.replace(/\/+$/, '') : path;
}

function readPseudoPayload(source: ByteSource, prev: HeaderLocation, type: string): Promise<Uint8Array> {
  const what = type === 'L' ? 'GNU long-name' : 'PAX';
  if (prev.size > PSEUDO_PAYLOAD_LIMIT) {
    throw fail(
      'UnsupportedFeature',
      `row ${prev.row}: ${what} header payload of ${prev.size} bytes is larger than the ${PSEUDO_PAYLOAD_LIMIT} bytes read to resolve a member path`,
      prev.offset,
      source.name,
    );
  }
  return readExact(source, prev.offset + TAR_BLOCK, prev.size, {
    format: FORMAT,
    what: `${what} header payload of row ${prev.row} (shard ${source.name})`,
  });
}

function paxPath(payload: Uint8Array): string | undefined {
  const text = decoder.decode(payload);
  let path: string | undefined;
  let pos = 0;
  while (pos < text.length) {
    const space = text.indexOf(' ', pos);
    if (space < 0) break;
    const length = Number(text.slice(pos, space));
    if (!Number.isInteger(length) || length <= 0) break;
    // Lengths count bytes; for ASCII keys the record's "key=value\n" follows the space.
    const recordEnd = text.indexOf('\n', space);
    const record = text.slice(space + 1, recordEnd < 0 ? text.length : recordEnd);
    if (record.startsWith('path=')) path = record.slice(5);
    pos = recordEnd < 0 ? text.length : recordEnd + 1;
  }
  return path;
}
