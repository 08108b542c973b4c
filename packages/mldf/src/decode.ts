import { formatErrors, type JsonValue, withJsonSource } from '@binscope/core';
import { toTypedArray } from '@binscope/core/binary';
import { FORMAT_ID, type MldfField, ND_DTYPES } from './layout.js';
import type { ImageValue, MldfValue, NdArray } from './values.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Node's Buffer#latin1Slice, where present: the fastest way to turn ASCII bytes into a string. */
const latin1Slice = (
  globalThis as { Buffer?: { prototype?: { latin1Slice?: (start: number, end: number) => string } } }
).Buffer?.prototype?.latin1Slice;

const fail = formatErrors(FORMAT_ID);

/**
 * A JSON or TEXT_RAW value left undecoded (`decode: 'lazy'`): its raw bytes, decoded only
 * when asked. Decoding is checked exactly as an eager read checks it (strict UTF-8, valid
 * JSON) and throws the same FormatError. Not cached: each call decodes again. With `reuse`
 * the bytes are borrowed like any other value (see `SampleOptions.reuse`).
 */
export class MldfLazyText {
  private view: Uint8Array | undefined;

  constructor(
    private readonly buf: Uint8Array,
    private readonly start: number,
    private readonly end: number,
    /** The field's type: what `value()` decodes to. */
    readonly type: 'JSON' | 'TEXT_RAW',
    /** Field name, for error messages. */
    readonly field: string,
    /** Absolute file offset of the bytes, for error messages. */
    readonly offset: number,
    private readonly file: string | undefined,
  ) {}

  /** The value's bytes (UTF-8). */
  get bytes(): Uint8Array {
    this.view ??= this.buf.subarray(this.start, this.end);
    return this.view;
  }

  /** The bytes as a string (strict UTF-8). */
  text(): string {
    return decodeText(this.buf, this.offset, this.field, this.file, this.start, this.end);
  }

  /**
   * What an eager read returns: the string for TEXT_RAW, the parsed value for JSON. A parsed
   * object or array keeps the text it came from (core's `withJsonSource`), so `jsonLine` prints
   * it as stored: integers beyond 2^53, `-0.0` and repeated keys included.
   */
  value(): string | JsonValue {
    const text = this.text();
    return this.type === 'JSON'
      ? withJsonSource(parseJson(text, this.offset, this.field, this.file), text)
      : text;
  }
}

/** A value from its bytes (`bytes`, read from file offset `ptr`) and its metadata struct at `p`. */
export function decodeValue(
  f: MldfField,
  view: DataView,
  p: number,
  bytes: Uint8Array,
  ptr: number,
  lazy: boolean,
  file: string | undefined,
): MldfValue | undefined {
  switch (f.type) {
    case 'BYTES':
      return bytes;
    case 'TEXT_RAW':
      if (bytes.byteLength === 0) return '';
      if (lazy) return new MldfLazyText(bytes, 0, bytes.byteLength, 'TEXT_RAW', f.name, ptr, file);
      return decodeText(bytes, ptr, f.name, file);
    case 'JSON': {
      if (bytes.byteLength === 0) return undefined;
      if (lazy) return new MldfLazyText(bytes, 0, bytes.byteLength, 'JSON', f.name, ptr, file);
      return parseJson(decodeText(bytes, ptr, f.name, file), ptr, f.name, file);
    }
    case 'NDARRAY': {
      const nd = f.ndarray!;
      if (bytes.byteLength === 0 && nd.byteLength !== 0) return undefined;
      return {
        dtype: nd.dtype,
        shape: nd.shape,
        data: toTypedArray(bytes, ND_DTYPES[nd.dtype]),
      } satisfies NdArray;
    }
    case 'IMAGE_RAW': {
      const height = view.getUint16(p + 12, true);
      const width = view.getUint16(p + 14, true);
      const channels = view.getUint8(p + 16);
      if (bytes.byteLength === 0 && height === 0 && width === 0 && channels === 0) return undefined;
      return { height, width, channels, mode: view.getUint8(p + 17), pixels: bytes } satisfies ImageValue;
    }
    default:
      return undefined;
  }
}

/**
 * Strict UTF-8. Short ASCII (the common case: JSON records, labels) goes through Node's
 * latin1Slice where present, which is several times faster than TextDecoder for it.
 */
export function decodeText(
  bytes: Uint8Array,
  ptr: number,
  name: string,
  file: string | undefined,
  start = 0,
  end = bytes.byteLength,
): string {
  if (latin1Slice !== undefined && end - start <= 1024) {
    let acc = 0;
    for (let k = start; k < end; k++) acc |= bytes[k];
    if (acc < 0x80) return latin1Slice.call(bytes, start, end);
  }
  try {
    return utf8.decode(start === 0 && end === bytes.byteLength ? bytes : bytes.subarray(start, end));
  } catch {
    throw fail('InvalidValue', `field '${name}': value is not valid UTF-8`, ptr, file);
  }
}

export function parseJson(text: string, ptr: number, name: string, file: string | undefined): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw fail(
      'InvalidValue',
      `field '${name}': value is not valid JSON (${(cause as Error).message})`,
      ptr,
      file,
    );
  }
}

/** Node Buffers → plain Uint8Array views, so values compare and serialise as Uint8Array everywhere. */
export function plain(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
