import { type InspectNode, node } from '@binscope/core';
import { PREFIX_LENGTH, type ScbfColumn } from './layout.js';
import type { ScbfReader } from './read.js';

const ROLE_LABEL = { values: 'values block', offsets: 'offsets block', strings: 'strings block' } as const;

/** Header, schema, metadata entries and every block, as byte ranges. */
export function inspectScbf(reader: ScbfReader): InspectNode {
  const { header, columns, source } = reader;
  const s = header.schemaLength;
  const headerNode = node('header', 'header', 0, header.headerLength, {
    children: [
      node('magic', 'field', 0, 8, { value: 'SCBFv1\\0\\0' }),
      node('schema_len', 'field', 8, 4, { value: s }),
      node('schema_json', 'field', PREFIX_LENGTH, s, {
        value: header.schemaJson.length > 200 ? `${header.schemaJson.slice(0, 200)}…` : header.schemaJson,
        children: (header.schema?.columns ?? []).map((c, i) =>
          node(`column ${i}`, 'schema-column', PREFIX_LENGTH, s, { value: `${c.name}: ${c.type}` }),
        ),
      }),
      node('num_columns', 'field', PREFIX_LENGTH + s, 4, { value: header.numColumns }),
      node('total_rows', 'field', PREFIX_LENGTH + s + 4, 8, { value: header.totalRows }),
      node('meta_table_offset', 'field', PREFIX_LENGTH + s + 12, 8, { value: header.metaTableOffset }),
    ],
  });
  const table = node(
    'column metadata',
    'table',
    header.metaTableOffset,
    header.metaTableEnd - header.metaTableOffset,
    {
      value: `${columns.length} entries`,
      children: columns.map(entryNode),
    },
  );
  const blocks = columns.flatMap((c) => c.blocks);
  const dataStart = blocks.length ? Math.min(...blocks.map((b) => b.offset)) : header.metaTableEnd;
  const dataEnd = blocks.length
    ? Math.max(...blocks.map((b) => b.offset + b.compressedSize))
    : header.metaTableEnd;
  const data = node('column data', 'section', dataStart, dataEnd - dataStart, {
    value: `${columns.length} columns, ${blocks.length} zlib blocks`,
    children: columns.map((column) => {
      const start = Math.min(...column.blocks.map((b) => b.offset));
      const end = Math.max(...column.blocks.map((b) => b.offset + b.compressedSize));
      return node(column.name, 'column', start, end - start, {
        value: column.type,
        children: column.blocks.map((b) =>
          node(ROLE_LABEL[b.role], 'block', b.offset, b.compressedSize, {
            value: `zlib, ${b.compressedSize} → ${b.uncompressedSize} bytes`,
          }),
        ),
      });
    }),
  });
  const children = [headerNode, table, data];
  const end = Math.max(dataEnd, header.metaTableEnd);
  if (end < source.size)
    children.push(node('trailing bytes', 'padding', end, source.size - end, { value: 'ignored (S5)' }));
  return node(source.name, 'file', 0, source.size, {
    value: `SCBF, ${header.totalRows} rows × ${columns.length} columns`,
    children,
  });
}

function entryNode(column: ScbfColumn): InspectNode {
  const at = column.entryOffset;
  const n = column.nameLength;
  const fields: InspectNode[] = [
    node('col_name_len', 'field', at, 2, { value: n }),
    node('col_name', 'field', at + 2, n, { value: column.name }),
    node('type_code', 'field', at + 2 + n, 1, { value: `${column.typeCode} (${column.type})` }),
    node('count', 'field', at + 3 + n, 8, { value: column.count }),
  ];
  for (const block of column.blocks) {
    const prefix = column.type === 'utf8' ? (block.role === 'offsets' ? 'off_' : 'str_') : '';
    const offsetName = column.type === 'utf8' ? `${prefix}offset` : 'block_offset';
    fields.push(
      node(`${prefix}uncomp_size`, 'field', block.fieldOffset, 8, { value: block.uncompressedSize }),
      node(`${prefix}comp_size`, 'field', block.fieldOffset + 8, 8, { value: block.compressedSize }),
      node(offsetName, 'field', block.fieldOffset + 16, 8, { value: block.offset }),
    );
  }
  return node(`column ${column.index}: ${column.name}`, 'entry', at, column.entryLength, {
    value: column.type,
    children: fields,
  });
}
