import * as fs from 'node:fs';
import * as path from 'node:path';
import { tarBytes, tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-mldf-memory-');
afterAll(() => scratch.remove());

const MEMBER = 256 << 10;

/** `shards` tar shards of `perShard` samples, each a 256 KiB `.bin` member and a `.cls`. */
function writeFold(dir: string, shards: number, perShard: number): number {
  fs.mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (let s = 0; s < shards; s++) {
    const entries = [];
    for (let i = 0; i < perShard; i++) {
      const key = `s${s}_${i}`;
      const data = new Uint8Array(MEMBER).fill((s * 31 + i) & 0xff);
      bytes += data.length;
      entries.push(
        { name: `${key}.bin`, data },
        { name: `${key}.cls`, data: new TextEncoder().encode(`${i}`) },
      );
    }
    fs.writeFileSync(path.join(dir, `train_${s}.tar`), tarBytes(entries));
  }
  return bytes;
}

/** Peak RSS (bytes) of `binscope convert DIR OUT --fold train`, sampled by a preloaded hook, and its sample count. */
function convertPeakRss(dir: string): { peak: number; samples: number } {
  const record = path.join(dir, 'maxrss.txt');
  const hook = path.join(dir, 'maxrss.cjs');
  fs.writeFileSync(
    hook,
    // Sampled here rather than read from resourceUsage(): a forked child's maxRSS starts at its parent's (vitest's).
    [
      'let peak = process.memoryUsage.rss();',
      'setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 10).unref();',
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, String(Math.max(peak, process.memoryUsage.rss()))));`,
    ].join('\n'),
  );
  const r = cli(['convert', dir, path.join(dir, 'out.mldf'), '--fold', 'train', '--json'], {
    nodeArgs: ['--require', hook],
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return { peak: Number(fs.readFileSync(record, 'utf8')), samples: JSON.parse(r.stdout).samples };
}

describe('tar shards → MLDF memory', () => {
  it('peak memory does not grow with the fold: 360 MB of members add less than 180 MB', () => {
    const small = path.join(scratch.dir, 'small');
    const big = path.join(scratch.dir, 'big');
    writeFold(small, 1, 8);
    const bigBytes = writeFold(big, 3, 480);
    expect(bigBytes).toBe(360 << 20);
    const base = convertPeakRss(small);
    const { peak, samples } = convertPeakRss(big);
    expect([base.samples, samples]).toEqual([8, 1440]);
    // Holding the fold's values would add at least bigBytes; streaming adds buffers of a few samples,
    // plus read buffers freed but not yet collected: V8 collects them after some tens of MB of
    // external allocation (measured ~40 MB on Node 20, ~65 MB on Node 22, whatever the fold's size),
    // so the fold is big enough for that slack to sit far below the bound.
    expect(peak - base.peak).toBeLessThan(bigBytes / 2);
  });
});
