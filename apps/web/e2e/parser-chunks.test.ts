import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMAT_INFOS } from '../src/format-list';

const assets = join(import.meta.dirname, '..', 'dist', 'assets');

/** A message only each format's parser (its read path) contains: where it lands is where the parser is. */
const PARSER_MARKERS: Record<string, string> = {
  mldf: 'allocation table is not sorted by ptr',
  scbf: 'schema_json must be an object with a',
  udf: 'lookup entries are not sorted by hash',
  taridx: 'no tar header at the row offset',
  scdl: 'ROWPTR has 0 entries',
};

describe('lazy parsers in the built site', () => {
  const built = existsSync(assets);
  const chunks = built ? readdirSync(assets).filter((f) => f.endsWith('.js')) : [];
  const text = (chunk: string) => readFileSync(join(assets, chunk), 'utf8');

  it('has a marker for every format the site knows', () => {
    expect(Object.keys(PARSER_MARKERS).sort()).toEqual(FORMAT_INFOS.map((f) => f.id).sort());
  });

  it("keeps every format's parser out of the worker entry, each in a chunk of its own", () => {
    expect(built, 'run `vite build` first (the e2e script does)').toBe(true);
    const workers = chunks.filter((c) => c.startsWith('worker-'));
    expect(workers).toHaveLength(1);
    const worker = text(workers[0]);
    for (const [format, marker] of Object.entries(PARSER_MARKERS)) {
      expect(worker.includes(marker), `${format} parser inside the worker entry`).toBe(false);
      const holders = chunks.filter((c) => text(c).includes(marker));
      expect(holders, format).toHaveLength(1);
      expect(holders[0], format).toMatch(new RegExp(`^parser-${format}-`));
      // The worker imports it on demand, never statically.
      expect(worker).toContain(`import("./${holders[0]}")`);
      for (const [other, otherMarker] of Object.entries(PARSER_MARKERS))
        if (other !== format)
          expect(text(holders[0]).includes(otherMarker), `${other} in ${holders[0]}`).toBe(false);
    }
  });
});
