import { compareValue, type WhereCondition } from '@binscope/core';
import { dictionaryRange } from './dictionary.js';
import type { ScbfReader } from './read.js';
import type { ColumnStatistics } from './statistics.js';

/**
 * `--where` push-down (capabilities.filter): the language and row test are core's (parseWhere);
 * what SCBF adds is skipping. A column's statistics (extension kind 2), or a dictionary
 * column's strings, can prove that no value meets a condition: then no column block is read.
 */

/**
 * False when the column's statistics prove no value can satisfy the comparison, so its
 * block never has to be read. True when unsure.
 */
export function mayMatch(c: WhereCondition, stats: ColumnStatistics | undefined): boolean {
  if (!stats || c.op === '!=') return true;
  const lo = stats.type === 'utf8' ? stats.minText : stats.min;
  const hi = stats.type === 'utf8' ? stats.maxText : stats.max;
  // No range: an empty column (or NaN only), where no ordered comparison can hold.
  if (lo === undefined || hi === undefined) return false;
  switch (c.op) {
    case '=':
      return compareValue(lo, c.value) <= 0 && compareValue(hi, c.value) >= 0;
    case '<':
      return compareValue(lo, c.value) < 0;
    case '<=':
      return compareValue(lo, c.value) <= 0;
    case '>':
      return compareValue(hi, c.value) > 0;
    case '>=':
      return compareValue(hi, c.value) >= 0;
  }
}

/**
 * Why no row can match, when the file's statistics (or a dictionary's strings) prove it:
 * `statistics of "id" exclude id > 10`. Undefined when some row may match.
 */
export function excludedBy(reader: ScbfReader, conditions: readonly WhereCondition[]): string | undefined {
  const footer = reader.footer.extensions;
  // A dictionary column's statistics describe its codes: its strings' range comes from the dictionary.
  const statsOf = (name: string) => {
    const index = reader.column(name).index;
    const dictionary = footer?.dictionaries?.get(index);
    return dictionary ? dictionaryRange(dictionary) : footer?.statistics?.[index];
  };
  const excluded = conditions.find((c) => !mayMatch(c, statsOf(c.column)));
  if (!excluded) return undefined;
  return `statistics of "${excluded.column}" exclude ${excluded.column} ${excluded.op} ${JSON.stringify(excluded.value)}`;
}
