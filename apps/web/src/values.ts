/** Numbers, text and times read from raw bytes (the data inspector and number search). */

export const NUMBER_TYPES = [
  'u8',
  'i8',
  'u16',
  'i16',
  'u32',
  'i32',
  'u64',
  'i64',
  'f16',
  'f32',
  'f64',
] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

export const sizeOf = (type: NumberType): number => Number(type.slice(1)) / 8;

/** A float as text, keeping the sign of zero (−0 is a distinct value in IEEE 754). */
export function formatFloat(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

/** IEEE 754 half precision. */
function f16(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** The value of `type` at the start of `bytes`, as text; undefined when there are too few bytes. */
export function readNumber(bytes: Uint8Array, type: NumberType, littleEndian: boolean): string | undefined {
  if (bytes.byteLength < sizeOf(type)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type) {
    case 'u8':
      return String(view.getUint8(0));
    case 'i8':
      return String(view.getInt8(0));
    case 'u16':
      return String(view.getUint16(0, littleEndian));
    case 'i16':
      return String(view.getInt16(0, littleEndian));
    case 'u32':
      return String(view.getUint32(0, littleEndian));
    case 'i32':
      return String(view.getInt32(0, littleEndian));
    case 'u64':
      return String(view.getBigUint64(0, littleEndian));
    case 'i64':
      return String(view.getBigInt64(0, littleEndian));
    case 'f16':
      return formatFloat(f16(view.getUint16(0, littleEndian)));
    case 'f32':
      return formatFloat(view.getFloat32(0, littleEndian));
    case 'f64':
      return formatFloat(view.getFloat64(0, littleEndian));
  }
}

/** Up to `max` bytes as UTF-8 text, stopping at the first NUL; undefined when not valid UTF-8. */
export function readText(bytes: Uint8Array, max = 32): string | undefined {
  let end = Math.min(bytes.byteLength, max);
  const nul = bytes.subarray(0, end).indexOf(0);
  if (nul >= 0) end = nul;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    // A multi-byte character cut at the end is still text: try one to three bytes shorter.
    for (let cut = 1; cut <= 3 && end - cut > 0; cut++) {
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end - cut));
      } catch {}
    }
    return undefined;
  }
}

/** Seconds (u32) or milliseconds (u64) since 1970 as an ISO time, when in a plausible range. */
export function readTimestamp(
  bytes: Uint8Array,
  unit: 's' | 'ms',
  littleEndian: boolean,
): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let ms: number;
  if (unit === 's') {
    if (bytes.byteLength < 4) return undefined;
    ms = view.getUint32(0, littleEndian) * 1000;
  } else {
    if (bytes.byteLength < 8) return undefined;
    const value = view.getBigUint64(0, littleEndian);
    if (value > 8_640_000_000_000_000n) return undefined;
    ms = Number(value);
  }
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The bytes of `text` as a number of `type`, or an explanation of why it is not one. */
export function encodeNumber(text: string, type: NumberType, littleEndian: boolean): Uint8Array | string {
  const t = text.trim();
  if (!t) return 'type a number';
  const bytes = new Uint8Array(sizeOf(type));
  const view = new DataView(bytes.buffer);
  if (type.startsWith('f')) {
    const value = Number(t);
    if (Number.isNaN(value) && t.toLowerCase() !== 'nan') return `${t} is not a number`;
    if (type === 'f64') view.setFloat64(0, value, littleEndian);
    else if (type === 'f32') view.setFloat32(0, value, littleEndian);
    else return 'search for f16 values is not supported; use f32 or the hex bytes';
    return bytes;
  }
  let value: bigint;
  try {
    value = BigInt(t);
  } catch {
    return `${t} is not an integer`;
  }
  const bits = BigInt(sizeOf(type) * 8);
  const signed = type.startsWith('i');
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (value < min || value > max) return `${t} does not fit ${type}`;
  let unsigned = BigInt.asUintN(Number(bits), value);
  for (let i = 0; i < bytes.length; i++) {
    bytes[littleEndian ? i : bytes.length - 1 - i] = Number(unsigned & 0xffn);
    unsigned >>= 8n;
  }
  return bytes;
}

/** "4d 5a", "4d5a" or "0x4d 0x5a" as bytes, or an explanation. */
export function parseHexBytes(text: string): Uint8Array | string {
  const digits = text.replace(/0x/gi, '').replace(/[\s,]/g, '');
  if (!digits) return 'type hex bytes, e.g. 53 43 42 46';
  if (!/^[0-9a-f]*$/i.test(digits)) return 'hex digits only (0-9, a-f)';
  if (digits.length % 2) return 'an odd number of hex digits';
  return Uint8Array.from({ length: digits.length / 2 }, (_, i) =>
    Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16),
  );
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
