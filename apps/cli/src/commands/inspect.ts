import {
  type ByteSource,
  type InspectNode,
  type InspectResult,
  type LazyChildren,
  readExact,
  type Target,
} from '@binscope/core';
import { hexDump } from '@binscope/core/binary';
import type { Command } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import {
  type InspectJson,
  jsonProblems,
  problemSummary,
  shownTree,
  stylesFor,
  treeLines,
} from '../inspect-tree.js';
import { type Input, openInput, pluginOrNearMiss } from '../open.js';
import { type Action, asOption, examples, exampleFile, wholeNumber, withCommon } from '../options.js';
import { printJson } from '../render.js';

export function registerInspect(program: Command, ctx: Context, action: Action): void {
  const file = exampleFile(ctx.registry, 'table');
  withCommon(
    program
      .command('inspect')
      .summary('show the structure tree with byte offsets and lengths')
      .description(
        'Show the structure of a file as a tree: every header field, table, block and row with its byte offset ' +
          'and length (and file, inside an archive). With --hex NODE, print the bytes of one node instead. ' +
          'NODE is a path of child names or positions below the root, e.g. "header/magic" or "columns/2". ' +
          'A broken file shows the tree as far as it parses, each problem marked on its node; exit 1 when it has errors.',
      )
      .argument('<path>', 'a file or archive directory')
      .option('-d, --depth <n>', 'show only this many levels below the root', wholeNumber('--depth'))
      .option(
        '--children <n>',
        'show at most this many children of each node',
        wholeNumber('--children'),
        100,
      )
      .option('--hex <node>', 'print the bytes of this node as a hex dump')
      .option(
        '--bytes <n>',
        'with --hex: print at most this many bytes (0 = all)',
        wholeNumber('--bytes'),
        4096,
      )
      .addOption(asOption(ctx.registry)),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope inspect ${file} --depth 2`,
        `$ binscope inspect ${file} --hex header`,
        `$ binscope inspect ${file} --hex 1/0 --json`,
      ),
    )
    .action(action((p: string, options: InspectOptions) => inspectCommand(ctx, p, options)));
}

export interface InspectOptions extends CommonOptions {
  as?: string;
  depth?: number;
  children: number;
  hex?: string;
  bytes: number;
}

const HEX_CHUNK = 64 * 1024;

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
    if (!next && node.lazy) next = await lazyNamed(node.lazy, part);
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

const LAZY_PAGE = 1024;

/**
 * A lazy child by name (a problem's path goes through the row that holds it). Rows are usually
 * named by their position ("row 42"), so that row is tried first; otherwise the children are
 * scanned a page at a time.
 */
async function lazyNamed(lazy: LazyChildren, name: string): Promise<InspectNode | undefined> {
  const number = /(\d+)\D*$/.exec(name);
  const guess = number ? Number(number[1]) : -1;
  if (guess >= 0 && guess < lazy.count) {
    const [child] = await lazy.load(guess, guess + 1);
    if (child?.name === name) return child;
  }
  for (let start = 0; start < lazy.count; start += LAZY_PAGE) {
    const found = (await lazy.load(start, Math.min(lazy.count, start + LAZY_PAGE))).find(
      (c) => c.name === name,
    );
    if (found) return found;
  }
  return undefined;
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

async function printHex(
  ctx: Context,
  filePath: string,
  target: Target,
  root: InspectNode,
  options: InspectOptions,
): Promise<void> {
  const { node, file } = await findNode(root, options.hex ?? '');
  const source = await sourceFor(target, file);
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
    return;
  }
  await ctx.out.line(
    `${node.name} (${node.kind}) ${file ? `in ${file} ` : ''}bytes ${node.offset}..${node.offset + node.length} (${node.length} B)`,
  );
  // In chunks, so `--bytes 0` on a large node streams instead of loading it whole.
  for (let done = 0; done < length && !ctx.out.closed; done += HEX_CHUNK) {
    const n = Math.min(HEX_CHUNK, length - done);
    const bytes = await readExact(source, node.offset + done, n, { what: node.name });
    await ctx.out.lines(hexDump(bytes, node.offset + done));
  }
  if (length < node.length) await ctx.out.line(`… ${node.length - length} more bytes (--bytes 0 shows all)`);
}

async function printTree(
  ctx: Context,
  result: InspectResult,
  defaultFile: string | undefined,
  options: InspectOptions,
) {
  const tree = await shownTree(result.root, options.depth ?? Number.POSITIVE_INFINITY, options.children);
  if (options.json) {
    // The root's own marks are among the file's problems (those with path ""), so the one
    // top-level array replaces them.
    const doc: InspectJson = { ...tree, problems: jsonProblems(result.located, defaultFile) };
    await printJson(ctx.out, doc);
    return;
  }
  const styles = stylesFor(ctx.out.isTTY);
  for (const line of treeLines(tree, result.errors, styles)) await ctx.out.styledLine(line);
  // A valid file prints its tree alone, as it always has.
  if (result.errors.length + result.warnings.length > 0) await ctx.out.line(problemSummary(result));
}

export async function inspectCommand(
  ctx: Context,
  filePath: string,
  options: InspectOptions,
): Promise<ExitCode> {
  const failed = await forPath(filePath, async () => {
    const input = await openInput(ctx, filePath, { as: options.as, byExtension: true });
    try {
      const plugin = await pluginOrNearMiss(ctx, input);
      // The plugin never closes the target it is given, so the tree's lazy children can read
      // through it while they are printed; closing it is this command's, once, at the end.
      return await inspectAndPrint(ctx, filePath, input, await plugin.inspectTarget(input.target), options);
    } finally {
      await input.close();
    }
  });
  await ctx.out.flush();
  return failed ? EXIT.failed : EXIT.ok;
}

/** Prints the tree (or --hex, a node's bytes); true when the file has errors. */
async function inspectAndPrint(
  ctx: Context,
  filePath: string,
  input: Input,
  result: InspectResult,
  options: InspectOptions,
): Promise<boolean> {
  if (options.hex !== undefined) {
    await printHex(ctx, filePath, input.target, result.root, options);
    if (result.errors.length > 0)
      ctx.messages.line(
        `binscope: ${filePath}: ${problemSummary(result)} (inspect without --hex shows them)`,
      );
  } else {
    const defaultFile = input.target.kind === 'file' ? input.target.source.name : undefined;
    await printTree(ctx, result, defaultFile, options);
  }
  return result.errors.length > 0;
}
