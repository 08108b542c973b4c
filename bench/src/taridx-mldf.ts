import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { indexShards, openTaridx } from '@binscope/taridx';
import { MemorySource } from '@binscope/core';
import { TarWriter } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';
import { convertTaridxToMldfFile } from '@binscope/taridx-mldf/node';
import type { Bench } from './harness.js';

const SHARDS = 4;
const FOLD = 'train';
const SIDE = 32;

/** Shards of `samples` samples: a 32×32 RGB PNG, a ~150 B .json and a .cls each. */
function generate(dir: string, samples: number): number {
  const encoder = new TextEncoder();
  const pngs = Array.from({ length: 16 }, (_, k) => {
    const data = new Uint8Array(SIDE * SIDE * 3).map((_, i) => (i * (k + 3) + (i >> 5) * 11) & 0xff);
    return encodePng({ width: SIDE, height: SIDE, data, channels: 3, depth: 8 });
  });
  let total = 0;
  const perShard = Math.ceil(samples / SHARDS);
  for (let s = 0; s < SHARDS; s++) {
    const chunks: Uint8Array[] = [];
    const writer = new TarWriter((chunk) => chunks.push(chunk.slice()));
    for (let i = s * perShard; i < Math.min(samples, (s + 1) * perShard); i++) {
      const key = `s${String(i).padStart(7, '0')}`;
      writer.add({ name: `${key}.png`, data: pngs[i % pngs.length] });
      writer.add({
        name: `${key}.json`,
        data: encoder.encode(JSON.stringify({ key, caption: 'y'.repeat(100 + (i % 50)) })),
      });
      writer.add({ name: `${key}.cls`, data: encoder.encode(String(i % 1000)) });
    }
    writer.end();
    const file = path.join(dir, `${FOLD}_${s}.tar`);
    fs.writeFileSync(file, Buffer.concat(chunks));
    total += fs.statSync(file).size;
  }
  return total;
}

/** Every shard byte, read sequentially in 4 MiB chunks: what any conversion must at least do. */
function rawRead(files: readonly string[]): number {
  const buffer = new Uint8Array(4 << 20);
  let total = 0;
  for (const file of files) {
    const fd = fs.openSync(file, 'r');
    try {
      for (let n = 1; n > 0; total += n) n = fs.readSync(fd, buffer, 0, buffer.length, null);
    } finally {
      fs.closeSync(fd);
    }
  }
  return total;
}

export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('taridx-mldf');
  const samples = b.n(20_000, 100);
  const bytes = generate(dir, samples);
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.tar'))
    .sort()
    .map((f) => path.join(dir, f));
  const directory = new NodeDirectory(dir);
  const { bytes: index } = await indexShards({ directory, fold: FOLD });
  process.stderr.write(
    `  taridx → mldf: ${samples} samples in ${SHARDS} shards, ${(bytes / 1e6).toFixed(1)} MB\n`,
  );
  const convert = (keepEncoded: boolean) => async () => {
    const reader = await openTaridx(new MemorySource(index, `${FOLD}.taridx`), { shards: directory });
    await convertTaridxToMldfFile(reader, path.join(dir, 'out.mldf'), { keepEncoded });
    await reader.close();
  };
  const floor = { name: 'raw read of the shards', run: () => rawRead(files) };
  await b.compare(
    {
      format: 'taridx→mldf',
      operation: 'convert, PNGs decoded (samples/s)',
      items: samples,
      note: '32×32 RGB PNG + .json + .cls per sample',
    },
    convert(false),
    floor,
  );
  await b.compare(
    { format: 'taridx→mldf', operation: 'convert --keep-encoded (samples/s)', items: samples },
    convert(true),
    floor,
  );
  await directory.close();
}
