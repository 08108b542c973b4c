import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type ConverterInfo,
  createRegistry,
  isBinscopeError,
  RegistryError,
  type RegistryEntry,
} from '@binscope/core';
import { resolve as resolveModule } from 'import-meta-resolve';

/** What the `--plugin` modules add to the format list. */
export interface PluginModules {
  formats: RegistryEntry[];
  converters: ConverterInfo[];
}

/**
 * The module specs to load: every `--plugin SPEC` / `--plugin=SPEC` on the command line
 * (before a `--`), after those of BINSCOPE_PLUGINS (comma- or path-delimiter-separated).
 * Read before the program is built, because the help and the verbs derive from the list.
 */
export function pluginSpecs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const specs = (env.BINSCOPE_PLUGINS ?? '')
    .split(',')
    .flatMap((s) => s.split(path.delimiter))
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') break;
    if (arg === '--plugin' && i + 1 < args.length) specs.push(args[++i]);
    else if (arg.startsWith('--plugin=')) specs.push(arg.slice('--plugin='.length));
  }
  return specs;
}

/** `./x.mjs`, `../x`, `/abs/x.mjs`: a file; anything else is a package name (or its subpath). */
function isPathSpec(spec: string): boolean {
  return spec.startsWith('.') || path.isAbsolute(spec);
}

function failed(spec: string, why: string, cause?: unknown): RegistryError {
  return new RegistryError('PluginLoadFailed', spec, `--plugin ${spec}: ${why}`, { cause });
}

/** A package name is resolved from the current folder, as `import` there would; a path too. */
function moduleUrl(spec: string, cwd: string): string {
  const parent = pathToFileURL(path.join(cwd, 'binscope-plugin-parent.js')).href;
  if (isPathSpec(spec)) return pathToFileURL(path.resolve(cwd, spec)).href;
  try {
    return resolveModule(spec, parent);
  } catch (error) {
    throw failed(
      spec,
      `cannot find the package from ${cwd} (${(error as Error).message.split('\n')[0]})`,
      error,
    );
  }
}

function isConverter(value: unknown): value is ConverterInfo {
  const v = value as Partial<ConverterInfo> | null;
  return typeof v === 'object' && v !== null && typeof v.from === 'string' && typeof v.to === 'string';
}

function isEntry(value: unknown): value is RegistryEntry {
  const v = value as Partial<RegistryEntry> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && Array.isArray(v.magic);
}

/**
 * What a module contributes: its `formats` and `converters` arrays, or a `default` export
 * that is one plugin or lazy entry, or `{ formats, converters }`. Entries are checked by the
 * registry (specification version, ids) when it is built.
 */
function contributions(spec: string, module: Record<string, unknown>): PluginModules {
  let source: Record<string, unknown> = module;
  if (!Array.isArray(module.formats) && !Array.isArray(module.converters) && module.default !== undefined) {
    const fallback = module.default as Record<string, unknown>;
    source = isEntry(fallback) ? { formats: [fallback] } : fallback;
  }
  const formats = (source?.formats ?? []) as unknown[];
  const converters = (source?.converters ?? []) as unknown[];
  if (!Array.isArray(formats) || !Array.isArray(converters))
    throw failed(spec, '`formats` and `converters` must be arrays');
  const badFormat = formats.find((f) => !isEntry(f));
  if (badFormat !== undefined)
    throw failed(spec, 'an entry of `formats` is not a format (it needs an id and magic signatures)');
  if (converters.some((c) => !isConverter(c)))
    throw failed(spec, 'an entry of `converters` is not a converter (it needs from and to)');
  if (formats.length + converters.length === 0)
    throw failed(
      spec,
      'the module exports no format or converter (export `formats` / `converters` arrays, or a default plugin)',
    );
  return { formats: formats as RegistryEntry[], converters: converters as ConverterInfo[] };
}

/** Imports the plugin modules, in order; a module that cannot be used is a RegistryError naming it. */
/**
 * Checks one module's entries as the registry will (contract version), and that no format
 * takes an id a built-in one has: two entries with one id would detect as one, load as the other.
 */
function checkContributions(spec: string, found: PluginModules, taken: ReadonlySet<string>): void {
  const clash = found.formats.find((f) => taken.has(f.id));
  if (clash)
    throw failed(
      spec,
      `format id "${clash.id}" is already a built-in format; a plugin must use an id of its own`,
    );
  try {
    createRegistry(found.formats, found.converters);
  } catch (error) {
    if (!isBinscopeError(error, 'RegistryError')) throw error;
    throw new RegistryError(error.code, spec, `--plugin ${spec}: ${error.message}`, { cause: error });
  }
}

export async function loadPluginModules(
  specs: readonly string[],
  cwd: string = process.cwd(),
  taken: ReadonlySet<string> = new Set(),
): Promise<PluginModules> {
  const out: PluginModules = { formats: [], converters: [] };
  for (const spec of specs) {
    const url = moduleUrl(spec, cwd);
    let module: Record<string, unknown>;
    try {
      module = (await import(url)) as Record<string, unknown>;
    } catch (error) {
      const why = (error as Error)?.message?.split('\n')[0] ?? String(error);
      throw failed(spec, `cannot import it: ${why}`, error);
    }
    const found = contributions(spec, module);
    checkContributions(spec, found, taken);
    out.formats.push(...found.formats);
    out.converters.push(...found.converters);
  }
  return out;
}
