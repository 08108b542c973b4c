import type { ByteLocation, ContentField, JsonValue } from '@binscope/core';
import type { UdfReader } from './read.js';
import {
  COMPRESS_INFO,
  DATA_SHAPE,
  type FileOffset,
  fileOffsetKey,
  INDEX_NAME,
  KEY_NAME,
  RELATED_NAME,
  STATIC_HEADER_SIZE,
  TYPE_INFO,
  TYPE_NAME,
} from './types.js';

const place = (at: FileOffset | null): JsonValue => (at ? { offset: at.offset, size: at.size } : null);

/**
 * What `binscope diff` compares in a UDF file: magic and id, the counts, and per dataset (in
 * walk order, U7) its id, table count and each table's name, type, shape and the names it
 * refers to, located at their bytes. Where datasets sit, their sizes, name hashes,
 * checksums (opaque, U4) and mem_start/mem_end are not content: they follow from the layout
 * a writer chose. Table data is compared as records.
 *
 * A DATASET table's data is file offsets, which are layout; what it says is which datasets
 * it points at, so its `refs` are those datasets' positions in the walk (null for a null
 * reference): two files whose graphs have the same shape compare equal wherever their
 * writers put the datasets.
 *
 * The layout is listed too, marked as such for `diff --layout`: the root and each dataset's
 * FileOffset, the file size, and each table's mem_start/mem_end, data_size and compress_info.
 *
 * counts.datasets and counts.tables are not stored anywhere (the walk finds them), so they
 * have no location; the dataset or table that is only in one file has.
 */
export async function udfContentFields(reader: UdfReader): Promise<ContentField[]> {
  const file = reader.source.name;
  const at = (offset: number, length: number): ByteLocation => ({ offset, length, file });
  const h = reader.header;
  const fields: ContentField[] = [
    { path: 'header.magic', value: h.magic, location: at(0, 4) },
    { path: 'header.id', value: h.id, location: at(4, 4) },
    { path: 'header.root', value: place(h.root), location: at(0x10, 16), layout: true },
    { path: 'file_size', value: reader.source.size, layout: true },
  ];
  let datasets = 0;
  let tables = 0;
  /** Walk position of each dataset, and the DATASET tables whose refs resolve to them. */
  const position = new Map<string, number>();
  const pending: { field: ContentField; refs: readonly FileOffset[] }[] = [];
  for await (const d of reader.walk()) {
    position.set(fileOffsetKey(d.fileOffset), datasets);
    const base = `datasets[${datasets++}]`;
    const o = d.fileOffset.offset;
    fields.push(
      { path: `${base}.at`, value: place(d.fileOffset), location: at(o, STATIC_HEADER_SIZE), layout: true },
      { path: `${base}.id`, value: d.id, location: at(o + 8, 4) },
      { path: `${base}.tables`, value: d.tables.length, location: at(o + 0xe, 2) },
    );
    for (const t of d.tables) {
      tables++;
      const tb = `${base}.tables[${t.index}]`;
      const desc = t.descriptorOffset;
      fields.push(
        { path: `${tb}.name`, value: t.name, location: at(desc + KEY_NAME, 4) },
        {
          path: `${tb}.type`,
          value: { prim: t.prim, dims: t.dims, hint: t.hint },
          location: at(desc + TYPE_INFO, 2),
        },
        { path: `${tb}.shape`, value: t.shape, location: at(desc + DATA_SHAPE, 8) },
        { path: `${tb}.index_name`, value: t.indexName, location: at(desc + INDEX_NAME, 4) },
        { path: `${tb}.related_name`, value: t.relatedName, location: at(desc + RELATED_NAME, 4) },
        { path: `${tb}.type_name`, value: t.typeName, location: at(desc + TYPE_NAME, 4) },
        {
          // Where the data sits inside its dataset and how it is stored (U12): layout.
          path: `${tb}.storage`,
          value: {
            mem_start: t.memStart,
            mem_end: t.memEnd,
            data_size: t.dataSize,
            compress_info: t.compressInfo,
          },
          location: at(desc + COMPRESS_INFO, 14),
          layout: true,
        },
      );
      // A DATASET table whose descriptor is broken is not walked either; its record says why.
      if (t.hint === 'dataset' && !d.broken.has(t.index)) {
        const field: ContentField = {
          path: `${tb}.refs`,
          value: null,
          location: at(t.dataOffset, t.dataSize),
        };
        pending.push({ field, refs: (await d.read(t)).fileOffsets ?? [] });
        fields.push(field);
      }
    }
  }
  // Every non-null reference was walked (walk() throws on one it cannot load).
  for (const { field, refs } of pending)
    field.value = refs.map((r) =>
      r.offset === 0 && r.size === 0 ? null : (position.get(fileOffsetKey(r)) ?? null),
    );
  fields.push({ path: 'counts.datasets', value: datasets }, { path: 'counts.tables', value: tables });
  return fields;
}
