import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMldfFile } from '@binscope/mldf/node';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliFirstLines, STACK_LINE } from './helpers.js';

/**
 * The streaming contracts: `cat` runs in bounded memory however large the output, stops
 * when its reader goes away, and `head` reads only what it prints. Checked by behaviour
 * (heap limit, bytes read), never by time.
 */
const scratch = tempDir('binscope-cli-stream-');
afterAll(() => scratch.remove());

/** Counts what a CLI run reads from one file (not the CLI's own code, which Node 22's loader reads through fs too). */
const COUNT_READS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'count-reads.cjs');
const ROWS = 1_000_000;
const PAYLOAD = 32 * 1024;
/** What a reader may read ahead and still be "reading only what it prints". */
const READ_AHEAD = 8 * 1024 * 1024;
let bigScbf: string;
let bigMldf: string;

beforeAll(async () => {
  // A table whose JSON Lines (~45 MB) cannot fit the 32 MB heap the CLI gets below.
  const csv = path.join(scratch.dir, 'big.csv');
  const fd = fs.openSync(csv, 'w');
  fs.writeSync(fd, 'id,label,score\n');
  let chunk = '';
  for (let i = 0; i < ROWS; i++) {
    chunk += `${i},item_${i % 997},${(i % 1000) + 0.5}\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  bigScbf = path.join(scratch.dir, 'big.scbf');
  const converted = cli(['convert', csv, bigScbf]);
  if (converted.code !== 0) throw new Error(`could not make the big SCBF file: ${converted.stderr}`);

  // ~64 MB of samples: reading all of it would show in the byte count.
  bigMldf = path.join(scratch.dir, 'big.mldf');
  const payload = new Uint8Array(PAYLOAD).fill(7);
  await writeMldfFile(
    bigMldf,
    [
      { name: 'label', type: 'INT' },
      { name: 'payload', type: 'BYTES' },
    ],
    (function* () {
      for (let i = 0; i < 2000; i++) yield { label: i, payload };
    })(),
  );
});

describe('streaming output', () => {
  it(`cat of ${ROWS.toLocaleString('en-US')} rows runs in a 32 MB heap`, () => {
    const r = cli(['cat', bigScbf], { nodeArgs: ['--max-old-space-size=32'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(STACK_LINE);
    const text = r.stdout;
    expect(text.length).toBeGreaterThan(32 * 1024 * 1024);
    let lines = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
    expect(lines).toBe(ROWS);
    expect(JSON.parse(text.slice(0, text.indexOf('\n')))).toEqual({ id: 0, label: 'item_0', score: 0.5 });
  });

  it('cat stops cleanly when its reader goes away (| head)', async () => {
    const r = await cliFirstLines(['cat', bigScbf], 5);
    expect(r.lines).toHaveLength(5);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr.trim()).toBe('');
  });

  it('head reads only the records it prints', () => {
    const counter = path.join(scratch.dir, 'reads.txt');
    const size = fs.statSync(bigMldf).size;
    const head = cli(['head', bigMldf, '-n', '3'], {
      nodeArgs: ['--require', COUNT_READS],
      env: { BINSCOPE_COUNT_READS: counter, BINSCOPE_COUNT_READS_OF: bigMldf },
    });
    expect(head.code, head.stderr).toBe(0);
    expect(head.stdout.trim().split('\n')).toHaveLength(3);
    const headBytes = Number(fs.readFileSync(counter, 'utf8'));
    expect(headBytes).toBeGreaterThan(0);
    expect(headBytes).toBeLessThan(READ_AHEAD);
    expect(size).toBeGreaterThan(6 * READ_AHEAD);

    // The counter does see whole-file reads: cat reads every sample.
    const all = cli(['cat', bigMldf], {
      nodeArgs: ['--require', COUNT_READS],
      env: { BINSCOPE_COUNT_READS: counter, BINSCOPE_COUNT_READS_OF: bigMldf },
    });
    expect(all.code).toBe(0);
    expect(Number(fs.readFileSync(counter, 'utf8'))).toBeGreaterThan(size * 0.9);
  });

  it('a window (--offset K -n N) far into the file reads little more than the window', () => {
    const counter = path.join(scratch.dir, 'reads-window.txt');
    const r = cli(['cat', bigMldf, '--offset', '1500', '-n', '2'], {
      nodeArgs: ['--require', COUNT_READS],
      env: { BINSCOPE_COUNT_READS: counter, BINSCOPE_COUNT_READS_OF: bigMldf },
    });
    expect(r.code, r.stderr).toBe(0);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((x) => x.sample)).toEqual([1500, 1501]);
    expect(records[0].label).toBe(1500);
    expect(records[0].payload).toMatchObject({
      size: PAYLOAD,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Number(fs.readFileSync(counter, 'utf8'))).toBeLessThan(READ_AHEAD);
  });
});
