import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formats } from '@binscope/formats';
import { describe, expect, it } from 'vitest';

const assets = join(import.meta.dirname, '..', 'dist', 'assets');

/**
 * A message only each format's parser (its read path) contains: where it lands is where the
 * parser is. Test data, kept beside the list: a format added to `@binscope/formats` fails the
 * first test until it gets a marker here.
 */
const PARSER_MARKERS: Record<string, string> = {
  mldf: 'allocation table is not sorted by ptr',
  scbf: 'schema_json must be an object with a',
  udf: 'lookup entries are not sorted by hash',
  taridx: 'no tar header at the row offset',
  scdl: 'ROWPTR has 0 entries',
  h5ad: 'neither X nor raw.X holds a matrix',
  parquet: 'a Parquet file has one table, not',
  // One plugin reads both Arrow IPC encodings, file and stream: one chunk holds both.
  arrow: 'decodes to nothing',
  arrows: 'decodes to nothing',
};

/** `parser-<ids joined by +>-<hash>.js`: the formats a parser chunk holds, by its name. */
function chunkFormats(chunk: string): string[] {
  return /^parser-([\w+]+)-/.exec(chunk)?.[1].split('+') ?? [];
}

/** Every format of the list that has a parser (detection-only entries have none). */
const parsed = formats.filter((f) => f.load).map((f) => f.id);

describe('lazy parsers in the built site', () => {
  const built = existsSync(assets);
  const chunks = built ? readdirSync(assets).filter((f) => f.endsWith('.js')) : [];
  const text = (chunk: string) => readFileSync(join(assets, chunk), 'utf8');

  it('has a marker for every format of the list that has a parser', () => {
    expect(Object.keys(PARSER_MARKERS).sort()).toEqual([...parsed].sort());
  });

  it("keeps every format's parser out of the worker entry, each in a chunk of its own named after it", () => {
    expect(built, 'run `vite build` first (the e2e script does)').toBe(true);
    const workers = chunks.filter((c) => c.startsWith('worker-'));
    expect(workers).toHaveLength(1);
    const worker = text(workers[0]);
    // The page's own bundle has no parser either (it asks the worker for the format list).
    const page = chunks
      .filter((c) => c.startsWith('index-'))
      .map(text)
      .join('\n');
    for (const format of parsed) {
      const marker = PARSER_MARKERS[format];
      expect(worker.includes(marker), `${format} parser inside the worker entry`).toBe(false);
      expect(page.includes(marker), `${format} parser inside the page bundle`).toBe(false);
      const holders = chunks.filter((c) => text(c).includes(marker));
      expect(holders, format).toHaveLength(1);
      expect(chunkFormats(holders[0]), format).toContain(format);
      // The worker imports it on demand, never statically.
      expect(worker).toContain(`import("./${holders[0]}")`);
      for (const other of parsed)
        if (!chunkFormats(holders[0]).includes(other))
          expect(text(holders[0]).includes(PARSER_MARKERS[other]), `${other} in ${holders[0]}`).toBe(false);
    }
  });
});
