import type { ByteLocation, ContentField, JsonValue } from '@binscope/core';
import { HEADER_OFFSET } from './layout.js';
import type { MldfReader } from './read.js';

/**
 * What `binscope diff` compares in an MLDF file: version, flags, the sample and field
 * counts, and each field's name, type, flags and NDARRAY dtype/shape, located at their
 * bytes. Section pointers, page size and metadata sizes are left out: they follow from the
 * layout a writer chose (or from the field types), not from what the file holds.
 */
export function mldfContentFields(reader: MldfReader): ContentField[] {
  const h = reader.header;
  const file = reader.source.name;
  const at = (offset: number, length: number): ByteLocation => ({ offset, length, file });
  const fields: ContentField[] = [
    { path: 'header.version', value: `${h.versionMajor}.${h.versionMinor}`, location: at(HEADER_OFFSET, 4) },
    { path: 'header.flags', value: h.flags, location: at(HEADER_OFFSET + 4, 4) },
    { path: 'counts.samples', value: h.numSamples, location: at(HEADER_OFFSET + 8, 8) },
    { path: 'counts.fields', value: h.numFields, location: at(HEADER_OFFSET + 16, 2) },
  ];
  for (const f of reader.fields) {
    const base = `fields[${f.index}]`;
    const d = f.descriptorOffset;
    fields.push(
      { path: `${base}.name`, value: f.name, location: at(d, 64) },
      { path: `${base}.type`, value: f.type, location: at(d + 64, 2) },
      { path: `${base}.flags`, value: f.flags, location: at(d + 66, 2) },
    );
    if (f.ndarray) {
      const value: JsonValue = { dtype: f.ndarray.dtype, shape: [...f.ndarray.shape] };
      fields.push({ path: `${base}.ndarray`, value, location: at(d + 76, 128) });
    }
  }
  return fields;
}
