import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { indexShards, type TaridxMember, type TaridxReader } from '@binscope/taridx';
import { openTaridxFile } from '@binscope/taridx/node';
import { TarWriter } from '@binscope/testkit';
import { type Bench, RUNS_NEAR_GOAL } from './harness.js';

const SHARDS = 8;
const FOLD = 'train';

/** Deterministic 32-bit PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const keyOf = (i: number) => `s${String(i).padStart(7, '0')}`;

/**
 * WebDataset-style shards: `samples` samples over 8 shards, each a 2–20 KiB .jpg, a ~200 B
 * .json and a tiny .cls, written with the testkit tar writer through a 4 MiB buffer.
 */
export function generate(dir: string, samples: number): number {
  const random = prng(6);
  const pool = new Uint8Array(1 << 20);
  for (let i = 0; i < pool.length; i++) pool[i] = (random() * 256) | 0;
  const encoder = new TextEncoder();
  let total = 0;
  const perShard = Math.ceil(samples / SHARDS);
  for (let s = 0; s < SHARDS; s++) {
    const fd = fs.openSync(path.join(dir, `${FOLD}_${String(s).padStart(4, '0')}.tar`), 'w');
    const buffer = new Uint8Array(4 << 20);
    let used = 0;
    const flush = () => {
      fs.writeSync(fd, buffer, 0, used);
      used = 0;
    };
    const writer = new TarWriter((chunk) => {
      if (used + chunk.byteLength > buffer.byteLength) flush();
      if (chunk.byteLength > buffer.byteLength) fs.writeSync(fd, chunk);
      else {
        buffer.set(chunk, used);
        used += chunk.byteLength;
      }
    });
    for (let i = s * perShard; i < Math.min(samples, (s + 1) * perShard); i++) {
      const key = keyOf(i);
      const jpg = 2048 + Math.floor(random() * (18 * 1024));
      const start = Math.floor(random() * (pool.length - jpg));
      writer.add({ name: `${key}.jpg`, data: pool.subarray(start, start + jpg) });
      const json = JSON.stringify({
        key,
        label: i % 1000,
        caption: 'x'.repeat(120 + (i % 80)),
        w: 224,
        h: 224,
      });
      writer.add({ name: `${key}.json`, data: encoder.encode(json) });
      writer.add({ name: `${key}.cls`, data: encoder.encode(String(i % 1000)) });
    }
    writer.end();
    flush();
    total += writer.position;
    // On disk before timing starts: the kernel's writeback of 1.4 GB of dirty pages would
    // otherwise run during the first measurements and slow whichever side it lands on.
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  }
  return total;
}

/** The floor for indexing: 512-byte readSync at each header, octal size, seek on; no names, no hashing. */
export function bareHeaderWalk(files: string[]): number {
  const block = Buffer.alloc(512);
  let headers = 0;
  for (const file of files) {
    const fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    let offset = 0;
    while (offset + 512 <= size) {
      if (fs.readSync(fd, block, 0, 512, offset) < 512 || block[0] === 0) break;
      let memberSize = 0;
      for (let i = 124; i < 135 && block[i] >= 0x30; i++) memberSize = memberSize * 8 + block[i] - 0x30;
      headers++;
      offset += 512 + Math.ceil(memberSize / 512) * 512;
    }
    fs.closeSync(fd);
  }
  return headers;
}

export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('taridx');
  const samples = b.n(100_000, 100);
  const lookups = b.n(100_000, 100);
  const shardBytes = generate(dir, samples);
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.tar'))
    .sort()
    .map((f) => path.join(dir, f));
  process.stderr.write(
    `  taridx: ${samples} samples in ${SHARDS} shards, ${(shardBytes / 1e9).toFixed(2)} GB\n`,
  );

  const index = async () => {
    const directory = new NodeDirectory(dir);
    const result = await indexShards({ directory, fold: FOLD });
    await directory.close();
    return result;
  };
  const built = await index();
  fs.writeFileSync(path.join(dir, `${FOLD}.taridx`), built.bytes);
  const items = built.rows;

  await b.compare(
    {
      format: 'taridx',
      operation: 'index shards (vs tar -tf)',
      items,
      goal: '≤ 1.0',
      runs: RUNS_NEAR_GOAL,
      allocation: { count: items, unit: 'header' },
    },
    index,
    {
      name: 'tar -tf',
      run: () => {
        for (const file of files) {
          const out = spawnSync('tar', ['-tf', file], { stdio: ['ignore', 'ignore', 'inherit'] });
          if (out.status !== 0) throw new Error(`tar -tf ${file} failed`);
        }
      },
    },
  );
  await b.compare(
    {
      format: 'taridx',
      operation: 'index shards (vs header walk)',
      items,
      goal: '≤ 1.3',
      runs: RUNS_NEAR_GOAL,
      allocation: { count: items, unit: 'header' },
    },
    index,
    {
      name: 'readSync header walk',
      run: () => bareHeaderWalk(files),
    },
  );

  await b.measure(
    { format: 'taridx', operation: 'open + load index', items, bytes: built.bytes.byteLength },
    async () => {
      const reader = await openTaridxFile(path.join(dir, `${FOLD}.taridx`));
      await reader.load();
      await reader.close();
    },
  );

  const reader: TaridxReader = await openTaridxFile(path.join(dir, `${FOLD}.taridx`));
  await reader.load();
  const random = prng(11);
  const picks = Array.from({ length: lookups }, () => Math.floor(random() * samples));
  const sampleCount = await reader.sampleCount();

  // The floor reads exactly the payload ranges of the same members, positionally, into one buffer.
  const fds = files.map((f) => fs.openSync(f, 'r'));
  const ranges: number[] = [];
  let payloadBytes = 0;
  for (const pick of picks) {
    for (const m of (await reader.sample(pick % sampleCount)).members as TaridxMember[]) {
      ranges.push(m.fid, m.offset + 512, m.size);
      payloadBytes += m.size;
    }
  }
  const scratch = Buffer.alloc(1 << 20);
  const bareReads = () => {
    for (let i = 0; i < ranges.length; i += 3)
      fs.readSync(fds[ranges[i]], scratch, 0, ranges[i + 2], ranges[i + 1]);
  };

  await b.compare(
    {
      format: 'taridx',
      operation: 'random samples read whole',
      items: lookups,
      bytes: payloadBytes,
      goal: '≤ 1.2',
      runs: RUNS_NEAR_GOAL,
      allocation: { count: lookups, unit: 'sample' },
    },
    async () => {
      for (const pick of picks)
        await reader.readSample(await reader.sample(pick % sampleCount), { reuse: true });
    },
    { name: 'positional reads of the payloads', run: bareReads },
  );

  // The same reads, the one method answering at once (local files): no promise per sample.
  await b.compare(
    {
      format: 'taridx',
      operation: 'random samples read whole (answered at once)',
      items: lookups,
      bytes: payloadBytes,
      goal: '≤ 1.2',
      runs: RUNS_NEAR_GOAL,
      allocation: { count: lookups, unit: 'sample' },
    },
    async () => {
      const options = { reuse: true };
      for (const pick of picks) {
        const sample = reader.sample(pick % sampleCount);
        const got = reader.readSample(sample instanceof Promise ? await sample : sample, options);
        if (got instanceof Promise) await got;
      }
    },
    { name: 'positional reads of the payloads', run: bareReads },
  );

  const keys = picks.map(keyOf);
  await b.compare(
    {
      format: 'taridx',
      operation: 'key lookups → payloads',
      items: lookups,
      bytes: payloadBytes,
      goal: '≥ 50,000 keys/s',
      allocation: { count: lookups, unit: 'key' },
    },
    async () => {
      for (const key of keys) {
        if (!(await reader.get(key, { reuse: true }))) throw new Error(`key ${key} not found`);
      }
    },
    { name: 'positional reads of the payloads', run: bareReads },
  );

  for (const fd of fds) fs.closeSync(fd);
  await reader.close();
}
