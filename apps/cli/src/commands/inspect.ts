import { type ByteSource, hexDump, type InspectNode, readExact, type Target } from '@binscope/core';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { withReader } from '../open.js';
import { printJson } from '../render.js';

export interface InspectOptions extends CommonOptions {
  as?: string;
  depth?: number;
  children: number;
  hex?: string;
  bytes: number;
}

const HEX_CHUNK = 64 * 1024;

/** A node as printed: lazy children loaded a page at most, the rest counted. */
interface ShownNode {
  name: string;
  kind: string;
  offset: number;
  length: number;
  file?: string;
  value?: string | number | boolean | null;
  children?: ShownNode[];
  /** Children that exist but are not shown (below --depth, past --children). */
  childCount?: number;
}

async function childrenOf(
  node: InspectNode,
  limit: number,
): Promise<{ shown: InspectNode[]; total: number }> {
  const eager = node.children ?? [];
  const total = eager.length + (node.lazy?.count ?? 0);
  const shown = eager.slice(0, limit);
  if (node.lazy && shown.length < limit && node.lazy.count > 0) {
    shown.push(...(await node.lazy.load(0, Math.min(node.lazy.count, limit - shown.length))));
  }
  return { shown, total };
}

async function shownTree(node: InspectNode, depth: number, limit: number): Promise<ShownNode> {
  const out: ShownNode = { name: node.name, kind: node.kind, offset: node.offset, length: node.length };
  if (node.file !== undefined) out.file = node.file;
  if (node.value !== undefined) out.value = node.value;
  const total = (node.children?.length ?? 0) + (node.lazy?.count ?? 0);
  if (total === 0) return out;
  if (depth <= 0) {
    out.childCount = total;
    return out;
  }
  const { shown } = await childrenOf(node, limit);
  out.children = [];
  for (const child of shown) out.children.push(await shownTree(child, depth - 1, limit));
  if (shown.length < total) out.childCount = total;
  return out;
}

function treeLines(root: ShownNode): string[] {
  const rows: Array<{ left: string; node: ShownNode; more?: number }> = [];
  const visit = (n: ShownNode, indent: string) => {
    rows.push({ left: `${indent}${n.name}`, node: n });
    for (const c of n.children ?? []) visit(c, `${indent}  `);
    const hidden = (n.childCount ?? 0) - (n.children?.length ?? 0);
    if (hidden > 0)
      rows.push({ left: `${indent}  … ${hidden.toLocaleString('en-US')} more`, node: n, more: hidden });
  };
  visit(root, '');
  const width = Math.min(48, Math.max(...rows.map((r) => r.left.length)));
  const kindWidth = Math.max(...rows.map((r) => r.node.kind.length));
  let lastFile: string | undefined = root.file;
  return rows.map(({ left, node, more }) => {
    if (more !== undefined) return left;
    const end = node.offset + node.length;
    let line = `${left.padEnd(width)}  ${node.kind.padEnd(kindWidth)}  ${String(node.offset).padStart(10)}..${String(end).padEnd(10)} ${String(node.length).padStart(10)} B`;
    if (node.file !== undefined && node.file !== lastFile) line += `  in ${node.file}`;
    if (node.file !== undefined) lastFile = node.file;
    if (node.value !== undefined)
      line += `  = ${typeof node.value === 'string' ? JSON.stringify(node.value) : node.value}`;
    return line.trimEnd();
  });
}

/**
 * Finds a node by a path of child names ("header/magic") or child positions ("0/3"),
 * below the root. Positions reach into lazy children (rows of a large index).
 */
export async function findNode(
  root: InspectNode,
  nodePath: string,
): Promise<{ node: InspectNode; file?: string }> {
  let node = root;
  let file = root.file;
  const parts = nodePath.split('/').filter((p) => p.length > 0);
  if (parts[0] === root.name && parts.length > 0 && !(root.children ?? []).some((c) => c.name === parts[0]))
    parts.shift();
  for (const part of parts) {
    const eager = node.children ?? [];
    let next = eager.find((c) => c.name === part);
    if (!next && /^#?\d+$/.test(part)) {
      const index = Number(part.replace('#', ''));
      if (index < eager.length) next = eager[index];
      else if (node.lazy && index - eager.length < node.lazy.count) {
        const start = index - eager.length;
        [next] = await node.lazy.load(start, start + 1);
      }
    }
    if (!next) {
      const names = eager.slice(0, 12).map((c) => c.name);
      const count = eager.length + (node.lazy?.count ?? 0);
      throw new CliError(
        `--hex ${nodePath}: ${JSON.stringify(node.name)} has no child ${JSON.stringify(part)} (children: ${names.join(', ')}${count > names.length ? `, … ${count} in all; use positions 0..${count - 1}` : ''})`,
        EXIT.usage,
      );
    }
    node = next;
    file = node.file ?? file;
  }
  return { node, file };
}

/** The byte source a node's range is in: the file itself, a file of the archive, or a sibling. */
async function sourceFor(target: Target, file: string | undefined): Promise<ByteSource> {
  if (target.kind === 'directory') {
    if (!file) throw new CliError('this node has no file of the archive to read bytes from', EXIT.usage);
    return target.directory.open(file);
  }
  if (file === undefined || file === target.source.name || !target.siblings) return target.source;
  return target.siblings.open(file);
}

export async function inspectCommand(
  ctx: Context,
  filePath: string,
  options: InspectOptions,
): Promise<ExitCode> {
  await forPath(filePath, () =>
    withReader(filePath, { as: options.as }, async (input, reader) => {
      const root = await input.plugin.inspect(reader);
      if (options.hex !== undefined) {
        const { node, file } = await findNode(root, options.hex);
        const source = await sourceFor(input.target, file);
        const length = options.bytes > 0 ? Math.min(node.length, options.bytes) : node.length;
        if (options.json) {
          const bytes = await readExact(source, node.offset, length, { what: node.name });
          await printJson(ctx.out, {
            path: filePath,
            node: {
              name: node.name,
              kind: node.kind,
              offset: node.offset,
              length: node.length,
              file: file ?? null,
            },
            shown: length,
            hex: Buffer.from(bytes).toString('hex'),
          });
        } else {
          await ctx.out.line(
            `${node.name} (${node.kind}) ${file ? `in ${file} ` : ''}bytes ${node.offset}..${node.offset + node.length} (${node.length} B)`,
          );
          // In chunks, so `--bytes 0` on a large node streams instead of loading it whole.
          for (let done = 0; done < length && !ctx.out.closed; done += HEX_CHUNK) {
            const n = Math.min(HEX_CHUNK, length - done);
            const bytes = await readExact(source, node.offset + done, n, { what: node.name });
            await ctx.out.line(hexDump(bytes, node.offset + done));
          }
          if (length < node.length)
            await ctx.out.line(`… ${node.length - length} more bytes (--bytes 0 shows all)`);
        }
        return;
      }
      const tree = await shownTree(root, options.depth ?? Number.POSITIVE_INFINITY, options.children);
      if (options.json) await printJson(ctx.out, tree);
      else for (const line of treeLines(tree)) await ctx.out.line(line);
    }),
  );
  await ctx.out.flush();
  return EXIT.ok;
}
