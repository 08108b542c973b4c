import { type FormatError, type InspectNode, markProblem, node } from '@binscope/core';
import { maxOf, minOf } from '@binscope/core/binary';
import type { ScbfExtensions } from './extensions.js';
import { PREFIX_LENGTH, type ScbfBlock, type ScbfColumn, type ScbfHeader } from './layout.js';
import { SCBF_MAGIC } from './magic.js';
import type { ScbfReader } from './read.js';
import { columnSpans } from './schema-spans.js';
import type { ScbfParse } from './validate.js';

const ROLE_LABEL = { values: 'values block', offsets: 'offsets block', strings: 'strings block' } as const;

/** What the tree is drawn from: a whole layout, or as much of one as a damaged file gave. */
export interface TreeParts {
  source: { name: string; size: number };
  /** The first bytes as read (shown when the magic is wrong). */
  head?: Uint8Array;
  header: Partial<ScbfHeader>;
  columns: readonly ScbfColumn[];
  footer?: ScbfExtensions;
  /** Errors that belong to one block (bounds, payload): marked on the block's node. */
  blockErrors?: ReadonlyMap<ScbfBlock, FormatError>;
}

/** Header, schema, metadata entries and every block, as byte ranges. */
export function inspectScbf(reader: ScbfReader, footer?: ScbfExtensions): InspectNode {
  return scbfTree({ source: reader.source, header: reader.header, columns: reader.columns, footer });
}

/**
 * Inspect mode: the tree of whatever the parse reached. A payload error inside a block is marked
 * on that block, a bounds error on the block it cuts; anything else is placed by core's
 * markProblems (a field by its offset, a defect past the end on what the end cuts off).
 */
export function inspectParse(parsed: ScbfParse): InspectNode {
  const { progress, layout, payloadErrors, footer, source } = parsed;
  const blockErrors = new Map<ScbfBlock, FormatError>(layout?.blockErrors ?? []);
  for (const [index, error] of payloadErrors) {
    const { blocks } = progress.columns[index];
    const at = error.offset;
    // One at a metadata field (a declared size that does not hold) is left to its field's offset.
    const block =
      at === undefined ? blocks[0] : blocks.find((b) => at >= b.offset && at < b.offset + b.compressedSize);
    if (block && !blockErrors.has(block)) blockErrors.set(block, error);
  }
  return scbfTree({
    source,
    head: progress.head,
    header: progress.header,
    columns: progress.columns,
    footer,
    blockErrors,
  });
}

/**
 * The tree of an SCBF file as far as it was parsed: ranges that run past the end of the file
 * are cut at the end (the defect is marked on them), parts never reached are left out.
 */
export function scbfTree(parts: TreeParts): InspectNode {
  const { header, columns, source } = parts;
  const size = source.size;
  const at = (name: string, kind: string, offset: number, length: number, extra = {}) => {
    const start = Math.min(offset, size);
    return node(name, kind, start, Math.max(0, Math.min(length, size - start)), extra);
  };
  const children = [headerNode(parts, at)];
  const complete = header.metaTableEnd !== undefined;
  if (header.metaTableOffset !== undefined && header.metaTableOffset < size) {
    const end = header.metaTableEnd ?? size;
    children.push(
      at('column metadata', 'table', header.metaTableOffset, end - header.metaTableOffset, {
        value: complete ? `${columns.length} entries` : `${columns.length} of ${header.numColumns} entries`,
        children: columns.map(entryNode),
      }),
    );
  }
  const blocks = columns.flatMap((c) => c.blocks);
  const tableEnd = header.metaTableEnd ?? header.headerLength ?? 0;
  let dataEnd = tableEnd;
  if (complete && columns.length) {
    const dataStart = minOf(blocks, (b) => b.offset);
    dataEnd = maxOf(blocks, (b) => b.offset + b.compressedSize);
    children.push(
      at('column data', 'section', dataStart, dataEnd - dataStart, {
        value: `${columns.length} columns, ${blocks.length} zlib blocks`,
        children: columns.map((column) => columnNode(column, parts, at)),
      }),
    );
  }
  const end = Math.max(dataEnd, tableEnd);
  if (complete && end < size) {
    children.push(
      parts.footer
        ? at('extension footer', 'footer', end, size - end, { value: footerSummary(parts.footer) })
        : at('trailing bytes', 'padding', end, size - end, { value: 'ignored (S5)' }),
    );
  }
  const shape =
    header.totalRows !== undefined && complete
      ? `SCBF, ${header.totalRows} rows × ${columns.length} columns`
      : 'SCBF (damaged)';
  return node(source.name, 'file', 0, size, { value: shape, children });
}

type Placer = (name: string, kind: string, offset: number, length: number, extra?: object) => InspectNode;

function headerNode(parts: TreeParts, at: Placer): InspectNode {
  const { header, head } = parts;
  const fields: InspectNode[] = [at('magic', 'field', 0, 8, { value: magicText(head) })];
  const s = header.schemaLength;
  if (s !== undefined) {
    fields.push(at('schema_len', 'field', 8, 4, { value: s }));
    if (header.schemaJson !== undefined) {
      const text = header.schemaJson;
      const columns = header.schema?.columns ?? [];
      // The text decoded strictly from these bytes, so encoding it gives them back.
      const spans = columns.length ? columnSpans(new TextEncoder().encode(text)) : [];
      fields.push(
        at('schema_json', 'field', PREFIX_LENGTH, s, {
          value: text.length > 200 ? `${text.slice(0, 200)}…` : text,
          children: columns.map((c, i) => {
            const span = spans.length === columns.length ? spans[i] : { start: 0, end: s };
            return at(`column ${i}`, 'schema-column', PREFIX_LENGTH + span.start, span.end - span.start, {
              value: `${c.name}: ${c.type}`,
            });
          }),
        }),
      );
    } else {
      fields.push(at('schema_json', 'field', PREFIX_LENGTH, s, { value: 'cut off by the end of the file' }));
    }
  }
  if (s !== undefined && header.numColumns !== undefined) {
    fields.push(
      at('num_columns', 'field', PREFIX_LENGTH + s, 4, { value: header.numColumns }),
      at('total_rows', 'field', PREFIX_LENGTH + s + 4, 8, { value: header.totalRows }),
      at('meta_table_offset', 'field', PREFIX_LENGTH + s + 12, 8, { value: header.metaTableOffset }),
    );
  }
  return at('header', 'header', 0, header.headerLength ?? PREFIX_LENGTH, { children: fields });
}

function magicText(head: Uint8Array | undefined): string {
  const expected = 'SCBFv1\\0\\0';
  if (!head) return expected;
  const bytes = head.subarray(0, 8);
  if (bytes.length === 8 && bytes.every((b, i) => b === SCBF_MAGIC.charCodeAt(i))) return expected;
  return Array.from(bytes, (b) =>
    b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
  ).join('');
}

function columnNode(column: ScbfColumn, parts: TreeParts, at: Placer): InspectNode {
  const start = minOf(column.blocks, (b) => b.offset);
  const end = maxOf(column.blocks, (b) => b.offset + b.compressedSize);
  return at(column.name, 'column', start, end - start, {
    value: column.type,
    children: column.blocks.map((b) => {
      const blockNode = at(ROLE_LABEL[b.role], 'block', b.offset, b.compressedSize, {
        value: `zlib, ${b.compressedSize} → ${b.uncompressedSize} bytes`,
      });
      const error = parts.blockErrors?.get(b);
      if (error) markProblem(blockNode, error.toProblem());
      return blockNode;
    }),
  });
}

function footerSummary(footer: ScbfExtensions): string {
  const records = [
    footer.checksums && 'checksums',
    footer.statistics && 'statistics',
    footer.nulls?.size && 'nulls',
    footer.dictionaries?.size && 'dictionaries',
  ].filter(Boolean);
  return `version ${footer.footerVersion}${records.length ? `: ${records.join(', ')}` : ''}`;
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
