/**
 * The worker's registry: the site's format list, each with a loader that imports the
 * package's browser-safe main entry (never `/node`) on first use. Detection needs only the
 * metadata, so Vite splits every parser into its own chunk and a session fetches the one
 * it detected.
 */
import { type AnyFormatPlugin, createRegistry } from '@binscope/core';
import { tarShardFormat } from '@binscope/taridx/magic';
import { FORMAT_INFOS } from '../format-list';

const LOADERS: Record<string, () => Promise<AnyFormatPlugin>> = {
  scbf: async () => (await import('@binscope/scbf')).scbfPlugin,
  udf: async () => (await import('@binscope/udf')).udfPlugin,
  mldf: async () => (await import('@binscope/mldf')).mldfPlugin,
  taridx: async () => (await import('@binscope/taridx')).taridxPlugin,
  scdl: async () => (await import('@binscope/scdl')).scdlPlugin,
};

export const registry = createRegistry([
  ...FORMAT_INFOS.map((info) => {
    const load = LOADERS[info.id];
    if (!load) throw new Error(`no parser loader for the ${info.id} format`);
    return { ...info, load };
  }),
  // Detected only: a tar shard is read through its index.
  tarShardFormat,
]);
