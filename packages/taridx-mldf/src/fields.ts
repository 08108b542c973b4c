import { parseBoundedJson } from '@binscope/core';
import { type FieldSpec, MldfLazyText, type NdDtype } from '@binscope/mldf';
import { decodeImage } from './image.js';
import { badMember, kindOf, type MemberKind, type MemberPlace } from './member.js';
import type { NpyLayout } from './npy.js';

/** The MLDF field a member extension becomes (issue 25's table), and how its values are made. */
export interface FieldPlan {
  spec: FieldSpec;
  kind: MemberKind;
  /** NDARRAY fields: the layout every value has. */
  npy?: NpyLayout;
}

export function planField(ext: string, options: { keepEncoded?: boolean; npy?: NpyLayout }): FieldPlan {
  const kind = kindOf(ext);
  const name = ext;
  switch (kind) {
    case 'image':
      return { kind, spec: { name, type: options.keepEncoded ? 'BYTES' : 'IMAGE_RAW' } };
    case 'json':
      return { kind, spec: { name, type: 'JSON' } };
    case 'text':
      return { kind, spec: { name, type: 'TEXT_RAW' } };
    case 'class':
      return { kind, spec: { name, type: 'INT' } };
    case 'npy':
      return options.npy
        ? {
            kind,
            npy: options.npy,
            spec: { name, type: 'NDARRAY', dtype: options.npy.dtype, shape: options.npy.shape },
          }
        : { kind, spec: { name, type: 'BYTES' } };
    default:
      return { kind, spec: { name, type: 'BYTES' } };
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array, place: MemberPlace): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw badMember(place, 'is not valid UTF-8', error);
  }
}

function classValue(bytes: Uint8Array, place: MemberPlace): bigint {
  const trimmed = text(bytes, place).trim();
  if (!/^[-+]?\d+$/.test(trimmed))
    throw badMember(place, `${JSON.stringify(trimmed.slice(0, 40))} is not an integer class`);
  const value = BigInt(trimmed);
  if (value < -(2n ** 63n) || value >= 2n ** 63n)
    throw badMember(place, `${trimmed} does not fit in 64 bits`);
  return value;
}

const utf8KeepBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A .json member as its own bytes, once they are known to be UTF-8 JSON: never parsed and
 * re-serialized, which would round integers above 2^53, turn `-0.0` into `0` and drop
 * repeated keys. A leading UTF-8 BOM (which Python's json.loads accepts) is left out.
 */
function jsonValue(bytes: Uint8Array, place: MemberPlace): MldfLazyText {
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  let decoded: string;
  try {
    decoded = utf8KeepBom.decode(body);
  } catch (error) {
    throw badMember(place, 'is not valid UTF-8', error);
  }
  try {
    // Bounded: JSON nested past 1,000 levels could not be printed or compared.
    parseBoundedJson(decoded);
  } catch (error) {
    if (error instanceof SyntaxError) throw badMember(place, `is not JSON (${error.message})`, error);
    throw error;
  }
  // A tar member always has its offset; its data follows the 512-byte header.
  return new MldfLazyText(body, 0, body.byteLength, 'JSON', place.ext, (place.offset ?? 0) + 512, place.file);
}

/** One member's bytes as the value its field takes (a promise: images decode asynchronously). */
export async function memberValue(plan: FieldPlan, bytes: Uint8Array, place: MemberPlace): Promise<unknown> {
  switch (plan.spec.type) {
    case 'IMAGE_RAW':
      return decodeImage(bytes, place);
    case 'TEXT_RAW':
      return text(bytes, place);
    case 'INT':
      return classValue(bytes, place);
    case 'JSON':
      return jsonValue(bytes, place);
    case 'NDARRAY': {
      const layout = plan.npy!;
      // A copy: the typed view needs its element alignment, which the member's offset lacks.
      const data = bytes.slice(layout.dataOffset);
      return { dtype: layout.dtype, shape: layout.shape, data: typedView(layout.dtype, data) };
    }
    default:
      return bytes;
  }
}

function typedView(dtype: NdDtype, bytes: Uint8Array) {
  const { buffer, byteOffset, byteLength } = bytes;
  switch (dtype) {
    case '|u1':
      return bytes;
    case '|i1':
      return new Int8Array(buffer, byteOffset, byteLength);
    case '<u2':
      return new Uint16Array(buffer, byteOffset, byteLength / 2);
    case '<i2':
      return new Int16Array(buffer, byteOffset, byteLength / 2);
    case '<u4':
      return new Uint32Array(buffer, byteOffset, byteLength / 4);
    case '<i4':
      return new Int32Array(buffer, byteOffset, byteLength / 4);
    case '<u8':
      return new BigUint64Array(buffer, byteOffset, byteLength / 8);
    case '<i8':
      return new BigInt64Array(buffer, byteOffset, byteLength / 8);
    case '<f4':
      return new Float32Array(buffer, byteOffset, byteLength / 4);
    case '<f8':
      return new Float64Array(buffer, byteOffset, byteLength / 8);
  }
}
