import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ANY_FORMAT,
  type ByteSource,
  type ConverterInfo,
  type ConvertInput,
  type DirectorySource,
  directoryTarget,
  type RecordsInput,
  type Registry,
  rankByMagic,
  recordsInput,
  SourceError,
  type Target,
} from '@binscope/core';
import type { Context } from './context.js';
import { CliError, EXIT } from './errors.js';
import { extensionOf } from './format-list.js';
import { closeTarget, openTarget } from './open.js';
import { inputKind, randomAccessPipe } from './remote.js';
import { stdinChunks } from './streams.js';

/** One input of a conversion, opened, with the formats it may be read as (best first). */
export interface OpenedInput {
  location: string;
  /** Undefined for standard input (a stream). */
  target?: Target;
  /** Format ids a converter may read it as, best first. */
  formats: string[];
  /** The detected format when a plugin reads it: a converter from any format (an export) takes it. */
  readable?: string;
}

/**
 * What a folder no format detects holds: the file formats whose extension its files carry,
 * entries read through another format first (a folder of tar shards, of .h5ad files), then
 * what those are read through (the formats their converters make): a converter from that
 * format may take the folder as it is (shards with `--fold`, indexed on the way).
 */
async function folderOf(registry: Registry, directory: DirectorySource): Promise<string[]> {
  const extensions = new Set((await directory.list()).map((name) => extensionOf(name)));
  const matching = registry.formats.filter(
    (f) => f.kind === 'file' && f.extensions.some((e) => extensions.has(e)),
  );
  const detectedOnly = matching.filter((f) => (f.role ?? 'format') !== 'format');
  const through = detectedOnly.flatMap((f) => registry.convertersFrom(f.id).map((c) => c.to));
  const ids = [...detectedOnly, ...matching.filter((f) => !detectedOnly.includes(f))].map((f) => f.id);
  return [...new Set([...ids.slice(0, detectedOnly.length), ...through, ...ids])];
}

/** The input formats of converters that a stream can be: every one no plugin reads with random access. */
function streamFormats(registry: Registry): string[] {
  // A converter from any format reads a plugin's records: that needs random access, not a stream.
  const froms = registry.converters.map((c) => c.from).filter((from) => from !== ANY_FORMAT);
  return [...new Set(froms)].filter((id) => (registry.info(id)?.role ?? 'stream') !== 'format');
}

/** Opens one input and says what it is: a detected format, a folder of files of one, or by extension. */
export async function openConvertInput(ctx: Context, location: string): Promise<OpenedInput> {
  // A format a plugin reads needs random access: a stream is one of the others (CSV, a tar shard).
  if (location === '-') return { location, formats: streamFormats(ctx.registry) };
  const target = await openTarget(location, ctx.registry);
  try {
    const detection = await ctx.registry.detect(target);
    if (detection.format) {
      const readable = (detection.role ?? 'format') === 'format' ? detection.format : undefined;
      return { location, target, formats: [detection.format], readable };
    }
    if (target.kind === 'directory')
      return { location, target, formats: await folderOf(ctx.registry, target.directory) };
    // No signature: a text format read in one pass (CSV), named by its extension.
    const ext = extensionOf(location);
    return { location, target, formats: ext ? [ext] : [] };
  } catch (error) {
    await closeTarget(target);
    throw error;
  }
}

export async function closeInputs(inputs: readonly OpenedInput[]): Promise<void> {
  for (const input of inputs) if (input.target) await closeTarget(input.target);
}

/**
 * Standard input as a stream for a converter that reads in one pass. A stream that starts
 * with the signature of a format a plugin reads is refused: that needs random access, not a pipe.
 */
export function stdinInput(registry: Registry): ConvertInput {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let first = true;
    for await (const chunk of stdinChunks()) {
      if (first) {
        // Only a format a plugin reads needs random access (a tar shard streams into an index).
        const [match] = rankByMagic(registry.formats, chunk).filter((c) => c.role === 'format');
        if (match) throw randomAccessPipe(`reading ${match.id.toUpperCase()}`);
        first = false;
      }
      yield chunk;
    }
  }
  return { kind: 'stream', name: 'stdin', chunks: chunks() };
}

/**
 * Several inputs as ONE folder listing exactly them (partial indexes to merge), each opened
 * when the converter asks and closed by it.
 */
function listedInputs(ctx: Context, inputs: readonly OpenedInput[]): Target {
  const byName = new Map<string, string>();
  for (const { location } of inputs) {
    const name = path.posix.basename(location.replace(/[?#].*$/, ''));
    const other = byName.get(name);
    if (other !== undefined)
      throw new CliError(
        `${other} and ${location} have one name (${name}); give inputs distinct names`,
        EXIT.usage,
      );
    byName.set(name, location);
  }
  const names = [...byName.keys()].sort();
  const directory: DirectorySource = {
    name: 'inputs',
    list: async () => names,
    has: async (name) => byName.has(name),
    async open(name): Promise<ByteSource> {
      const location = byName.get(name);
      if (location === undefined) throw new SourceError(`${name}: not one of the inputs`, name);
      const target = await openTarget(location, ctx.registry);
      if (target.kind !== 'file') throw new SourceError(`${location}: a folder, not a file`, location);
      return target.source;
    },
  };
  return directoryTarget(directory);
}

/**
 * What a converter reads, from the opened inputs: the one input's target (standard input as
 * a stream), or several inputs as one folder target listing exactly them.
 */
export function converterInput(ctx: Context, inputs: readonly OpenedInput[]): ConvertInput {
  if (inputs.length > 1) {
    if (inputs.some((i) => i.target === undefined))
      throw new CliError('- (standard input) cannot be one of several inputs', EXIT.usage);
    return listedInputs(ctx, inputs);
  }
  return inputs[0].target ?? stdinInput(ctx.registry);
}

/**
 * One opened input as its plugin's records, for a converter from any format; `close` closes
 * the reader (the input's target stays the caller's).
 */
export async function openRecordsInput(
  ctx: Context,
  input: OpenedInput,
): Promise<{ records: RecordsInput; close(): Promise<void> }> {
  if (input.readable === undefined || input.target === undefined)
    throw new CliError(
      `${input.location}: not a file binscope reads, so it has no records to convert`,
      EXIT.usage,
    );
  const plugin = await ctx.registry.load(input.readable);
  const reader = await plugin.open(input.target);
  return { records: recordsInput(plugin, reader, input.location), close: async () => reader.close?.() };
}

/**
 * The converters that read these inputs, best first: of `candidates`, those whose input
 * format every input may be read as, in the order of the inputs' formats.
 */
export function convertersFor(
  candidates: readonly ConverterInfo[],
  inputs: readonly OpenedInput[],
): ConverterInfo[] {
  const fitting = candidates.filter((c) =>
    inputs.every((i) => i.formats.includes(c.from) || (c.from === ANY_FORMAT && i.readable !== undefined)),
  );
  const order = inputs[0]?.formats ?? [];
  return fitting.sort((a, b) => rank(order, a.from) - rank(order, b.from));
}

function rank(order: readonly string[], id: string): number {
  const at = order.indexOf(id);
  return at < 0 ? order.length : at;
}

/**
 * The files a converter reads: the inputs named, and in a local folder input, its files of
 * the converter's input format or of a container it holds (a fold's shards): an output is
 * never written onto one.
 */
export function readFiles(registry: Registry, from: string, inputs: readonly OpenedInput[]): string[] {
  const out = inputs.map((i) => i.location);
  for (const input of inputs) {
    if (input.target?.kind !== 'directory' || inputKind(input.location) !== 'path') continue;
    // And its containers' files: shards a converter reads through their index are inputs too.
    const containers = input.formats.filter((id) => (registry.info(id)?.role ?? 'format') !== 'format');
    const extensions = [from, ...containers].flatMap((id) => registry.info(id)?.extensions ?? []);
    for (const name of fs.readdirSync(input.location))
      if (extensions.includes(extensionOf(name))) out.push(path.join(input.location, name));
  }
  return out;
}
