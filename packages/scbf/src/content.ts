import type { ByteLocation, ContentField, JsonValue } from '@binscope/core';
import { PREFIX_LENGTH } from './layout.js';
import type { ScbfReader } from './read.js';

/**
 * What `binscope diff` compares in an SCBF file: the magic, the counts, the schema and each
 * column's name, type and row count, located at their bytes. Block offsets and sizes are
 * left out: they describe how the zlib in use packed the values, so two files with the same
 * table written at different compression levels compare equal (the rows are compared apart).
 */
export function scbfContentFields(reader: ScbfReader): ContentField[] {
  const { header, columns, source } = reader;
  const file = source.name;
  const at = (offset: number, length: number): ByteLocation => ({ offset, length, file });
  const afterSchema = PREFIX_LENGTH + header.schemaLength;
  const fields: ContentField[] = [
    { path: 'header.magic', value: header.magic.replace(/\0+$/, ''), location: at(0, 8) },
    { path: 'counts.columns', value: header.numColumns, location: at(afterSchema, 4) },
    { path: 'counts.rows', value: header.totalRows, location: at(afterSchema + 4, 8) },
    {
      // Parsed, so that two spellings of the same JSON are equal.
      path: 'schema',
      value: (header.schema as unknown as JsonValue) ?? header.schemaJson,
      location: at(PREFIX_LENGTH, header.schemaLength),
    },
  ];
  for (const c of columns) {
    const base = `columns[${c.index}]`;
    const nameAt = c.entryOffset + 2;
    fields.push(
      { path: `${base}.name`, value: c.name, location: at(nameAt, c.nameLength) },
      { path: `${base}.type`, value: c.type, location: at(nameAt + c.nameLength, 1) },
      { path: `${base}.count`, value: c.count, location: at(nameAt + c.nameLength + 1, 8) },
    );
  }
  return fields;
}
