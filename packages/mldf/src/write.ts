import { type ByteSink, crc32, MemorySink, type NumericArray } from '@binscope/core';
import { stampChecksums } from './checksum.js';
import {
  ALLOC_ENTRY_SIZE,
  alignTo,
  DESCRIPTOR_SIZE,
  encodeDescriptor,
  encodeHeader,
  FIELD_DESC_PTR,
  type FieldType,
  FLAG_LITTLE_ENDIAN,
  isNdDtype,
  MAX_NDIM,
  METADATA_ALIGN,
  METADATA_SIZES,
  NAME_SIZE,
  ND_DTYPES,
  type NdDtype,
  TYPE_IDS,
  VERSION_MAJOR,
  VERSION_MINOR,
} from './layout.js';
import { MldfLazyText } from './decode.js';
import type { ImageValue, NdArray } from './values.js';

export interface FieldSpec {
  /** At most 63 bytes of UTF-8, no NUL. */
  name: string;
  type: FieldType;
  /** NDARRAY only: element type of every value. */
  dtype?: NdDtype;
  /** NDARRAY only: shape of every value (at most 8 axes). */
  shape?: readonly number[];
}

/**
 * What `add` accepts per field: INT bigint | safe integer; FLOAT number; BYTES Uint8Array;
 * NDARRAY an NdArray or a typed array of the field's dtype with prod(shape) elements;
 * JSON any JSON-able value, or an MldfLazyText of type JSON whose bytes are stored as they are
 * (checked to be JSON: big integers, `-0.0` and repeated keys survive); IMAGE_RAW {height, width, channels, pixels}; TEXT_RAW string.
 * An absent (or `undefined`) value is missing: ptr 0, size 0 (INT/FLOAT store 0). `null`
 * is missing too, except for JSON, where it is the JSON text `null`.
 */
export type SampleInput = Readonly<Record<string, unknown>>;

export interface MldfWriterOptions {
  /** The data region starts at a multiple of this (M4). Default 4096. */
  pageSize?: number;
  /**
   * Set FLAG_CHECKSUMMED and store CRC-32s of the data and metadata regions in the header's
   * reserved bytes (layout in checksum.ts). Default false: the file is as without the option.
   */
  checksum?: boolean;
}

/** Where values go while samples arrive, so the data region never has to sit in memory. */
export interface DataSpill {
  append(bytes: Uint8Array): void;
  /** Copies everything appended, in order, into the sink. */
  copyTo(sink: ByteSink): Promise<void>;
  /** Frees what the spill holds. */
  dispose?(): void;
}

const BLOCK = 1 << 20;

/** Keeps the data region in 1 MiB blocks in memory (browsers, tests, small files). */
export class MemorySpill implements DataSpill {
  private blocks: Uint8Array[] = [];
  private current = new Uint8Array(BLOCK);
  private used = 0;
  append(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.byteLength) {
      if (this.used === this.current.byteLength) {
        this.blocks.push(this.current);
        this.current = new Uint8Array(BLOCK);
        this.used = 0;
      }
      const n = Math.min(bytes.byteLength - from, this.current.byteLength - this.used);
      this.current.set(bytes.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
  }
  async copyTo(sink: ByteSink): Promise<void> {
    for (const block of this.blocks) await sink.write(block);
    if (this.used > 0) await sink.write(this.current.subarray(0, this.used));
  }
  dispose(): void {
    this.blocks = [];
    this.current = new Uint8Array(0);
    this.used = 0;
  }
}

interface PreparedField {
  name: string;
  type: FieldType;
  nameBytes: Uint8Array;
  offset: number;
  nd?: { dtype: NdDtype; shape: readonly number[]; count: number; byteLength: number; ctor: TypedArrayCtor };
}

const encoder = new TextEncoder();
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const U32_MAX = 0xffffffff;

type TypedArrayCtor = abstract new (...args: never[]) => NumericArray;

const TYPED_ARRAYS: Readonly<Record<NdDtype, TypedArrayCtor>> = {
  '|u1': Uint8Array,
  '|i1': Int8Array,
  '<u2': Uint16Array,
  '<i2': Int16Array,
  '<u4': Uint32Array,
  '<i4': Int32Array,
  '<u8': BigUint64Array,
  '<i8': BigInt64Array,
  '<f4': Float32Array,
  '<f8': Float64Array,
};

/**
 * The streaming MLDF writer: fields up front, then samples one at a time; the sample count
 * is only known at `finish`. Values go to a `DataSpill` as they arrive; only the metadata
 * rows (Σ metadata_size bytes per sample) stay in memory. Layout per M1–M7, so a file
 * read and rewritten with the same fields and page size comes out byte for byte the same.
 */
export class MldfWriter {
  private readonly prepared: PreparedField[];
  private readonly names: Set<string>;
  private readonly rowSize: number;
  private readonly pageSize: number;
  private rows: Uint8Array;
  private rowsView: DataView;
  private count = 0;
  private dataSize = 0;
  private allocCount = 0;
  private finished = false;
  private readonly checksum: boolean;
  private dataCrc = 0;

  constructor(
    fields: readonly FieldSpec[],
    options: MldfWriterOptions = {},
    private readonly spill: DataSpill = new MemorySpill(),
  ) {
    this.prepared = prepareFields(fields);
    this.names = new Set(this.prepared.map((f) => f.name));
    this.rowSize = this.prepared.reduce((sum, f) => sum + METADATA_SIZES[f.type], 0);
    const pageSize = options.pageSize ?? 4096;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > U32_MAX) {
      throw new RangeError(`pageSize must be an integer in 1..${U32_MAX}, got ${pageSize}`);
    }
    this.pageSize = pageSize;
    this.checksum = options.checksum === true;
    this.rows = new Uint8Array(Math.max(64, this.rowSize * 1024));
    this.rowsView = new DataView(this.rows.buffer);
  }

  /** Samples added so far. */
  get samples(): number {
    return this.count;
  }

  /**
   * Appends one sample. Every value is checked before anything is written, so a rejected
   * sample leaves the writer as it was.
   */
  add(sample: SampleInput): void {
    if (this.finished) throw new Error('MLDF writer: add() after finish()');
    if (this.prepared.length === 0)
      throw new RangeError('MLDF writer: a file without fields cannot hold samples');
    for (const key of Object.keys(sample)) {
      if (!this.names.has(key)) {
        throw new TypeError(
          `sample ${this.count}: '${key}' is not a declared field (${this.prepared.map((f) => f.name).join(', ')})`,
        );
      }
    }
    const at = this.count * this.rowSize;
    if (at + this.rowSize > this.rows.byteLength) {
      const bigger = new Uint8Array(Math.max(this.rows.byteLength * 2, at + this.rowSize));
      bigger.set(this.rows.subarray(0, at));
      this.rows = bigger;
      this.rowsView = new DataView(bigger.buffer);
    }
    // The row is built in place; a rejected sample leaves it zeroed and `count` unchanged.
    this.rows.fill(0, at, at + this.rowSize);
    const view = this.rowsView;
    const payloads: Uint8Array[] = [];
    let rel = this.dataSize;
    try {
      for (const f of this.prepared) {
        const payload = encodeValue(f, sample[f.name], view, at, this.count);
        if (payload && payload.byteLength > 0) {
          if (payload.byteLength > U32_MAX) {
            throw new RangeError(
              `sample ${this.count} field '${f.name}': ${payload.byteLength} bytes exceed the 4 GiB value limit`,
            );
          }
          // Relative to the data region; made absolute at finish, once num_samples fixes data_ptr.
          view.setBigUint64(at + f.offset, BigInt(rel), true);
          view.setUint32(at + f.offset + 8, payload.byteLength, true);
          rel += payload.byteLength;
          payloads.push(payload);
        }
      }
    } catch (error) {
      this.rows.fill(0, at, at + this.rowSize);
      throw error;
    }
    for (const payload of payloads) {
      this.spill.append(payload);
      if (this.checksum) this.dataCrc = crc32(payload, this.dataCrc);
    }
    this.allocCount += payloads.length;
    this.dataSize = rel;
    this.count++;
  }

  /** Writes the whole file into `sink`: header, descriptors, metadata, data, allocation table. */
  async finish(sink: ByteSink): Promise<void> {
    if (this.finished) throw new Error('MLDF writer: finish() called twice');
    this.finished = true;
    const numFields = this.prepared.length;
    const descriptorsEnd = FIELD_DESC_PTR + DESCRIPTOR_SIZE * numFields;
    const metadataPtr = alignTo(descriptorsEnd, METADATA_ALIGN);
    const metadataBytes = this.count * this.rowSize;
    const metadataEnd = metadataPtr + metadataBytes;
    const dataPtr = alignTo(metadataEnd, this.pageSize);
    const allocTablePtr = dataPtr + this.dataSize;
    const head = new Uint8Array(descriptorsEnd);
    head.set(
      encodeHeader({
        versionMajor: VERSION_MAJOR,
        versionMinor: VERSION_MINOR,
        flags: FLAG_LITTLE_ENDIAN,
        numSamples: this.count,
        numFields,
        pageSize: this.pageSize,
        metadataPtr,
        dataPtr,
        allocTablePtr,
      }),
    );
    this.prepared.forEach((f, i) => {
      head.set(encodeDescriptor(f.nameBytes, f.type, f.nd), FIELD_DESC_PTR + i * DESCRIPTOR_SIZE);
    });
    if (this.checksum) {
      // The header comes first, so the metadata rows are fixed up once more just to hash them.
      let metadata = 0;
      for (const chunk of this.metadataChunks(dataPtr)) metadata = crc32(chunk, metadata);
      stampChecksums(head, { data: this.dataCrc, metadata });
    }
    await sink.write(head);
    // Like the design text's writer, nothing is written for an empty section: the file may end early (M4).
    if (metadataBytes > 0) {
      await sink.write(new Uint8Array(metadataPtr - descriptorsEnd));
      for (const chunk of this.metadataChunks(dataPtr)) await sink.write(chunk);
    }
    if (this.dataSize > 0) {
      await sink.write(new Uint8Array(dataPtr - metadataEnd));
      await this.spill.copyTo(sink);
      await this.writeAllocationTable(sink, dataPtr);
    }
    this.spill.dispose?.();
  }

  /** Discards everything (the spill's scratch space included). */
  dispose(): void {
    this.finished = true;
    this.spill.dispose?.();
  }

  /** The metadata rows in ≤ 1 MiB copies, data pointers made absolute. */
  private *metadataChunks(dataPtr: number): Generator<Uint8Array> {
    const dataFields = this.prepared.filter((f) => f.type !== 'INT' && f.type !== 'FLOAT');
    const chunkRows = Math.max(1, Math.floor(BLOCK / this.rowSize));
    for (let first = 0; first < this.count; first += chunkRows) {
      const n = Math.min(chunkRows, this.count - first);
      const chunk = this.rows.slice(first * this.rowSize, (first + n) * this.rowSize);
      const view = new DataView(chunk.buffer);
      for (let r = 0; r < n; r++) {
        for (const f of dataFields) {
          const p = r * this.rowSize + f.offset;
          if (view.getUint32(p + 8, true) === 0) continue;
          view.setBigUint64(p, view.getBigUint64(p, true) + BigInt(dataPtr), true);
        }
      }
      yield chunk;
    }
  }

  private async writeAllocationTable(sink: ByteSink, dataPtr: number): Promise<void> {
    const perChunk = BLOCK / ALLOC_ENTRY_SIZE;
    let chunk = new Uint8Array(Math.min(perChunk, this.allocCount) * ALLOC_ENTRY_SIZE);
    let view = new DataView(chunk.buffer);
    let k = 0;
    const dataFields = this.prepared.filter((f) => f.type !== 'INT' && f.type !== 'FLOAT');
    // Values were appended in sample then field order, so their pointers are already sorted (M7).
    for (let r = 0; r < this.count; r++) {
      for (const f of dataFields) {
        const p = r * this.rowSize + f.offset;
        const size = this.rowsView.getUint32(p + 8, true);
        if (size === 0) continue;
        view.setBigUint64(k * ALLOC_ENTRY_SIZE, this.rowsView.getBigUint64(p, true) + BigInt(dataPtr), true);
        view.setUint32(k * ALLOC_ENTRY_SIZE + 8, size, true);
        if (++k === perChunk) {
          await sink.write(chunk);
          chunk = new Uint8Array(chunk.byteLength);
          view = new DataView(chunk.buffer);
          k = 0;
        }
      }
    }
    if (k > 0) await sink.write(chunk.subarray(0, k * ALLOC_ENTRY_SIZE));
  }
}

function prepareFields(fields: readonly FieldSpec[]): PreparedField[] {
  if (fields.length > 0xffff) throw new RangeError(`${fields.length} fields: MLDF allows at most 65535`);
  const seen = new Set<string>();
  let offset = 0;
  return fields.map((spec) => {
    const { name, type } = spec;
    if (typeof name !== 'string') throw new TypeError('field name must be a string');
    const nameBytes = encoder.encode(name);
    if (nameBytes.byteLength > NAME_SIZE - 1) {
      throw new RangeError(
        `field name '${name}' is ${nameBytes.byteLength} bytes in UTF-8; MLDF names are at most ${NAME_SIZE - 1}`,
      );
    }
    if (nameBytes.includes(0)) throw new RangeError(`field name '${name}' contains a NUL character`);
    if (seen.has(name)) throw new RangeError(`duplicate field name '${name}'`);
    seen.add(name);
    if (!Object.hasOwn(TYPE_IDS, type))
      throw new TypeError(
        `field '${name}': unknown type '${type}' (one of ${Object.keys(TYPE_IDS).join(', ')})`,
      );
    let nd: PreparedField['nd'];
    if (type === 'NDARRAY') {
      const { dtype, shape } = spec;
      if (!dtype || !isNdDtype(dtype)) {
        throw new TypeError(
          `field '${name}': NDARRAY needs dtype, one of ${Object.keys(ND_DTYPES).join(' ')} (got ${dtype})`,
        );
      }
      if (!Array.isArray(shape) || shape.length > MAX_NDIM)
        throw new TypeError(`field '${name}': NDARRAY needs a shape of at most ${MAX_NDIM} axes`);
      let count = 1;
      for (const dim of shape) {
        if (!Number.isSafeInteger(dim) || dim < 0)
          throw new RangeError(`field '${name}': shape axis ${dim} is not a non-negative integer`);
        count *= dim;
      }
      const byteLength = count * Number(dtype.slice(2));
      if (!Number.isSafeInteger(byteLength) || byteLength > U32_MAX) {
        throw new RangeError(
          `field '${name}': ${dtype} [${shape.join(', ')}] is larger than a value can be (4 GiB)`,
        );
      }
      nd = { dtype, shape: [...shape], count, byteLength, ctor: TYPED_ARRAYS[dtype] };
    } else if (spec.dtype !== undefined || spec.shape !== undefined) {
      throw new TypeError(`field '${name}': dtype/shape apply to NDARRAY fields only`);
    }
    const prepared: PreparedField = { name, type, nameBytes, offset, nd };
    offset += METADATA_SIZES[type];
    return prepared;
  });
}

/** Writes the field's metadata struct into `view` and returns its data bytes (if any). */
function encodeValue(
  f: PreparedField,
  value: unknown,
  view: DataView,
  row: number,
  sample: number,
): Uint8Array | undefined {
  const at = row + f.offset;
  const where = () => `sample ${sample} field '${f.name}' (${f.type})`;
  const missing = value === undefined || value === null;
  switch (f.type) {
    case 'INT': {
      if (missing) return undefined;
      let v: bigint;
      if (typeof value === 'bigint') v = value;
      else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
      else throw new TypeError(`${where()}: expected a bigint or a safe integer, got ${describe(value)}`);
      if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`${where()}: ${v} does not fit in 64 bits`);
      view.setBigInt64(at, v, true);
      return undefined;
    }
    case 'FLOAT':
      if (missing) return undefined;
      if (typeof value !== 'number')
        throw new TypeError(`${where()}: expected a number, got ${describe(value)}`);
      view.setFloat64(at, value, true);
      return undefined;
    case 'BYTES':
      if (missing) return undefined;
      if (!(value instanceof Uint8Array))
        throw new TypeError(`${where()}: expected a Uint8Array, got ${describe(value)}`);
      return value;
    case 'TEXT_RAW':
      if (missing) return undefined;
      if (typeof value !== 'string')
        throw new TypeError(`${where()}: expected a string, got ${describe(value)}`);
      return encoder.encode(value);
    case 'JSON': {
      if (value === undefined) return undefined;
      if (value instanceof MldfLazyText) return jsonBytes(value, where);
      let text: string | undefined;
      try {
        text = JSON.stringify(value);
      } catch (cause) {
        throw new TypeError(`${where()}: value cannot be written as JSON (${(cause as Error).message})`);
      }
      if (text === undefined) throw new TypeError(`${where()}: ${describe(value)} has no JSON form`);
      return encoder.encode(text);
    }
    case 'NDARRAY':
      if (missing) return undefined;
      return ndarrayBytes(f, value, where);
    case 'IMAGE_RAW': {
      if (missing) return undefined;
      const image = value as Partial<ImageValue>;
      const { height, width, channels, pixels } = image;
      const mode = image.mode ?? 0;
      if (!(pixels instanceof Uint8Array))
        throw new TypeError(`${where()}: expected {height, width, channels, pixels: Uint8Array}`);
      if (!isInt(height, 0xffff) || !isInt(width, 0xffff) || !isInt(channels, 0xff)) {
        throw new RangeError(
          `${where()}: height and width must be integers in 0..65535 and channels in 0..255`,
        );
      }
      if (mode !== 0) throw new RangeError(`${where()}: only mode 0 (RAW) is defined, got ${mode}`);
      if (pixels.byteLength !== height * width * channels) {
        throw new RangeError(
          `${where()}: ${pixels.byteLength} pixel bytes, but ${height}×${width}×${channels} needs ${height * width * channels}`,
        );
      }
      view.setUint16(at + 12, height, true);
      view.setUint16(at + 14, width, true);
      view.setUint8(at + 16, channels);
      return pixels;
    }
  }
}

function ndarrayBytes(f: PreparedField, value: unknown, where: () => string): Uint8Array {
  const nd = f.nd!;
  let data: unknown = value;
  if (!ArrayBuffer.isView(value)) {
    const given = value as Partial<NdArray>;
    if (given.dtype !== undefined && given.dtype !== nd.dtype) {
      throw new TypeError(`${where()}: dtype ${given.dtype} does not match the field's ${nd.dtype}`);
    }
    if (given.shape !== undefined && !sameShape(given.shape, nd.shape)) {
      throw new RangeError(
        `${where()}: shape [${given.shape.join(', ')}] does not match the field's [${nd.shape.join(', ')}]`,
      );
    }
    data = given.data;
  }
  if (!(data instanceof nd.ctor)) {
    throw new TypeError(`${where()}: expected a ${nd.ctor.name} (dtype ${nd.dtype}), got ${describe(data)}`);
  }
  const array = data as NumericArray;
  if (array.length !== nd.count) {
    throw new RangeError(
      `${where()}: ${array.length} elements, but shape [${nd.shape.join(', ')}] has ${nd.count}`,
    );
  }
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function isInt(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
}

/** Raw JSON bytes as they are, once they are known to be strict UTF-8 JSON. */
function jsonBytes(value: MldfLazyText, where: () => string): Uint8Array {
  if (value.type !== 'JSON') throw new TypeError(`${where()}: expected JSON text, got ${value.type} text`);
  try {
    value.value();
  } catch (cause) {
    throw new TypeError(`${where()}: value is not JSON (${(cause as Error).message})`, { cause });
  }
  return value.bytes;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

/** Writes samples into memory and returns the file's bytes (browsers, tests, small files). */
export async function writeMldf(
  fields: readonly FieldSpec[],
  samples: Iterable<SampleInput> | AsyncIterable<SampleInput>,
  options: MldfWriterOptions = {},
): Promise<Uint8Array> {
  const writer = new MldfWriter(fields, options);
  for await (const sample of samples) writer.add(sample);
  const sink = new MemorySink();
  await writer.finish(sink);
  return sink.bytes();
}
