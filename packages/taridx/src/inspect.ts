import {
  type ByteSource,
  type Finding,
  type InspectNode,
  markProblem,
  markProblems,
  node,
  type Problem,
  plainProblem,
  type ProblemList,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { readU64, toHex } from '@binscope/core/binary';
import type { RowRegion } from './header.js';
import { FORMAT, H, HEADER_SIZE, R, ROW_SIZE, TAR_BLOCK, type TaridxHeader } from './layout.js';
import { readTextBlock, type TextBlock } from './parse.js';
import type { TaridxReader } from './read.js';
import { shardScope } from './shard-check.js';
import type { TaridxParse } from './validate.js';

/** Text-block entries beyond this many are listed lazily. */
const EAGER_ENTRIES = 256;

/** What the tree is drawn from: as much of the index as one parse could locate. */
export interface TreeParts {
  source: ByteSource;
  /** The header, when the file holds 64 bytes. */
  header?: TaridxHeader;
  /** Whether the header's layout is this version's (magic and major right): regions mean something. */
  layoutKnown: boolean;
  region?: RowRegion;
  extensions?: TextBlock;
  crashStems?: TextBlock;
  /** Problems found in the rows: each is marked again on its row's field when the rows are loaded. */
  rowProblems?: readonly Problem[];
}

/**
 * The structure tree of an opened (valid) index: header fields, the two text blocks entry by
 * entry, and the rows (lazy, a page at a time, each with its six fields), all as absolute
 * byte ranges of the index.
 */
export async function inspectTaridx(reader: TaridxReader, options: ReadOptions = {}): Promise<InspectNode> {
  const { header, source } = reader;
  return indexTree(
    {
      source,
      header,
      layoutKnown: true,
      region: { wholeRows: header.nRows, cutBytes: 0 },
      extensions: await readTextBlock(source, HEADER_SIZE, header.offCrash, header.nExt, options),
      crashStems: await readTextBlock(source, header.offCrash, header.offArr, header.nCrash, options),
    },
    options,
  );
}

/**
 * Inspect mode: the tree of whatever the parse located, broken files included, with the
 * shards' problems (`deep: true`) on the shard or member at fault. Core's markProblems places
 * the rest by offset.
 */
export function taridxTree(parse: TaridxParse, problems: ProblemList): InspectNode {
  const { source, index } = parse;
  const root = indexTree({
    source,
    header: index?.header,
    layoutKnown: index?.layoutKnown ?? false,
    region: index?.region,
    extensions: index?.extensions,
    crashStems: index?.crashStems,
    rowProblems: problems.report().errors,
  });
  if (parse.shards) markShards(root, parse.shards, problems.errors);
  return root;
}

/**
 * A `shards` node, when a shard has problems: every shard (so the good ones keep their place),
 * the bad ones marked on the member at fault, or on the shard when the member cannot be located.
 */
function markShards(
  root: InspectNode,
  { set, sizes }: NonNullable<TaridxParse['shards']>,
  errors: readonly Finding[],
): void {
  const scoped = errors.filter((e) => e.scope?.startsWith('shard '));
  if (scoped.length === 0) return;
  const shardNodes = new Map<string, InspectNode>();
  set.names.forEach((name, fid) => {
    shardNodes.set(shardScope(name), node(name, 'shard', 0, sizes[fid], { file: name, value: `fid ${fid}` }));
  });
  for (const finding of scoped) {
    let shard = shardNodes.get(finding.scope!);
    if (!shard) {
      const name = finding.scope!.slice('shard '.length);
      shard = node(name, 'shard', 0, 0, { file: name, value: 'missing' });
      shardNodes.set(finding.scope!, shard);
    }
    const problem = plainProblem(finding);
    const inShard = finding.file === shard.name && finding.offset !== undefined;
    if (!inShard) {
      markProblem(shard, problem);
      continue;
    }
    const at = Math.min(finding.offset!, shard.length);
    const member = node(`member at ${finding.offset}`, 'member', at, Math.min(TAR_BLOCK, shard.length - at), {
      file: shard.name,
    });
    markProblem(member, problem);
    (shard.children ??= []).push(member);
  }
  const group = node('shards', 'group', 0, 0, {
    value: `${set.count} shards`,
    children: [...shardNodes.values()],
  });
  root.children?.push(group);
}

/**
 * The tree of any index, broken ones included: the header as far as the file holds it, the
 * text blocks and rows where the header locates them (clamped to the file where it points
 * past its end), and a cut last row as its own node.
 */
export function indexTree(parts: TreeParts, options: ReadOptions = {}): InspectNode {
  const { source, header } = parts;
  const file = source.name;
  const children: InspectNode[] = [headerTree(source, header)];
  if (header && parts.layoutKnown) {
    const end = source.size;
    const crashAt = Math.min(Math.max(header.offCrash, HEADER_SIZE), end);
    const arrAt = Math.min(Math.max(header.offArr, crashAt), end);
    children.push(
      textBlockNode('extensions', 'extension', HEADER_SIZE, crashAt, parts.extensions, (i) => `ext ${i}`),
      textBlockNode('crash stems', 'crash-stem', crashAt, arrAt, parts.crashStems, (i) => `crash ${i + 1}`),
    );
    if (parts.region) children.push(...rowsNodes(parts, header, parts.region, options));
    else children.push(node('rows', 'array', arrAt, end - arrAt, { value: 'not located' }));
  }
  return node(file, 'file', 0, source.size, {
    file,
    value: header ? `TARIDX ${header.nRows} rows` : 'TARIDX (no header)',
    children,
  });
}

function headerTree(source: ByteSource, header: TaridxHeader | undefined): InspectNode {
  if (!header) {
    // Shorter than 64 bytes: the magic is all that may be there.
    return node('header', 'header', 0, Math.min(source.size, HEADER_SIZE), { value: 'cut short' });
  }
  const field = (name: string, offset: number, length: number, value: string | number) =>
    node(name, 'field', offset, length, { value });
  return node('header', 'header', 0, HEADER_SIZE, {
    value: `TARIDX ${header.major}.${header.minor}`,
    children: [
      field('magic', H.magic, 8, header.magic),
      field('major', H.major, 2, header.major),
      field('minor', H.minor, 2, header.minor),
      field('rec_size', H.recSize, 2, header.recSize),
      field('hdr_size', H.hdrSize, 2, header.hdrSize),
      field('n_stems', H.nStems, 8, header.nStems),
      field('n_rows', H.nRows, 8, header.nRows),
      field('n_ext', H.nExt, 4, header.nExt),
      field('n_crash', H.nCrash, 4, header.nCrash),
      field('off_crash', H.offCrash, 8, header.offCrash),
      field('off_arr', H.offArr, 8, header.offArr),
      field('flags', H.flags, 1, header.flags & 1 ? `${header.flags} (contiguous)` : header.flags),
      field('reserved', H.reserved, 7, toHex(header.reserved)),
    ],
  });
}

function textBlockNode(
  name: string,
  kind: string,
  start: number,
  end: number,
  block: TextBlock | undefined,
  label: (i: number) => string,
): InspectNode {
  if (!block) return node(name, 'block', start, end - start, { value: 'not read' });
  const { parts, texts } = block;
  const entry = (i: number) => {
    const [a, b] = parts[i];
    return node(label(i), kind, start + a, b - a, { value: texts[i] });
  };
  const extra =
    parts.length > EAGER_ENTRIES
      ? {
          lazy: {
            count: parts.length,
            load: async (s: number, e: number) => range(s, Math.min(e, parts.length)).map(entry),
          },
        }
      : { children: parts.map((_, i) => entry(i)) };
  return node(name, 'block', start, end - start, { value: `${parts.length} entries`, ...extra });
}

/** The rows node (whole rows, lazy) and, in a cut file, the cut last row. */
function rowsNodes(
  parts: TreeParts,
  header: TaridxHeader,
  region: RowRegion,
  options: ReadOptions,
): InspectNode[] {
  const { source } = parts;
  const count = Math.min(header.nRows, region.wholeRows);
  const extensions = parts.extensions?.texts ?? [];
  const rows = node('rows', 'array', header.offArr, count * ROW_SIZE, {
    value: `${header.nRows} rows`,
    lazy: {
      count,
      load: async (start, end) => {
        const s = Math.max(0, start);
        const e = Math.min(end, count);
        if (e <= s) return [];
        const bytes = await readExact(source, header.offArr + s * ROW_SIZE, (e - s) * ROW_SIZE, {
          ...options,
          format: FORMAT,
          what: 'rows',
        });
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return range(s, e).map((i) => {
          const row = rowNode(view, (i - s) * ROW_SIZE, header.offArr + i * ROW_SIZE, i, extensions);
          // A row loaded on demand is a tree of its own: core marks what lies in it on the field.
          const inRow = parts.rowProblems?.filter(
            (p) => p.offset !== undefined && p.offset >= row.offset && p.offset < row.offset + row.length,
          );
          if (inRow?.length) markProblems(row, { valid: false, errors: inRow, warnings: [] });
          return row;
        });
      },
    },
  });
  if (region.cutBytes === 0) return [rows];
  const cutAt = header.offArr + region.wholeRows * ROW_SIZE;
  return [
    rows,
    node(`row ${region.wholeRows} (cut)`, 'row', cutAt, region.cutBytes, {
      value: `${region.cutBytes} of ${ROW_SIZE} bytes`,
    }),
  ];
}

function rowNode(
  view: DataView,
  at: number,
  base: number,
  i: number,
  extensions: readonly string[],
): InspectNode {
  const field = (name: string, offset: number, length: number, value: string | number) =>
    node(name, 'field', offset, length, { value });
  const fid = view.getUint16(at + R.fid, true);
  const offset = readU64(view, at + R.offset);
  const size = readU64(view, at + R.size);
  const extid = view.getUint16(at + R.extid, true);
  const crashid = view.getUint32(at + R.crashid, true);
  const keyhash = view
    .getBigUint64(at + R.keyhash, true)
    .toString(16)
    .padStart(16, '0');
  const ext = extensions[extid];
  return node(`row ${i}`, 'row', base, ROW_SIZE, {
    value: `fid ${fid} · offset ${offset} · ${size} B${ext === undefined ? '' : ` · .${ext}`}${crashid ? ` · crash ${crashid}` : ''}`,
    children: [
      field('fid', base + R.fid, 2, fid),
      field('offset', base + R.offset, 8, offset),
      field('size', base + R.size, 8, size),
      field('extid', base + R.extid, 2, ext === undefined ? extid : `${extid} (${ext})`),
      field('crashid', base + R.crashid, 4, crashid),
      field('keyhash', base + R.keyhash, 8, keyhash),
    ],
  });
}

function range(start: number, end: number): number[] {
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(i);
  return out;
}
