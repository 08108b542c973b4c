import type { ImageValue, MldfReader, MldfValue, NdArray } from '@binscope/mldf';
import type { ViewProvider } from '../views';
import { readSamples } from './mldf-samples';
import { hexPreview, type Json, pageOf, previewJson, previewValues } from './common';

/** MLDF samples a page at a time through the reader's batched `samples` (nearby reads coalesced). */
export const mldfView: ViewProvider = async (session, query, signal) => {
  const reader = session.reader as MldfReader;
  if (query.op !== 'samples') throw new Error(`unknown MLDF view query ${query.op}`);
  const { start, end } = pageOf(query, reader.numSamples, 60);
  const indices = Array.from({ length: end - start }, (_, k) => start + k);
  const buffers: Record<string, Uint8Array> = {};
  const rows: Json[] = [];
  for (const read of await readSamples(reader, indices, signal)) {
    const values: Record<string, Json> = {};
    for (const field of reader.fields) {
      const key = `${read.index}:${field.name}`;
      const failed = read.fieldErrors[field.name];
      values[field.name] = failed
        ? { kind: 'error', error: failed }
        : describe(field.type, read.values[field.name], key, buffers);
    }
    rows.push({
      index: read.index,
      values,
      error: read.error ?? null,
      bytes: await valueBytes(reader, read.index, signal),
    });
  }
  const fields: Json[] = reader.fields.map((f) => ({
    name: f.name,
    type: f.type,
    ndarray: f.ndarray ? { dtype: f.ndarray.dtype, shape: [...f.ndarray.shape] } : null,
  }));
  return { json: { total: reader.numSamples, fields, samples: rows }, buffers };
};

function describe(
  type: string,
  value: MldfValue | undefined,
  key: string,
  buffers: Record<string, Uint8Array>,
): Json {
  if (value === undefined) return { kind: 'missing' };
  switch (type) {
    case 'INT':
    case 'FLOAT':
      return { kind: 'scalar', text: String(value) };
    case 'TEXT_RAW': {
      const text = value as string;
      return { kind: 'text', text: text.slice(0, 2000), length: text.length };
    }
    case 'BYTES': {
      const bytes = value as Uint8Array;
      return { kind: 'bytes', size: bytes.byteLength, hex: hexPreview(bytes) };
    }
    case 'NDARRAY': {
      const array = value as NdArray;
      return {
        kind: 'ndarray',
        dtype: array.dtype,
        shape: [...array.shape],
        ...previewValues(array.data as ArrayLike<number | bigint>, 24),
      };
    }
    case 'IMAGE_RAW': {
      const image = value as ImageValue;
      // A copy: the pixels may alias a larger read buffer, and this one is transferred.
      buffers[key] = image.pixels.slice();
      return {
        kind: 'image',
        height: image.height,
        width: image.width,
        channels: image.channels,
        mode: image.mode,
        buffer: key,
      };
    }
    default: {
      const { text, truncated } = previewJson(value, 2000);
      return { kind: 'json', text, truncated };
    }
  }
}

/**
 * Where each field's value is: the payload in the data region for fields that have one,
 * else the field's metadata struct in the sample's row. A value whose pointer is bad has no
 * payload to show; its metadata struct is shown instead, which is where the defect is.
 */
async function valueBytes(reader: MldfReader, index: number, signal: AbortSignal): Promise<Json> {
  const out: Record<string, Json> = {};
  for (const field of reader.fields) {
    const metadata = {
      offset: reader.header.metadataPtr + index * reader.layout.rowSize + field.metadataOffset,
      length: field.metadataSize,
    };
    try {
      const info = await reader.valueInfo(index, field.name, { signal });
      out[field.name] = info.size > 0 ? { offset: info.ptr, length: info.size } : metadata;
    } catch (error) {
      if (signal.aborted) throw error;
      out[field.name] = metadata;
    }
  }
  return out;
}
