import { formatErrors, Phase, type ProblemList } from '@binscope/core';
import { DTYPE_SIZE, decodeUtf8, readU64, readU64Exact } from '@binscope/core/binary';
import {
  ARGUMENTS_SIZE,
  DESCRIPTOR_SIZE,
  FORMAT_ID,
  isNdDtype,
  LISTED_UNIMPLEMENTED,
  MAX_NDIM,
  METADATA_SIZES,
  type MldfField,
  type MldfHeader,
  NAME_SIZE,
  ND_DTYPES,
  type NdArrayLayout,
  TYPE_BY_ID,
} from './layout.js';

const fail = formatErrors(FORMAT_ID);
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/**
 * Parses the descriptor table (`bytes` from field_desc_ptr, whole descriptors only: fewer than
 * num_fields when the file is cut short). Each descriptor's first defect is recorded and the
 * next descriptor is still parsed; the fields returned are the ones without a defect.
 */
export function parseDescriptors(bytes: Uint8Array, header: MldfHeader, problems: ProblemList): MldfField[] {
  const fields: MldfField[] = [];
  const names = new Set<string>();
  const count = Math.min(header.numFields, Math.floor(bytes.byteLength / DESCRIPTOR_SIZE));
  let rowOffset = 0;
  for (let index = 0; index < count; index++) {
    try {
      const field = parseDescriptor(bytes, index, header.fieldDescPtr, rowOffset, names, problems);
      fields.push(field);
      rowOffset += field.metadataSize;
    } catch (error) {
      problems.capture(error, { phase: Phase.header });
    }
  }
  return fields;
}

function parseDescriptor(
  bytes: Uint8Array,
  index: number,
  tablePtr: number,
  rowOffset: number,
  names: Set<string>,
  problems: ProblemList,
): MldfField {
  const file = problems.file;
  const base = index * DESCRIPTOR_SIZE;
  const abs = tablePtr + base;
  const d = bytes.subarray(base, base + DESCRIPTOR_SIZE);
  const view = new DataView(d.buffer, d.byteOffset, DESCRIPTOR_SIZE);
  const rawName = d.subarray(0, NAME_SIZE);
  const nameEnd = rawName.indexOf(0);
  if (nameEnd < 0)
    throw fail(
      'InvalidValue',
      `field ${index}: name has no NUL terminator (names are at most 63 bytes)`,
      abs,
      file,
    );
  const afterName = rawName.subarray(nameEnd).findIndex((b) => b !== 0);
  if (afterName >= 0)
    throw fail(
      'InvalidValue',
      `field ${index}: bytes after the name's NUL are not zero`,
      abs + nameEnd + afterName,
      file,
    );
  const name = decodeUtf8(rawName.subarray(0, nameEnd), {
    offset: abs,
    file,
    format: FORMAT_ID,
    what: `field ${index} name`,
  });
  const typeId = view.getUint16(64, true);
  const flags = view.getUint16(66, true);
  const metadataSize = view.getUint32(68, true);
  const pad = view.getUint32(72, true);
  const args = d.slice(76, 76 + ARGUMENTS_SIZE);
  const tail = view.getUint32(204, true);
  if (pad !== 0)
    throw fail('ReservedNonZero', `field '${name}': descriptor padding at 72 must be 0`, abs + 72, file);
  if (tail !== 0)
    throw fail('ReservedNonZero', `field '${name}': descriptor bytes 204..207 must be 0`, abs + 204, file);
  const type = TYPE_BY_ID.get(typeId);
  if (!type) {
    const listed = LISTED_UNIMPLEMENTED[typeId];
    if (listed) {
      throw fail(
        'UnsupportedFeature',
        `field '${name}': type id ${typeId} (${listed}) is not supported`,
        abs + 64,
        file,
      );
    }
    throw fail('InvalidValue', `field '${name}': unknown type id ${typeId}`, abs + 64, file);
  }
  if (flags !== 0) {
    problems.warn('FieldFlags', `field '${name}': flags 0x${flags.toString(16)} have no defined meaning`, {
      offset: abs + 66,
    });
  }
  let ndarray: NdArrayLayout | undefined;
  if (type === 'NDARRAY') {
    ndarray = parseNdArguments(args, abs + 76, name, file);
  } else {
    const nonZero = args.findIndex((b) => b !== 0);
    if (nonZero >= 0)
      throw fail(
        'ReservedNonZero',
        `field '${name}': ${type} takes no arguments, argument bytes must be 0`,
        abs + 76 + nonZero,
        file,
      );
  }
  if (metadataSize !== METADATA_SIZES[type]) {
    throw fail(
      'CountMismatch',
      `field '${name}': metadata_size is ${metadataSize}, a ${type} metadata struct is ${METADATA_SIZES[type]} bytes`,
      abs + 68,
      file,
    );
  }
  if (names.has(name)) throw fail('InvalidValue', `duplicate field name '${name}'`, abs, file);
  names.add(name);
  return {
    index,
    name,
    type,
    typeId,
    flags,
    metadataSize,
    metadataOffset: rowOffset,
    descriptorOffset: abs,
    arguments: args,
    ndarray,
  };
}

function parseNdArguments(
  args: Uint8Array,
  abs: number,
  name: string,
  file: string | undefined,
): NdArrayLayout {
  const view = new DataView(args.buffer, args.byteOffset, args.byteLength);
  const rawDtype = args.subarray(0, 8);
  const end = rawDtype.indexOf(0) < 0 ? 8 : rawDtype.indexOf(0);
  const dtype = latin1(rawDtype.subarray(0, end));
  if (!isNdDtype(dtype) || rawDtype.subarray(end).some((b) => b !== 0)) {
    throw fail(
      'InvalidValue',
      `field '${name}': NDARRAY dtype '${dtype}' is not one of ${Object.keys(ND_DTYPES).join(' ')}`,
      abs,
      file,
    );
  }
  const ndim = view.getUint32(8, true);
  if (ndim > MAX_NDIM)
    throw fail('InvalidValue', `field '${name}': NDARRAY ndim ${ndim} exceeds ${MAX_NDIM}`, abs + 8, file);
  if (view.getUint32(12, true) !== 0)
    throw fail('ReservedNonZero', `field '${name}': NDARRAY reserved argument must be 0`, abs + 12, file);
  const shape: number[] = [];
  const exactShape: (number | bigint)[] = [];
  let count = 1;
  for (let i = 0; i < MAX_NDIM; i++) {
    const dim = readU64(view, 16 + i * 8);
    if (i < ndim) exactShape.push(readU64Exact(view, 16 + i * 8));
    if (i >= ndim) {
      if (dim !== 0)
        throw fail(
          'ReservedNonZero',
          `field '${name}': NDARRAY shape entry ${i} is beyond ndim ${ndim} and must be 0`,
          abs + 16 + i * 8,
          file,
        );
      continue;
    }
    shape.push(dim);
    count *= dim;
  }
  const itemSize = DTYPE_SIZE[ND_DTYPES[dtype]];
  const byteLength = count * itemSize;
  // data_size is a u32, so a larger declared array can never hold a value.
  if (!Number.isSafeInteger(byteLength) || byteLength > 0xffffffff) {
    throw fail(
      'InvalidValue',
      `field '${name}': NDARRAY shape [${exactShape.join(', ')}] is larger than a value can be (4 GiB)`,
      abs + 16,
      file,
    );
  }
  return { dtype, shape, itemSize, count, byteLength };
}
