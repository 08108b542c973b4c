import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Utf8Column } from '../src/index.js';
import { csvToScbf, extendScbfFile, openScbfFile, rewriteScbfFile } from '../src/node.js';

/**
 * Files with an extension footer read by the real upstream reader (bhuvanraj18/custom-columnar-format,
 * its `reader.py`), which follows block offsets only. Opt-in: set BINSCOPE_UPSTREAM_SCBF to a
 * checkout of that repository (python3 needed); nothing of it is in this repo.
 */
const upstream = process.env.BINSCOPE_UPSTREAM_SCBF;
const available = upstream !== undefined && fs.existsSync(path.join(upstream, 'reader.py'));
if (!available)
  console.warn('skipped: set BINSCOPE_UPSTREAM_SCBF to a checkout of the upstream SCBF repository');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scbf-upstream-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every column as upstream's read_all returns it, as JSON (Python floats print as JSON numbers). */
function upstreamColumns(file: string): Record<string, unknown[]> {
  const script = [
    'import json, sys',
    'sys.path.insert(0, sys.argv[1])',
    'from reader import read_all',
    'names, rows = read_all(sys.argv[2])',
    'print(json.dumps({n: [r[i] for r in rows] for i, n in enumerate(names)}))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script, upstream as string, file], { encoding: 'utf8' }));
}

async function blockColumns(file: string): Promise<Record<string, unknown[]>> {
  const reader = await openScbfFile(file);
  const out: Record<string, unknown[]> = {};
  for (const column of reader.columns) {
    const values = await reader.readColumn(column.index);
    out[column.name] = values instanceof Utf8Column ? values.toArray() : Array.from(values);
  }
  await reader.close();
  return out;
}

describe.runIf(available)('upstream reader on files with extensions', () => {
  it('reads checksums + statistics, null bitmaps and dictionary files through block offsets', async () => {
    const lines = ['id,kind,score,note'];
    for (let i = 0; i < 40; i++)
      lines.push(`${i},${['cat', 'dog', '"x,y"', 'émû'][i % 4]},${i % 7 === 0 ? '' : `${i}.25`},n${i}`);
    const csv = path.join(dir, 'in.csv');
    fs.writeFileSync(csv, `${lines.join('\n')}\n`);
    const plain = path.join(dir, 'plain.scbf');
    await csvToScbf(csv, plain);
    const files = { ext: '', nulls: '', dict: '' };
    for (const name of Object.keys(files) as (keyof typeof files)[])
      files[name] = path.join(dir, `${name}.scbf`);
    await extendScbfFile(plain, files.ext);
    await rewriteScbfFile(plain, files.nulls, { nulls: true });
    await rewriteScbfFile(plain, files.dict, { nulls: true, dictionary: 'auto' });
    const plainColumns = upstreamColumns(plain);
    expect(upstreamColumns(files.ext)).toEqual(plainColumns);
    for (const file of Object.values(files)) expect(upstreamColumns(file)).toEqual(await blockColumns(file));
    // Upstream sees the placeholders and the codes, as documented.
    expect(upstreamColumns(files.nulls).score[0]).toBe(0);
    expect(upstreamColumns(files.dict).kind.slice(0, 5)).toEqual([0, 1, 2, 3, 0]);
  });
});
