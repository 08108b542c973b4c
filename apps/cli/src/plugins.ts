import { createRegistry, type LazyFormat, type Registry } from '@binscope/core';
import { mldfFormat } from '@binscope/mldf/magic';
import { scbfFormat } from '@binscope/scbf/magic';
import { scdlFormat } from '@binscope/scdl/magic';
import { tarShardFormat, taridxFormat } from '@binscope/taridx/magic';
import { udfFormat } from '@binscope/udf/magic';

/**
 * The formats the CLI knows: ONE list, from which detection, `--as`, every help text that
 * names formats and every verb derive. Each entry is the package's `/magic` entry (metadata
 * only) plus a loader, so a run imports the parser of the format it detected and no other.
 * Order breaks detection ties.
 */
export const FORMATS: readonly LazyFormat[] = [
  { ...scbfFormat, load: async () => (await import('@binscope/scbf')).scbfPlugin },
  { ...udfFormat, load: async () => (await import('@binscope/udf')).udfPlugin },
  { ...mldfFormat, load: async () => (await import('@binscope/mldf')).mldfPlugin },
  { ...taridxFormat, load: async () => (await import('@binscope/taridx')).taridxPlugin },
  { ...scdlFormat, load: async () => (await import('@binscope/scdl')).scdlPlugin },
];

/** What detection knows besides FORMATS: entries no plugin reads (a tar shard, read through its index). */
const DETECTED_ONLY = [tarShardFormat];

export const registry: Registry = createRegistry([...FORMATS, ...DETECTED_ONLY]);

/** A format a plugin reads (not a detection-only entry), by id. */
export function readableFormat(id: string): LazyFormat | undefined {
  return FORMATS.find((f) => f.id === id);
}

/** "SCBF (.scbf)", "SCDL (directory)": how help texts name a format. */
export function formatLabel(format: LazyFormat): string {
  const where = format.kind === 'directory' ? 'directory' : format.extensions.map((e) => `.${e}`).join(', ');
  return `${format.id.toUpperCase()} (${where})`;
}

/** "A, B, C and D". */
export function spokenList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
