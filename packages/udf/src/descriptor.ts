import { Phase, type ProblemList } from '@binscope/core';
import {
  DESCRIPTOR_SIZE,
  decodeShape,
  HINT_BY_VALUE,
  type Hint,
  PRIM_SIZE,
  type Prim,
  STATIC_HEADER_SIZE,
  tableScope,
  unpackTypeInfo,
} from './types.js';
import { compressInfoProblem } from './compress.js';
import { dataSizeProblem, hintProblem, minGhosts } from './shape-rules.js';
import type { NameEntry } from './dataset-header.js';
import { tableLabel } from './decode.js';

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

export function parseDescriptor(
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
  const d = readRawDescriptor(view, pos);
  const { keyHash, typeInfo, compressInfo, memStart, memEnd, dataSize, raw } = d;
  const { indexHash, relatedHash, typeHash, checksum, reserved } = d;
  const type = unpackTypeInfo(typeInfo);
  const label = new IndexLabel(index);

  checkFieldValues(d, type, at, label, issues);

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
  checkIndexName(hint, indexHash, at, label, issues);

  const dataStart = headerSize + memStart * 8;
  const dataOffset = base + dataStart;
  checkBlockRange(d, storage, at, label, issues);

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

/** A descriptor's 48 bytes as numbers (U2). */
interface RawDescriptor {
  keyHash: number;
  typeInfo: number;
  compressInfo: number;
  memStart: number;
  memEnd: number;
  dataSize: number;
  raw: [number, number];
  indexHash: number;
  relatedHash: number;
  typeHash: number;
  checksum: number;
  reserved: number;
}

function readRawDescriptor(view: DataView, pos: number): RawDescriptor {
  return {
    keyHash: view.getUint32(pos, true),
    typeInfo: view.getUint16(pos + 4, true),
    compressInfo: view.getUint16(pos + 6, true),
    memStart: view.getUint32(pos + 8, true),
    memEnd: view.getUint32(pos + 0x0c, true),
    dataSize: view.getUint32(pos + 0x10, true),
    raw: [view.getUint32(pos + 0x14, true), view.getUint32(pos + 0x18, true)],
    indexHash: view.getUint32(pos + 0x1c, true),
    relatedHash: view.getUint32(pos + 0x20, true),
    typeHash: view.getUint32(pos + 0x24, true),
    checksum: view.getUint32(pos + 0x28, true),
    reserved: view.getUint32(pos + 0x2c, true),
  };
}

/** The descriptor's own field values: type bits, compression, name, block order. */
function checkFieldValues(
  d: RawDescriptor,
  type: ReturnType<typeof unpackTypeInfo>,
  at: number,
  label: IndexLabel,
  issues: ProblemList,
): void {
  const { typeInfo, compressInfo, reserved, keyHash, memStart, memEnd } = d;
  if (type.reservedBits !== 0) {
    issues.error(
      'ReservedNonZero',
      `${label}: type_info 0x${hex16(typeInfo)} sets reserved bits (6, 14, 15)`,
      { offset: at + 4, phase: Phase.header, scope: tableScope(label.index) },
    );
  }
  if (!type.prim) {
    issues.error(
      'InvalidValue',
      `${label}: type_info 0x${hex16(typeInfo)} has a reserved primitive (${type.extension ? 'X bit' : `code ${type.primCode}`})`,
      { offset: at + 4, phase: Phase.header, scope: tableScope(label.index) },
    );
  }
  const compressProblem = type.prim && compressInfoProblem(compressInfo, type.prim);
  if (compressProblem)
    issues.error(compressProblem.code, `${label}: ${compressProblem.message}`, {
      offset: at + 6,
      phase: Phase.header,
      scope: tableScope(label.index),
    });
  if (reserved !== 0)
    issues.warn('ReservedNonZero', `${label}: descriptor reserved is ${reserved}`, {
      offset: at + 0x2c,
      scope: tableScope(label.index),
    });
  if (keyHash === 0)
    issues.error('InvalidValue', `${label}: key_name is 0 (every table needs a name)`, {
      offset: at,
      phase: Phase.header,
      scope: tableScope(label.index),
    });
  if (memEnd < memStart)
    issues.error('InvalidValue', `${label}: mem_end ${memEnd} is below mem_start ${memStart}`, {
      offset: at + 0x0c,
      phase: Phase.header,
      scope: tableScope(label.index),
    });
}

/** index_name is required on INDEX and RANGE tables and allowed nowhere else (U13). */
function checkIndexName(
  hint: Hint,
  indexHash: number,
  at: number,
  label: IndexLabel,
  issues: ProblemList,
): void {
  const usesIndex = hint === 'index' || hint === 'range';
  if (usesIndex && indexHash === 0)
    issues.error('InvalidValue', `${label}: a ${hint} table needs index_name`, {
      offset: at + 0x1c,
      phase: Phase.header,
      scope: tableScope(label.index),
    });
  if (!usesIndex && indexHash !== 0) {
    issues.error('InvalidValue', `${label}: index_name is only allowed on INDEX and RANGE tables`, {
      offset: at + 0x1c,
      phase: Phase.header,
      scope: tableScope(label.index),
    });
  }
}

/** The data blocks lie inside the dataset's storage and hold data_size bytes. */
function checkBlockRange(
  d: RawDescriptor,
  storage: number,
  at: number,
  label: IndexLabel,
  issues: ProblemList,
): void {
  const { memStart, memEnd, dataSize } = d;
  if (memEnd >= memStart) {
    if (memEnd * 8 > storage) {
      issues.error(
        'OutOfBounds',
        `${label}: data blocks ${memStart}..${memEnd} run past the dataset's ${storage} storage bytes`,
        { offset: at + 0x0c, phase: Phase.bounds, scope: tableScope(label.index) },
      );
    } else if (dataSize > (memEnd - memStart) * 8) {
      issues.error(
        'OutOfBounds',
        `${label}: data_size ${dataSize} does not fit its ${(memEnd - memStart) * 8}-byte block range ${memStart}..${memEnd}`,
        { offset: at + 0x10, phase: Phase.bounds, scope: tableScope(label.index) },
      );
    }
  }
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
export function checkRelations(t: TableInfo, byName: Map<string, TableInfo>, issues: ProblemList): void {
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

function hex16(value: number): string {
  return value.toString(16).padStart(4, '0');
}
