import {
  definePlugin,
  formatErrors,
  type JsonRecord,
  type JsonValue,
  type RecordOptions,
  type Summary,
  type Target,
  toJsonValue,
  unparsedResult,
} from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { mldfContentFields, mldfLocateSample } from './content.js';
import { inspectMldf, inspectMldfTarget } from './inspect.js';
import { FORMAT_ID } from './layout.js';
import { mldfFormat } from './magic.js';
import { type MldfReader, openMldf } from './read.js';
import type { ImageValue, MldfValue, NdArray } from './values.js';
import { validateMldf } from './validate.js';
import { storedChecksums } from './checksum.js';

/** NDARRAY values up to this many elements are printed in full; larger ones as size + sha256. */
const INLINE_ELEMENTS = 1024;

const fail = formatErrors(FORMAT_ID);
const notAFile = (name: string) =>
  fail('BadMagic', 'an MLDF file is a single file, not a directory', undefined, name).toProblem();

function sourceOf(target: Target) {
  if (target.kind !== 'file')
    throw fail(
      'BadMagic',
      'an MLDF file is a single file, not a directory',
      undefined,
      target.directory.name,
    );
  return target.source;
}

export const mldfPlugin = definePlugin<MldfReader>({
  ...mldfFormat,
  open: (target, options) => openMldf(sourceOf(target), options),
  info: async (reader) => summary(reader),
  inspect: async (reader) => inspectMldf(reader),
  inspectTarget: async (target, options) => {
    if (target.kind === 'file') return inspectMldfTarget(target.source, options);
    return unparsedResult(target.directory.name, 0, {
      valid: false,
      errors: [notAFile(target.directory.name)],
      warnings: [],
    });
  },
  validate: async (target, options) => {
    if (target.kind !== 'file')
      return { valid: false, errors: [notAFile(target.directory.name)], warnings: [] };
    return validateMldf(target.source, options);
  },
  records: (reader, options) => mldfRecords(reader, options),
  contentFields: async (reader) => mldfContentFields(reader),
  locateRecord: (reader, index, options) => mldfLocateSample(reader, index, options),
});

function summary(reader: MldfReader): Summary {
  const h = reader.header;
  const fields = reader.fields.map((f) => {
    const out: { [key: string]: JsonValue } = {
      name: f.name,
      type: f.type,
      type_id: f.typeId,
      metadata_size: f.metadataSize,
    };
    if (f.ndarray) out.ndarray = { dtype: f.ndarray.dtype, shape: [...f.ndarray.shape] };
    return out;
  });
  return {
    format: FORMAT_ID,
    title: mldfFormat.title,
    version: `${h.versionMajor}.${h.versionMinor}`,
    counts: { samples: reader.numSamples, fields: reader.fields.length },
    properties: [
      ['version', `${h.versionMajor}.${h.versionMinor}`],
      ['samples', reader.numSamples],
      [
        'fields',
        reader.fields
          .map((f) =>
            f.ndarray
              ? `${f.name}: NDARRAY ${f.ndarray.dtype} [${f.ndarray.shape.join(', ')}]`
              : `${f.name}: ${f.type}`,
          )
          .join(', '),
      ],
      ['page size', h.pageSize],
      ['metadata row', `${reader.rowSize} bytes`],
      ['data region', `${reader.layout.dataEnd - h.dataPtr} bytes at ${h.dataPtr}`],
      ['allocation entries', reader.layout.allocCount],
      ['file size', reader.source.size],
      ['checksums', checksumStatus(reader)],
    ],
    details: {
      header: {
        version_major: h.versionMajor,
        version_minor: h.versionMinor,
        flags: h.flags,
        num_samples: h.numSamples,
        num_fields: h.numFields,
        page_size: h.pageSize,
        field_desc_ptr: h.fieldDescPtr,
        metadata_ptr: h.metadataPtr,
        data_ptr: h.dataPtr,
        alloc_table_ptr: h.allocTablePtr,
      },
      fields,
    },
  };
}

/**
 * `{"sample": i, field: value}` per sample (the CLI's JSON Lines shape). Bytes-like values
 * (BYTES, image pixels, large arrays) become {size, sha256}; 64-bit integers above 2^53
 * become decimal strings (A5).
 */
export async function* mldfRecords(
  reader: MldfReader,
  options: RecordOptions = {},
): AsyncGenerator<JsonRecord> {
  const start = Math.min(reader.numSamples, Math.max(0, options.offset ?? 0));
  const end =
    options.limit === undefined
      ? reader.numSamples
      : Math.min(reader.numSamples, start + Math.max(0, options.limit));
  const fields = options.columns
    ? reader.fields.filter((f) => options.columns!.includes(f.name)).map((f) => f.name)
    : undefined;
  let index = start;
  for await (const batch of reader.batches({ start, end, fields, signal: options.signal })) {
    for (const sample of batch) {
      const record: JsonRecord = { sample: index++ };
      for (const [name, value] of Object.entries(sample))
        record[name] = await recordValue(reader, name, value);
      yield record;
    }
  }
}

async function recordValue(
  reader: MldfReader,
  name: string,
  value: MldfValue | undefined,
): Promise<JsonValue> {
  if (value === undefined) return null;
  const type = reader.getField(name).type;
  switch (type) {
    case 'BYTES':
      return digest(value as Uint8Array);
    case 'IMAGE_RAW': {
      const image = value as ImageValue;
      return {
        height: image.height,
        width: image.width,
        channels: image.channels,
        mode: image.mode,
        ...(await digest(image.pixels)),
      };
    }
    case 'NDARRAY': {
      const nd = value as NdArray;
      const head = { dtype: nd.dtype, shape: [...nd.shape] };
      if (nd.data.length <= INLINE_ELEMENTS) return { ...head, values: toJsonValue(nd.data) };
      return {
        ...head,
        ...(await digest(new Uint8Array(nd.data.buffer, nd.data.byteOffset, nd.data.byteLength))),
      };
    }
    default:
      return toJsonValue(value);
  }
}

async function digest(bytes: Uint8Array): Promise<{ size: number; sha256: string }> {
  const hash = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return { size: bytes.byteLength, sha256: toHex(new Uint8Array(hash)) };
}

/** What `info` says about FLAG_CHECKSUMMED (validate, or open with verify, checks the values). */
function checksumStatus(reader: MldfReader): string {
  const sums = storedChecksums(reader.header);
  if (!sums) return 'none';
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  return `CRC32 data ${hex(sums.data)}, metadata ${hex(sums.metadata)} (validate verifies)`;
}
