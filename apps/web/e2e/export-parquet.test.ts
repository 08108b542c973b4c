import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useSiteAndBrowser } from './browser';
import {
  cat,
  download,
  LARGE,
  nextPage,
  OPFS_PICKER,
  openData,
  ready,
  SAMPLE,
  SHOWN,
  WHOLE,
} from './export-helpers';

const PYTHON = process.env.BINSCOPE_PYTHON ?? 'python3';
const pyarrow = spawnSync(PYTHON, ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
const SCRIPT = join(import.meta.dirname, 'export-parquet.py');
const PARQUET = 'records → Parquet (.parquet)';

interface ReadBack {
  rows: number;
  columns: string[];
  types: string[];
  sample: Array<Record<string, unknown>>;
}

/** What pyarrow reads from the exported bytes: row count, columns, and the scalar values of some rows. */
function readBack(dir: string, bytes: Buffer, rows: number[]): ReadBack {
  const file = join(dir, `export-${rows.join('-')}.parquet`);
  writeFileSync(file, bytes);
  return JSON.parse(execFileSync(PYTHON, [SCRIPT, file, rows.join(',')], { encoding: 'utf8' }));
}

/** The same rows as the CLI prints them (JSON Lines), by index. */
function cliRows(file: string, rows: number[], ...args: string[]): Array<Record<string, unknown>> {
  const lines = cat(file, '--format', 'jsonl', ...args)
    .toString()
    .trimEnd()
    .split('\n');
  return rows.map((i) => JSON.parse(lines[i]));
}

/**
 * The Parquet export (the registry's converter from any format, offered because it is listed,
 * not named by the page) read back by pyarrow: the row count and values of the records exported.
 */
describe.skipIf(!ready || !pyarrow)('Export to Parquet, read by pyarrow', () => {
  const live = useSiteAndBrowser();
  const dir = mkdtempSync(join(tmpdir(), 'binscope-e2e-parquet-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function page(): Promise<Page> {
    const p = await live.browser.context.newPage();
    await p.addInitScript(OPFS_PICKER);
    await p.goto(live.site.url);
    await p.getByTestId('drop-zone').waitFor();
    return p;
  }

  it('SCBF: the whole table (100,000 rows) streamed into Parquet, and the shown fields of a page', async () => {
    const p = await page();
    await openData(p, LARGE);
    const whole = readBack(dir, await download(p, PARQUET, WHOLE), [0, 12_345, 99_999]);
    expect(whole.rows).toBe(100_000);
    expect(whole.columns).toEqual(['id', 'category', 'value', 'flag', 'label']);
    expect(whole.types).toEqual(['int32', 'string', 'double', 'int32', 'string']);
    expect(whole.sample).toEqual(cliRows(LARGE, [0, 12_345, 99_999]));

    await nextPage(p, '50–99', 50);
    await p
      .getByTestId('column-picker')
      .getByRole('checkbox', { name: /^flag\b/ })
      .uncheck();
    const shown = readBack(dir, await download(p, PARQUET, SHOWN), [0, 49]);
    expect(shown.rows).toBe(50);
    expect(shown.columns).toEqual(['id', 'category', 'value', 'label']);
    expect(shown.sample).toEqual(
      cliRows(LARGE, [0, 49], '--offset', '50', '-n', '50', '--columns', 'id,category,value,label'),
    );
    await p.close();
  });

  it('MLDF sample: every sample, with its scalar fields equal to `cat`', async () => {
    const p = await page();
    await openData(p, SAMPLE);
    const back = readBack(dir, await download(p, PARQUET, WHOLE), [0, 15]);
    expect(back.rows).toBe(16);
    expect(back.columns).toEqual(expect.arrayContaining(['label', 'score', 'image', 'caption', 'embedding']));
    const expected = cliRows(SAMPLE, [0, 15]).map((r) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => k in back.sample[0])),
    );
    expect(Object.keys(back.sample[0])).toEqual(expect.arrayContaining(['label', 'score', 'caption']));
    // A json field is stored as its JSON text (README, "Types in Parquet and Arrow").
    const parsed = back.sample.map((r) => ({ ...r, meta: JSON.parse(String(r.meta)) }));
    expect(parsed).toEqual(expected);
    await p.close();
  });
});
