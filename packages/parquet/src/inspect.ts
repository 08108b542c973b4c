import { type InspectNode, node } from '@binscope/core';
import { chunkRange, type ParquetLayout } from './footer.js';
import { parquetTypeName } from './read-schema.js';

/** Row groups listed with their column chunks up front; past this many they load a page at a time. */
const EAGER_GROUPS = 64;

function groupNode(layout: ParquetLayout, g: number): InspectNode {
  const group = layout.metadata!.row_groups[g];
  const chunks = group.columns.flatMap((c) => {
    const meta = c.meta_data;
    if (!meta) return [];
    const { start, end } = chunkRange(meta);
    return [
      node(meta.path_in_schema.join('.'), 'column chunk', start, end - start, {
        value: `${meta.codec}, ${meta.num_values} values`,
      }),
    ];
  });
  const start = chunks.length > 0 ? Math.min(...chunks.map((c) => c.offset)) : 4;
  const end = chunks.length > 0 ? Math.max(...chunks.map((c) => c.offset + c.length)) : 4;
  return node(`row group ${g}`, 'row group', start, end - start, {
    value: `${group.num_rows} rows`,
    children: chunks,
  });
}

/**
 * The file as far as it parsed: the leading magic, the row groups' column chunks (from the
 * footer), the footer with its schema, its length and the closing magic. A file whose footer
 * does not decode shows the parts around it, so `inspect` still points at where it broke.
 */
export function parquetTree(layout: ParquetLayout): InspectNode {
  const { size } = layout;
  const children: InspectNode[] = [node('magic', 'magic', 0, Math.min(4, size), { value: 'PAR1' })];
  const metadata = layout.metadata;
  if (metadata) {
    const count = metadata.row_groups.length;
    const groups = node('row groups', 'row groups', 4, (layout.footer?.offset ?? size) - 4, { value: count });
    if (count <= EAGER_GROUPS) groups.children = metadata.row_groups.map((_, g) => groupNode(layout, g));
    else
      groups.lazy = {
        count,
        load: async (start, end) =>
          Array.from({ length: end - start }, (_, i) => groupNode(layout, start + i)),
      };
    children.push(groups);
  }
  if (layout.footer) {
    const { offset, length } = layout.footer;
    const footer = node('footer', 'footer', offset, length, {
      value: metadata
        ? `${metadata.num_rows} rows, ${metadata.schema.length - 1} schema elements`
        : undefined,
    });
    if (metadata)
      footer.children = metadata.schema
        .slice(1)
        .map((e) => node(e.name, 'field', offset, 0, { value: parquetTypeName(e) }));
    children.push(footer);
  }
  if (size >= 12) {
    children.push(node('footer length', 'length', size - 8, 4, { value: layout.footer?.length ?? null }));
    children.push(node('magic', 'magic', size - 4, 4));
  }
  return node('parquet', 'file', 0, size, { children });
}
