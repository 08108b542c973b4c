import {
  type ByteLocation,
  type ContentField,
  type JsonValue,
  type ReadOptions,
  toJsonValue,
} from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import type { FeatureIndex } from './features.js';
import { HEADER_FILE } from './header.js';
import type { ScdlReader } from './read.js';

const encoder = new TextEncoder();

async function sha256(text: string): Promise<string> {
  const hash = await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(text));
  return toHex(new Uint8Array(hash));
}

async function fileLocation(reader: ScdlReader, file: string): Promise<ByteLocation | undefined> {
  if (!(await reader.directory.has(file))) return undefined;
  // Not closed: directory sources share one open source per file (the feature index reads it too).
  const source = await reader.directory.open(file);
  return { offset: 0, length: source.size, file };
}

/** A feature index's content: row blocks, labels, and each block's table (columns, rows, values digest). */
async function featureFields(reader: ScdlReader, key: string, index: FeatureIndex): Promise<ContentField[]> {
  const dir = index.name;
  const fields: ContentField[] = [
    {
      path: `${key}.cumulative_sum_index`,
      value: index.cumulativeSumIndex,
      location: await fileLocation(reader, `${dir}/cumulative_sum_index.npy`),
    },
    {
      path: `${key}.labels`,
      value: index.labels,
      location: await fileLocation(reader, `${dir}/labels.json`),
    },
  ];
  for (let b = 0; b < index.blockCount; b++) {
    const file = index.block(b).file;
    const location = file ? await fileLocation(reader, file) : undefined;
    const base = `${key}.blocks[${b}]`;
    if (!file) {
      fields.push({ path: `${base}.table`, value: null });
      continue;
    }
    // Parquet bytes differ between writers; the table's columns and values are the content.
    const table = await index.table(b);
    const values = JSON.stringify(toJsonValue(table.values as unknown as JsonValue));
    fields.push(
      { path: `${base}.columns`, value: table.columns, location },
      { path: `${base}.rows`, value: table.numRows, location },
      { path: `${base}.values_sha256`, value: await sha256(values), location },
    );
  }
  return fields;
}

/**
 * What `binscope diff` compares in an SCDL archive: header.sch's version, endianness and
 * backend, the counts (rows from row_ptr, C7; non-zeros; arrays; feature indices), the data
 * dtype, every other array's length, dtype and shape, and the feature indices' blocks,
 * labels and tables, each located in its file. The index arrays' dtypes (smallest unsigned,
 * C10) and the parquet encoding are left out: the same matrix and tables can be stored
 * either way.
 */
export async function scdlContentFields(
  reader: ScdlReader,
  options: ReadOptions = {},
): Promise<ContentField[]> {
  const h = reader.header;
  const at = (offset: number, length: number): ByteLocation => ({ offset, length, file: HEADER_FILE });
  const rowPtr = reader.rowPtr.descriptor;
  const data = reader.data.descriptor;
  // The matrix arrays: their lengths are counts.rows / counts.nnz, their index dtypes an encoding choice.
  const matrix = new Set([rowPtr, data, reader.colPtr.descriptor]);
  const fields: ContentField[] = [
    { path: 'header.version', value: reader.version, location: at(4, 3) },
    { path: 'header.endianness', value: h.endianness, location: at(7, 1) },
    { path: 'header.backend', value: h.backend, location: at(8, 4) },
    { path: 'counts.rows', value: reader.numRows, location: at(rowPtr.fields.length.offset, 8) },
    { path: 'counts.nnz', value: reader.nnz, location: at(data.fields.length.offset, 8) },
    { path: 'counts.arrays', value: h.arrays.length, location: at(12, 4) },
  ];
  if (h.hasFeatureIndexCount) {
    const last = h.arrays[h.arrays.length - 1];
    const countAt = last ? last.span.offset + last.span.length : 16;
    fields.push({ path: 'counts.featureIndices', value: h.featureIndices.length, location: at(countAt, 4) });
  }
  for (const a of h.arrays) {
    const base = `arrays.${a.name}`;
    if (!matrix.has(a)) {
      fields.push({ path: `${base}.length`, value: a.length, location: at(a.fields.length.offset, 8) });
    }
    if (!matrix.has(a) || a === data) {
      fields.push({ path: `${base}.dtype`, value: a.dtype, location: at(a.fields.dtype.offset, 4) });
    }
    fields.push({
      path: `${base}.shape`,
      value: a.shape,
      location: at(a.fields.shape.offset, a.fields.shape.length),
    });
  }
  for (const f of h.featureIndices) {
    const base = `feature_indices.${f.name}`;
    fields.push(
      { path: `${base}.length`, value: f.length, location: at(f.fields.length.offset, 8) },
      { path: `${base}.dtype`, value: f.dtype, location: at(f.fields.dtype.offset, 4) },
      { path: `${base}.files`, value: f.files, location: at(f.fields.files.offset, f.fields.files.length) },
    );
  }
  options.signal?.throwIfAborted();
  if (reader.varIndex) fields.push(...(await featureFields(reader, 'var', reader.varIndex)));
  if (reader.obsIndex) fields.push(...(await featureFields(reader, 'obs', reader.obsIndex)));
  return fields;
}
