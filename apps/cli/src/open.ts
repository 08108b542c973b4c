import type {
  AnyFormatPlugin,
  ByteSource,
  Detection,
  DirectorySource,
  FormatInfo,
  FormatReader,
  Registry,
  Target,
} from '@binscope/core';
import { openPath } from '@binscope/core/node';
import type { Context } from './context.js';
import { CliError, EXIT } from './errors.js';
import { formatByExtension, readableFormats } from './format-list.js';
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
  /** A format id that overrides detection (`--as ID`). */
  as?: string;
  /**
   * When no signature matches, let a unique extension match pick the plugin, so its reader
   * explains what is wrong (a file with the extension but a broken magic gets BadMagic).
   */
  byExtension?: boolean;
  /** False for verbs that only detect: the format's parser is then never imported. */
  loadParser?: boolean;
  /** The folder a file's companions are in, instead of the file's own (`--siblings DIR`). */
  siblings?: DirectorySource;
}

async function closeQuietly(thing: ByteSource | DirectorySource | undefined): Promise<void> {
  try {
    await (thing as { close?: () => Promise<void> } | undefined)?.close?.();
  } catch {
    // Closing a read-only descriptor cannot lose data; nothing to report.
  }
}

/** Whoever opens a target closes it: plugins and readers never close what they were handed. */
export function closeTarget(target: Target): Promise<void> {
  if (target.kind === 'directory') return closeQuietly(target.directory);
  return Promise.all([closeQuietly(target.source), closeQuietly(target.siblings)]).then(() => undefined);
}

/** A path, URL or folder as a target, not yet detected. */
export async function openTarget(location: string, registry: Registry): Promise<Target> {
  return (await openRemote(location, registry)) ?? openPath(location);
}

function forcedFormat(registry: Registry, as: string): FormatInfo {
  const forced = readableFormats(registry).find((f) => f.id === as);
  if (forced) return forced;
  const known = readableFormats(registry)
    .map((f) => f.id)
    .join(', ');
  throw new CliError(`--as ${as}: no such format (known: ${known})`, EXIT.usage);
}

export async function openInput(
  ctx: Context,
  inputPath: string,
  options: OpenInputOptions = {},
): Promise<Input> {
  const { registry } = ctx;
  const forced = options.as ? forcedFormat(registry, options.as) : undefined;
  let target = await openTarget(inputPath, registry);
  if (options.siblings && target.kind === 'file') {
    await closeQuietly(target.siblings);
    target = { ...target, siblings: options.siblings };
  }
  try {
    const detection = await registry.detect(target);
    // A detection-only entry (a container, a convertible) is named by detection, read by no plugin.
    let format = forced ?? (detection.role === 'format' ? detection.info : undefined);
    if (!format && !detection.format && options.byExtension)
      format = formatByExtension(registry, target.kind, inputPath);
    const plugin = format && options.loadParser !== false ? await registry.load(format.id) : undefined;
    const opened = target;
    return { path: inputPath, target, detection, plugin, close: () => closeTarget(opened) };
  } catch (error) {
    await closeTarget(target);
    throw error;
  }
}

/**
 * The plugin that reads a path: the detected one (or --as, or a unique extension), else the
 * format it nearly is, so a damaged signature is reported and shown by that format's parser.
 */
export async function pluginOrNearMiss(ctx: Context, input: Input): Promise<AnyFormatPlugin> {
  if (input.plugin) return input.plugin;
  const near = input.detection.nearMiss;
  const readable = near && readableFormats(ctx.registry).some((f) => f.id === near.id);
  if (!near || !readable) throw unreadable(ctx, input);
  return ctx.registry.load(near.id);
}

/**
 * How to read an entry no plugin reads: the advice it declares (FormatInfo.howToRead), else
 * the conversions from it that the converter list offers.
 */
export function howToRead(registry: Registry, info: FormatInfo): string {
  if (info.howToRead) return info.howToRead;
  const ways = registry.convertersFrom(info.id).map((c) => {
    const to = registry.info(c.to);
    return `binscope ${c.verb ?? 'convert'} → ${to ? to.title : c.to}`;
  });
  return ways.length > 0
    ? `no format reads it on its own; convert it: ${ways.join('; ')}`
    : 'no format reads it';
}

/** What to tell a person about a path no plugin reads. */
export function unreadable(ctx: Context, input: Input): CliError {
  const { detection } = input;
  if (detection.info && detection.role !== 'format') {
    return new CliError(
      `${input.path}: ${detection.title} (${detection.role}); ${howToRead(ctx.registry, detection.info)}`,
      EXIT.failed,
    );
  }
  const near = detection.nearMiss;
  if (near) return new CliError(`${input.path}: ${near.message}`, EXIT.failed);
  if (input.target.kind === 'directory') {
    return new CliError(`${input.path}: not a recognised archive directory`, EXIT.failed);
  }
  const hex = detection.headHex.slice(0, 32).replace(/(..)(?!$)/g, '$1 ');
  return new CliError(
    `${input.path}: unknown format (first bytes: ${hex || 'none, the file is empty'})`,
    EXIT.failed,
  );
}

/** Opens a path with the plugin that reads it, runs `use`, and closes everything. */
export async function withReader<T>(
  ctx: Context,
  inputPath: string,
  options: OpenInputOptions,
  use: (input: Input & { plugin: AnyFormatPlugin }, reader: FormatReader) => Promise<T>,
): Promise<T> {
  const input = await openInput(ctx, inputPath, { byExtension: true, ...options });
  try {
    if (!input.plugin) throw unreadable(ctx, input);
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
