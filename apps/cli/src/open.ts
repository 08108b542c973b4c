import * as path from 'node:path';
import type {
  AnyFormatPlugin,
  ByteSource,
  Detection,
  DirectorySource,
  FormatInfo,
  FormatReader,
  Target,
} from '@binscope/core';
import { tarShardFormat } from '@binscope/taridx/magic';
import { openPath } from '@binscope/core/node';
import { CliError, EXIT } from './errors.js';
import { FORMATS, readableFormat, registry } from './plugins.js';
import { openRemote } from './remote.js';

/** A path the user named, opened and detected. Close it when done. */
export interface Input {
  path: string;
  target: Target;
  detection: Detection;
  /** The plugin that reads it: by magic, else by --as, else by extension. */
  plugin: AnyFormatPlugin | undefined;
  close(): Promise<void>;
}

export interface OpenInputOptions {
  /** A format id that overrides detection (`--as scbf`). */
  as?: string;
  /**
   * When no signature matches, let a unique extension match pick the plugin, so its reader
   * explains what is wrong (a `.scbf` with a broken magic gets BadMagic, not "unknown").
   */
  byExtension?: boolean;
  /** False for verbs that only detect: the format's parser is then never imported. */
  loadParser?: boolean;
}

async function closeQuietly(thing: ByteSource | DirectorySource | undefined): Promise<void> {
  try {
    await (thing as { close?: () => Promise<void> } | undefined)?.close?.();
  } catch {
    // Closing a read-only descriptor cannot lose data; nothing to report.
  }
}

export function closeTarget(target: Target): Promise<void> {
  if (target.kind === 'directory') return closeQuietly(target.directory);
  return Promise.all([closeQuietly(target.source), closeQuietly(target.siblings)]).then(() => undefined);
}

export async function openInput(inputPath: string, options: OpenInputOptions = {}): Promise<Input> {
  let forced: FormatInfo | undefined;
  if (options.as) {
    forced = readableFormat(options.as);
    if (!forced) {
      const known = FORMATS.map((f) => f.id).join(', ');
      throw new CliError(`--as ${options.as}: no such format (known: ${known})`, EXIT.usage);
    }
  }
  const target = (await openRemote(inputPath)) ?? openPath(inputPath);
  try {
    const detection = await registry.detect(target);
    // A detection-only entry (a tar shard) is named by detection, read by no plugin.
    let format = forced ?? (detection.role === 'format' ? detection.info : undefined);
    if (!format && !detection.format && options.byExtension)
      format = formatByExtension(FORMATS, target, inputPath);
    const plugin = format && options.loadParser !== false ? await registry.load(format.id) : undefined;
    return { path: inputPath, target, detection, plugin, close: () => closeTarget(target) };
  } catch (error) {
    await closeTarget(target);
    throw error;
  }
}

function formatByExtension(
  formats: readonly FormatInfo[],
  target: Target,
  inputPath: string,
): FormatInfo | undefined {
  const base = path.basename(inputPath);
  const ext = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
  if (!ext) return undefined;
  const matches = formats.filter((f) => f.kind === target.kind && f.extensions.includes(ext));
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * The plugin that reads a path: the detected one (or --as, or a unique extension), else the
 * format it nearly is, so a damaged signature is reported and shown by that format's parser.
 */
export async function pluginOrNearMiss(input: Input): Promise<AnyFormatPlugin> {
  if (input.plugin) return input.plugin;
  const near = input.detection.nearMiss;
  if (!near || !readableFormat(near.id)) throw unreadable(input);
  return registry.load(near.id);
}

/** What to tell a person about a path no plugin reads. */
export function unreadable(input: Input): CliError {
  if (input.detection.format === tarShardFormat.id) {
    return new CliError(
      `${input.path}: a tar shard; binscope reads shards through their index: binscope index DIR --fold NAME, then use the .taridx`,
      EXIT.failed,
    );
  }
  const near = input.detection.nearMiss;
  if (near) return new CliError(`${input.path}: ${near.message}`, EXIT.failed);
  if (input.target.kind === 'directory') {
    return new CliError(`${input.path}: not a recognised archive directory`, EXIT.failed);
  }
  const hex = input.detection.headHex.slice(0, 32).replace(/(..)(?!$)/g, '$1 ');
  return new CliError(
    `${input.path}: unknown format (first bytes: ${hex || 'none, the file is empty'})`,
    EXIT.failed,
  );
}

/** Opens a path with the plugin that reads it, runs `use`, and closes everything. */
export async function withReader<T>(
  inputPath: string,
  options: OpenInputOptions,
  use: (input: Input & { plugin: AnyFormatPlugin }, reader: FormatReader) => Promise<T>,
): Promise<T> {
  const input = await openInput(inputPath, { byExtension: true, ...options });
  try {
    if (!input.plugin) throw unreadable(input);
    const reader = await input.plugin.open(input.target);
    try {
      return await use(input as Input & { plugin: AnyFormatPlugin }, reader);
    } finally {
      await reader.close?.();
    }
  } finally {
    await input.close();
  }
}
