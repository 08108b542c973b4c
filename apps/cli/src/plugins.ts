import { type AnyFormatPlugin, createRegistry, type Registry } from '@binscope/core';

/** The format packages the CLI knows, and the name each exports its plugin under. */
export const FORMAT_PACKAGES = [
  { id: 'scbf', packageName: '@binscope/scbf', exportName: 'scbfPlugin' },
  { id: 'udf', packageName: '@binscope/udf', exportName: 'udfPlugin' },
  { id: 'mldf', packageName: '@binscope/mldf', exportName: 'mldfPlugin' },
  { id: 'taridx', packageName: '@binscope/taridx', exportName: 'taridxPlugin' },
  { id: 'scdl', packageName: '@binscope/scdl', exportName: 'scdlPlugin' },
] as const;

export interface LoadedPlugins {
  registry: Registry;
  /** Packages that could not be loaded, with why: their formats are then not recognised. */
  missing: Array<{ id: string; packageName: string; reason: string }>;
}

function isPlugin(value: unknown): value is AnyFormatPlugin {
  const p = value as Partial<AnyFormatPlugin> | undefined;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.id === 'string' &&
    Array.isArray(p.magic) &&
    typeof p.open === 'function' &&
    typeof p.validate === 'function' &&
    typeof p.records === 'function'
  );
}

function shortReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND') return 'not installed or not built';
  return ((error as Error)?.message ?? String(error)).split('\n')[0];
}

let loaded: Promise<LoadedPlugins> | undefined;
let warn: (line: string) => void = () => {};

/** Where to say that a format package could not be loaded (stderr, once per run). */
export function onPluginMissing(sink: (line: string) => void): void {
  warn = sink;
}

/**
 * Loads every format package on its own, so one broken or absent package costs only its
 * own format (and says so) instead of taking the whole command down.
 */
export function loadPlugins(): Promise<LoadedPlugins> {
  loaded ??= (async () => {
    const plugins: AnyFormatPlugin[] = [];
    const missing: LoadedPlugins['missing'] = [];
    const modules = await Promise.allSettled(
      FORMAT_PACKAGES.map(
        (p) => import(/* @vite-ignore */ p.packageName) as Promise<Record<string, unknown>>,
      ),
    );
    modules.forEach((result, i) => {
      const { id, packageName, exportName } = FORMAT_PACKAGES[i];
      if (result.status === 'rejected') {
        missing.push({ id, packageName, reason: shortReason(result.reason) });
      } else if (!isPlugin(result.value[exportName])) {
        missing.push({ id, packageName, reason: `it does not export a format plugin named ${exportName}` });
      } else {
        plugins.push(result.value[exportName] as AnyFormatPlugin);
      }
    });
    for (const m of missing)
      warn(`warning: ${m.packageName} is not available (${m.reason}); ${m.id} files are not recognised`);
    return { registry: createRegistry(plugins), missing };
  })();
  return loaded;
}
