import { type InspectNode, node } from '@binscope/core';
import type { Field as ArrowField } from 'apache-arrow';
import type { ArrowLayout, Block } from './layout.js';

/** Batches drawn as nodes up front; more are listed a page at a time (lazy children). */
const EAGER_BATCHES = 200;

function messageNode(name: string, kind: string, block: Block, rows: number | undefined): InspectNode {
  return node(name, kind, block.offset, block.metaLength + block.bodyLength, {
    value: rows === undefined ? undefined : `${rows} rows`,
    children: [
      node('metadata', 'header', block.offset, block.metaLength),
      ...(block.bodyLength > 0
        ? [node('body', 'block', block.offset + block.metaLength, block.bodyLength)]
        : []),
    ],
  });
}

function fieldNodes(fields: readonly ArrowField[], at: Block | undefined): InspectNode[] {
  return fields.map((f) =>
    node(f.name, 'field', at?.offset ?? 0, at ? at.metaLength : 0, {
      value: `${String(f.type)}${f.nullable ? '' : ' not null'}`,
    }),
  );
}

function batchesNode(layout: ArrowLayout, start: number, end: number): InspectNode {
  const batches = layout.batches;
  const byte = (b: Block) => b.offset;
  const first = batches.length ? Math.min(...batches.slice(0, EAGER_BATCHES).map(byte)) : start;
  const make = (i: number) => messageNode(`record batch ${i}`, 'block', batches[i], layout.rows[i]);
  const eager = Math.min(batches.length, EAGER_BATCHES);
  return node('record batches', 'array', first, Math.max(0, end - first), {
    value: batches.length,
    children: Array.from({ length: eager }, (_, i) => make(i)),
    ...(batches.length > eager
      ? {
          lazy: {
            count: batches.length - eager,
            load: async (from: number, to: number) =>
              Array.from({ length: Math.max(0, to - from) }, (_, k) => make(eager + from + k)),
          },
        }
      : {}),
  });
}

/**
 * The structure of an IPC file or stream as far as it was parsed: the magic, the schema
 * message (or, in a file without one, the footer's schema), dictionaries, record batches
 * with their metadata and body ranges, the end marker, the footer and the closing magic.
 */
export function layoutTree(layout: ArrowLayout): InspectNode {
  const size = layout.source.size;
  const children: InspectNode[] = [];
  if (layout.kind === 'file')
    children.push(node('magic', 'header', 0, Math.min(8, size), { value: 'ARROW1' }));
  const schemaAt = layout.schemaBlock ?? layout.footer;
  if (layout.schemaBlock)
    children.push(
      node('schema', 'header', layout.schemaBlock.offset, layout.schemaBlock.metaLength, {
        children: layout.schema ? fieldNodes(layout.schema.fields, schemaAt) : [],
      }),
    );
  layout.dictionaries.forEach((d, i) => {
    children.push(messageNode(`dictionary batch ${i}`, 'block', d, undefined));
  });
  const batchesEnd = layout.eos ?? layout.footer?.offset ?? size;
  children.push(
    batchesNode(
      layout,
      layout.schemaBlock ? layout.schemaBlock.offset + layout.schemaBlock.metaLength : 8,
      batchesEnd,
    ),
  );
  if (layout.eos !== undefined) children.push(node('end of stream', 'header', layout.eos, 8));
  if (layout.footer) {
    const f = layout.footer;
    children.push(
      node('footer', 'header', f.offset, f.metaLength, {
        children: layout.schema && !layout.schemaBlock ? fieldNodes(layout.schema.fields, f) : [],
      }),
      node('footer length', 'field', f.offset + f.metaLength, 4, { value: f.metaLength }),
      node('magic', 'header', size - 6, 6, { value: 'ARROW1' }),
    );
  }
  children.sort((a, b) => a.offset - b.offset);
  return node(layout.source.name, 'file', 0, size, {
    value: layout.kind === 'file' ? 'Arrow IPC file' : 'Arrow IPC stream',
    children,
  });
}
