import {
  type ByteSource,
  type InspectNode,
  markProblem,
  node,
  type Problem,
  type ProblemList,
} from '@binscope/core';
import { toHex } from '@binscope/core/binary';
import { corruptedRegion } from './checksum.js';
import { magicMismatch } from './header.js';
import {
  allocationEntryNodes,
  descriptorNode,
  headerFieldNodes,
  pad,
  type RowContext,
  rawDescriptorNode,
  readRows,
  metadataRowNode,
  sampleDataNode,
} from './inspect-nodes.js';
import { DESCRIPTOR_SIZE, FIELD_DESC_PTR, HEADER_OFFSET, HEADER_SIZE, type MldfLayout } from './layout.js';
import type { MldfStructure } from './parse.js';
import type { MldfReader } from './read.js';

/** What the tree is drawn from: the parse's findings about the structure. */
type Structure = Omit<MldfStructure, 'source' | 'problems'>;

/**
 * The structure tree of an opened file: magic, header fields, descriptors, then metadata rows,
 * data values (grouped by sample) and allocation entries as lazy children, so a file of
 * millions of samples opens instantly. Shows what the bytes say; judging them is validate's job.
 */
export async function inspectMldf(reader: MldfReader): Promise<InspectNode> {
  const { source } = reader;
  const head = await source.read(0, Math.min(source.size, FIELD_DESC_PTR));
  return structureTree(source, {
    head,
    header: reader.header,
    descriptorsLocated: true,
    descriptorCount: reader.fields.length,
    fields: [...reader.fields],
    layout: reader.layout,
    readable: true,
  });
}

/**
 * Inspect mode: the tree of what the one parse found on any file, as far as the structure can
 * be located (header fields even under a bad magic or version, sections clamped to a file cut
 * short, every row and value around a bad one). Core marks each problem on the node it is
 * about; a value in the data region also carries the problems of its metadata struct.
 */
export function mldfTree(parsed: MldfStructure, problems: ProblemList): Promise<InspectNode> {
  return structureTree(parsed.source, parsed, problems.report().errors);
}

async function structureTree(
  source: ByteSource,
  parsed: Structure,
  problems: readonly Problem[] = [],
): Promise<InspectNode> {
  const { head, header: h, fields, layout } = parsed;
  const size = source.size;
  const magicBad = magicMismatch(head) >= 0;
  const children: InspectNode[] = [
    node('magic', 'magic', 0, Math.min(size, HEADER_OFFSET), {
      value: magicBad ? toHex(head.subarray(0, HEADER_OFFSET)) : '\\x89MLDF\\r\\n\\x1a\\n',
    }),
  ];
  if (size > HEADER_OFFSET) {
    children.push(
      node('header', 'header', HEADER_OFFSET, Math.min(HEADER_SIZE, size - HEADER_OFFSET), {
        value: h
          ? `MLDF ${h.versionMajor}.${h.versionMinor}`
          : `${size - HEADER_OFFSET} of ${HEADER_SIZE} bytes`,
        children: headerFieldNodes(head),
      }),
    );
  }
  if (h && parsed.descriptorsLocated && h.numFields > 0 && size > FIELD_DESC_PTR)
    children.push(await descriptorTable(source, parsed));
  if (h && layout)
    children.push(
      ...sectionNodes({ source, header: h, fields, rowSize: layout.rowSize, rows: 0, problems }, layout),
    );
  const title = h
    ? `MLDF ${h.versionMajor}.${h.versionMinor}, ${h.numSamples} samples × ${fields.length} fields`
    : 'MLDF (header not readable)';
  return node(source.name, 'file', 0, size, { value: title, children });
}

async function descriptorTable(source: ByteSource, parsed: Structure): Promise<InspectNode> {
  const { header, fields, descriptorCount } = parsed;
  const byIndex = new Map(fields.map((f) => [f.index, f]));
  const kids: InspectNode[] = [];
  const missing = fields.length < descriptorCount;
  const raw = missing ? await source.read(FIELD_DESC_PTR, descriptorCount * DESCRIPTOR_SIZE) : undefined;
  for (let i = 0; i < descriptorCount; i++) {
    const f = byIndex.get(i);
    const base = FIELD_DESC_PTR + i * DESCRIPTOR_SIZE;
    kids.push(f ? descriptorNode(f) : rawDescriptorNode(raw!.subarray(i * DESCRIPTOR_SIZE), i, base));
  }
  const declared = DESCRIPTOR_SIZE * header!.numFields;
  return node(
    'field descriptors',
    'table',
    FIELD_DESC_PTR,
    Math.min(declared, source.size - FIELD_DESC_PTR),
    {
      value: `${header!.numFields} fields`,
      children: kids,
    },
  );
}

/** Metadata table, data region and allocation table, each clamped to the file. */
function sectionNodes(ctx: RowContext, layout: MldfLayout): InspectNode[] {
  const { header: h, source } = ctx;
  const size = source.size;
  const rowSize = layout.rowSize;
  const metadataAt = Math.min(h.metadataPtr, size);
  ctx.rows = rowSize === 0 ? 0 : Math.min(h.numSamples, Math.floor((size - metadataAt) / rowSize));
  const children: InspectNode[] = [];
  pad(children, layout.descriptorsEnd, metadataAt);
  const metadata = node(
    'metadata table',
    'table',
    metadataAt,
    Math.min(h.numSamples * rowSize, size - metadataAt),
    {
      value: `${h.numSamples} rows × ${rowSize} bytes`,
      lazy: ctx.rows
        ? {
            count: ctx.rows,
            load: async (start, end) =>
              (await readRows(ctx, start, end)).map((row, k) => metadataRowNode(ctx, start + k, row)),
          }
        : undefined,
    },
  );
  children.push(metadata);
  if (ctx.rows > 0) pad(children, layout.metadataEnd, Math.min(h.dataPtr, size));
  const dataAt = Math.min(h.dataPtr, size);
  const dataLength = Math.max(0, Math.min(layout.dataEnd, size) - dataAt);
  const data = node('data region', 'region', dataAt, dataLength, {
    value: `${dataLength} bytes`,
    lazy:
      dataLength > 0 && ctx.rows > 0
        ? {
            count: ctx.rows,
            load: async (start, end) =>
              (await readRows(ctx, start, end)).map((row, k) => sampleDataNode(ctx, start + k, row)),
          }
        : undefined,
  });
  children.push(data);
  // A corrupted region is the region's defect, not its first row's.
  const regions = { metadata, data };
  for (const problem of ctx.problems) {
    const region = corruptedRegion(problem);
    if (region) markProblem(regions[region], problem);
  }
  const count = layout.allocCount;
  children.push(
    // Every byte from the table to the end of the file, a partial last entry included.
    node(
      'allocation table',
      'table',
      Math.min(h.allocTablePtr, size),
      size - Math.min(h.allocTablePtr, size),
      {
        value: `${count} entries`,
        lazy: count
          ? {
              count,
              load: (start, end) =>
                allocationEntryNodes(source, h.allocTablePtr, start, Math.min(end, count)),
            }
          : undefined,
      },
    ),
  );
  return children;
}
