import * as path from 'node:path';
import type { ConverterInfo, FormatInfo, Registry, RegistryEntry } from '@binscope/core';
import { createFormatRegistry, formats as builtInFormats } from '@binscope/formats';

/**
 * The CLI's registry: the one format list of `@binscope/formats`, after the formats and
 * converters of `--plugin` modules (first, so a plugin can claim what no built-in format
 * does). Detection, `--as`, every help text that names formats and every verb derive from
 * it: no file of the CLI names a format.
 */
export function createCliRegistry(
  extra: { formats?: readonly RegistryEntry[]; converters?: readonly ConverterInfo[] } = {},
): Registry {
  return createFormatRegistry(extra);
}

/** The ids of the built-in formats, which a plugin may not take. */
export const BUILT_IN_IDS: ReadonlySet<string> = new Set(builtInFormats.map((f) => f.id));

/** The entries a plugin reads (role `format`), in registry order: what `--as` and the help name. */
export function readableFormats(registry: Registry): FormatInfo[] {
  return registry.formats.filter((f) => (f.role ?? 'format') === 'format');
}

/** "SCBF (.scbf)", "SCDL (directory)": how help texts name a format. */
export function formatLabel(format: FormatInfo): string {
  const where = format.kind === 'directory' ? 'directory' : format.extensions.map((e) => `.${e}`).join(', ');
  return `${format.id.toUpperCase()} (${where})`;
}

/** "A, B, C and D". */
export function spokenList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The lower-case extension of a path or URL's last segment ('' when it has none). */
export function extensionOf(location: string): string {
  const base = path.posix.basename(location.replace(/[?#].*$/, '').replace(/\/+$/, ''));
  return base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
}

/** The one readable format of `kind` that claims the extension, if exactly one does. */
export function formatByExtension(
  registry: Registry,
  kind: 'file' | 'directory',
  location: string,
): FormatInfo | undefined {
  const ext = extensionOf(location);
  if (!ext) return undefined;
  const matches = readableFormats(registry).filter((f) => f.kind === kind && f.extensions.includes(ext));
  return matches.length === 1 ? matches[0] : undefined;
}
