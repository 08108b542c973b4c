import type { JsonValue, Summary } from '@binscope/core';
import { dictionaryRange } from './dictionary.js';
import { extensionsOf } from './extend.js';
import type { FooterWarning } from './extensions.js';
import type { ScbfReader } from './read.js';
import type { ColumnStatistics } from './statistics.js';

function describe(s: ColumnStatistics): string {
  const parts = [`nulls ${s.nullCount}`, `~${s.distinct} distinct`];
  if (s.type === 'utf8') {
    if (s.minText !== undefined)
      parts.unshift(
        `min ${JSON.stringify(s.minText)}`,
        `max ${JSON.stringify(s.maxText)}`,
        `length ${s.minLength}..${s.maxLength} bytes`,
      );
  } else if (s.min !== undefined) parts.unshift(`min ${s.min}`, `max ${s.max}`);
  return parts.join(', ');
}

/** A dictionary column: its strings' range, then what the footer says about its codes. */
function describeDictionary(dictionary: readonly string[], codes: ColumnStatistics): string {
  const range = dictionaryRange(dictionary);
  const text =
    range.minText === undefined
      ? 'empty'
      : `min ${JSON.stringify(range.minText)}, max ${JSON.stringify(range.maxText)}`;
  return `dictionary of ${dictionary.length} strings (${text}); codes: ${describe(codes)}`;
}

/**
 * `info` with the extension footer: which extensions the file carries and each column's
 * statistics. An unreadable footer is reported as such here; validate says why.
 */
export async function withExtensions(summary: Summary, reader: ScbfReader): Promise<Summary> {
  const warnings: FooterWarning[] = [];
  let footer: Awaited<ReturnType<typeof extensionsOf>>;
  try {
    footer = await extensionsOf(reader, warnings);
  } catch (error) {
    summary.properties.push(['extensions', `unreadable footer (${(error as Error).message}); run validate`]);
    return summary;
  }
  if (!footer) {
    summary.properties.push(['extensions', 'none']);
    return summary;
  }
  const names = [
    footer.checksums
      ? `block checksums (CRC32, ${footer.checksums.length} blocks; validate verifies)`
      : undefined,
    footer.statistics ? 'statistics' : undefined,
    footer.nulls?.size
      ? `null bitmaps (${[...footer.nulls.keys()].map((i) => reader.columns[i].name).join(', ')})`
      : undefined,
    footer.dictionaries?.size
      ? `dictionary encoding (${[...footer.dictionaries.keys()].map((i) => reader.columns[i].name).join(', ')}: stored as int32 codes, which upstream readers return instead of the strings)`
      : undefined,
    ...footer.skipped.map((r) => `unknown kind ${r.kind} v${r.version} (ignored)`),
  ].filter(Boolean);
  summary.properties.push(['extensions', `footer v${footer.footerVersion}: ${names.join(', ') || 'empty'}`]);
  const stats: JsonValue[] = [];
  footer.statistics?.forEach((s, i) => {
    const name = reader.columns[i].name;
    const dictionary = footer.dictionaries?.get(i);
    summary.properties.push([`stats ${name}`, dictionary ? describeDictionary(dictionary, s) : describe(s)]);
    stats.push({ column: name, ...(JSON.parse(JSON.stringify(s)) as Record<string, JsonValue>) });
  });
  const details = (summary.details ?? {}) as Record<string, JsonValue>;
  details.extensions = {
    footerVersion: footer.footerVersion,
    checksums: footer.checksums ? footer.checksums.length : null,
    statistics: stats,
    dictionaries: [...(footer.dictionaries ?? new Map<number, string[]>())].map(([i, entries]) => ({
      column: reader.columns[i].name,
      entries: entries.length,
    })),
    skipped: footer.skipped.map((r) => ({ kind: r.kind, version: r.version })),
  };
  summary.details = details;
  return summary;
}
