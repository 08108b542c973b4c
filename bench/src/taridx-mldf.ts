import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeDirectory } from '@binscope/core/node';
import { indexShards, openTaridx } from '@binscope/taridx';
import { MemorySource } from '@binscope/core';
import { jpegBytes, TarWriter } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';
import { convertTaridxToMldfFile } from '@binscope/taridx-mldf/node';
import type { Bench } from './harness.js';

const SHARDS = 4;
const FOLD = 'train';
const SIDE = 32;

/** 16 different 32×32 images (RGB for PNG, RGBA for the JPEG encoder). */
function pixels(channels: number): Uint8Array[] {
  return Array.from({ length: 16 }, (_, k) =>
    new Uint8Array(SIDE * SIDE * channels).map((_, i) => (i * (k + 3) + (i >> 5) * 11) & 0xff),
  );
}

/** Shards of `samples` samples: a 32×32 RGB PNG (or 4:2:0 JPEG), a ~150 B .json and a .cls each. */
async function generate(dir: string, samples: number, image: 'png' | 'jpg'): Promise<number> {
  const encoder = new TextEncoder();
  const pngs =
    image === 'png'
      ? pixels(3).map((data) => encodePng({ width: SIDE, height: SIDE, data, channels: 3, depth: 8 }))
      : await Promise.all(pixels(4).map((rgba) => jpegBytes({ width: SIDE, height: SIDE, rgba })));
  let total = 0;
  const perShard = Math.ceil(samples / SHARDS);
  for (let s = 0; s < SHARDS; s++) {
    const chunks: Uint8Array[] = [];
    const writer = new TarWriter((chunk) => chunks.push(chunk.slice()));
    for (let i = s * perShard; i < Math.min(samples, (s + 1) * perShard); i++) {
      const key = `s${String(i).padStart(7, '0')}`;
      writer.add({ name: `${key}.${image}`, data: pngs[i % pngs.length] });
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
  const bytes = await generate(dir, samples, 'png');
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

  // The same fold with JPEGs (libjpeg-turbo in WebAssembly, as Pillow decodes them).
  const jpgDir = b.dir('taridx-mldf-jpg');
  await generate(jpgDir, samples, 'jpg');
  const jpgFiles = fs
    .readdirSync(jpgDir)
    .filter((f) => f.endsWith('.tar'))
    .map((f) => path.join(jpgDir, f));
  const jpgFolder = new NodeDirectory(jpgDir);
  const { bytes: jpgIndex } = await indexShards({ directory: jpgFolder, fold: FOLD });
  await b.compare(
    {
      format: 'taridx→mldf',
      operation: 'convert, JPEGs decoded (samples/s)',
      items: samples,
      note: '32×32 4:2:0 JPEG + .json + .cls per sample',
    },
    async () => {
      const reader = await openTaridx(new MemorySource(jpgIndex, `${FOLD}.taridx`), { shards: jpgFolder });
      await convertTaridxToMldfFile(reader, path.join(jpgDir, 'out.mldf'));
      await reader.close();
    },
    { name: 'raw read of the shards', run: () => rawRead(jpgFiles) },
  );
  await jpgFolder.close();
}
