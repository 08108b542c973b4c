import { type NumericArray, parseBoundedJson } from '@binscope/core';
import { readU64, readU64Big, toTypedArray } from '@binscope/core/binary';
import { type FileOffset, PRIM_SIZE } from './types.js';
import { decodeStored } from './stored.js';
import { asciiName } from './ascii.js';
import type { UdfDataset } from './dataset.js';
import type { TableInfo } from './descriptor.js';
import type { DatasetRef } from './walk.js';

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

export const utf16 = new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true });

export const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A name for messages whose text is built only when a message is. */
export type Label = { toString(): string };

export function tableLabel(info: TableInfo): Label {
  return { toString: () => `table ${JSON.stringify(info.name)}` };
}

/** Decodes a table's bytes by primitive and hint (U10, U11, U13, DATASET offsets). */
export function decodeTable(dataset: UdfDataset, info: TableInfo, stored: Uint8Array): UdfTable {
  const bytes = info.compressInfo === 0 ? stored : decodeStored(info, stored, dataset.reader.fail);
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
        json = parseBoundedJson(utf8.decode(bytes));
      } catch (error) {
        throw dataset.reader.fail(
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
    case 'range':
      out.target = checkIndexTable(dataset, info, out.values!, 0);
      break;
  }
  return out;
}

/** A DATASET table's FileOffsets (u64 offset, u64 size each). */
export function decodeFileOffsets(
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
      throw dataset.reader.fail(
        'OutOfBounds',
        `${label}: FileOffset ${pos / 16} (${readU64Big(view, pos)}, ${readU64Big(view, pos + 8)}) is beyond any file size`,
        info.dataOffset + pos,
      );
    }
    offsets.push({ offset, size });
  }
  return offsets;
}

export function pushRefs(out: DatasetRef[], offsets: FileOffset[], info: TableInfo): void {
  for (let i = 0; i < offsets.length; i++) out.push({ at: offsets[i], from: info.dataOffset + i * 16 });
}

/**
 * U13 on the values of an INDEX or RANGE table, or on a run of them starting at element
 * `first` (a table read in pieces): each index below its target's length, each range ordered
 * and inside it. Returns the target.
 */
export function checkIndexTable(
  dataset: UdfDataset,
  info: TableInfo,
  values: NumericArray,
  first: number,
): TableInfo {
  const label = tableLabel(info);
  const target = dataset.table(info.indexName ?? '');
  if (!target) {
    throw dataset.reader.fail(
      'InvalidValue',
      `${label}: index target ${JSON.stringify(info.indexName)} is missing`,
      info.descriptorOffset + 0x1c,
    );
  }
  checkIndices(dataset, info, values, target.shape[0] ?? 0, label, first);
  return target;
}

function checkIndices(
  dataset: UdfDataset,
  info: TableInfo,
  values: NumericArray,
  length: number,
  label: Label,
  first: number,
): void {
  const size = PRIM_SIZE[info.prim];
  const limit = BigInt(length);
  const n = values.length;
  if (info.hint === 'index') {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v === 'bigint' ? v >= limit : v >= length) {
        throw dataset.reader.fail(
          'OutOfBounds',
          `${label}: index ${v} at element ${first + i} is not below target length ${length}`,
          info.dataOffset + (first + i) * size,
        );
      }
    }
    return;
  }
  for (let i = 0; i + 1 < n; i += 2) {
    const start = values[i];
    const end = values[i + 1];
    const at = first + i;
    if (start > end) {
      throw dataset.reader.fail(
        'InvalidValue',
        `${label}: range ${at / 2} starts at ${start}, after its end ${end}`,
        info.dataOffset + at * size,
      );
    }
    if (typeof end === 'bigint' ? end > limit : end > length) {
      throw dataset.reader.fail(
        'OutOfBounds',
        `${label}: range ${at / 2} ends at ${end}, past target length ${length}`,
        info.dataOffset + (at + 1) * size,
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
        throw dataset.reader.fail(
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
        throw dataset.reader.fail('InvalidValue', `${label}: text is not valid UTF-8`, at);
      }
    }
    if (unit === 2) {
      try {
        return utf16.decode(part);
      } catch {
        throw dataset.reader.fail('InvalidValue', `${label}: text is not valid UTF-16LE`, at);
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
      throw dataset.reader.fail(
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
