/**
 * The worker's registry: `@binscope/formats`' one list (metadata now, each parser imported
 * on first use, so Vite splits every parser into its own chunk), plus the format plugins the
 * user loaded into this page. Nothing here names a format.
 */
import { type ConverterInfo, isBinscopeError, type Registry, type RegistryEntry } from '@binscope/core';
import { createFormatRegistry } from '@binscope/formats';
import type { FormatEntry } from '../protocol';

let extraFormats: RegistryEntry[] = [];
let extraConverters: ConverterInfo[] = [];
let current: Registry = createFormatRegistry();
/** Specifiers already imported: asking again (a page effect run twice) changes nothing. */
const loaded = new Set<string>();

export function registry(): Registry {
  return current;
}

/** The list the page names formats from: every entry, built-in and loaded. */
export function formatEntries(): FormatEntry[] {
  return current.formats.map((f) => ({
    id: f.id,
    title: f.title,
    kind: f.kind,
    role: f.role ?? 'format',
    extensions: [...f.extensions],
  }));
}

/**
 * Where a plugin module may come from. A `?plugin=` URL arrives in a link anyone can craft,
 * and the module runs with the page's rights (it sees every file opened here), so it must be
 * served by the page's own origin: whoever controls the site already controls its code. A
 * module the user picks from disk is allowed: choosing it is the user's own act (it is read
 * as a blob: URL).
 */
export function checkPluginUrl(url: string, origin: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    throw new Error(`plugin ${url}: not a URL`);
  }
  if (parsed.origin !== origin)
    throw new Error(
      `plugin ${parsed.href} refused: format plugins load only from this site (${origin}), since they run with the page's access to your files`,
    );
  return parsed;
}

/** What a plugin module offers: `formats`, `converters`, or a default entry (or list of them). */
function entriesOf(module: Record<string, unknown>): {
  formats: RegistryEntry[];
  converters: ConverterInfo[];
} {
  const list = (value: unknown) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
  const formats = [...list(module.formats), ...list(module.default)].filter(
    (e) => !(e && typeof e === 'object' && 'from' in e && 'to' in e),
  ) as RegistryEntry[];
  const converters = [
    ...list(module.converters),
    ...list(module.default).filter((e) => e && typeof e === 'object' && 'from' in e && 'to' in e),
  ] as ConverterInfo[];
  if (formats.length === 0 && converters.length === 0)
    throw new Error(
      'the module exports no format: export `formats` (lazy entries or plugins), `converters`, or a default entry',
    );
  return { formats, converters };
}

/**
 * Imports a plugin module and adds its entries in front of the built-in ones (so they can
 * claim what the built-in formats do not). The registry checks each entry's specification
 * version and shape; a module whose entries it refuses changes nothing.
 */
export async function loadPlugin(specifier: string, label = specifier): Promise<FormatEntry[]> {
  if (loaded.has(specifier)) return formatEntries();
  let module: Record<string, unknown>;
  try {
    module = await import(/* @vite-ignore */ specifier);
  } catch (error) {
    throw new Error(`plugin ${label} could not be imported: ${(error as Error).message}`);
  }
  const { formats, converters } = entriesOf(module);
  const ids = new Set(current.formats.map((f) => f.id));
  const clash = formats.find((f) => ids.has(f?.id));
  if (clash) throw new Error(`plugin ${label}: a format named "${clash.id}" is already registered`);
  let next: Registry;
  try {
    // The registry refuses entries of another specification version, saying which.
    next = createFormatRegistry({
      formats: [...formats, ...extraFormats],
      converters: [...converters, ...extraConverters],
    });
  } catch (error) {
    if (isBinscopeError(error)) throw new Error(`plugin ${label}: ${error.message}`);
    throw error;
  }
  loaded.add(specifier);
  extraFormats = [...formats, ...extraFormats];
  extraConverters = [...converters, ...extraConverters];
  current = next;
  return formatEntries();
}
