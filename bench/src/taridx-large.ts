import * as fs from 'node:fs';
import * as path from 'node:path';
import { CountingSource, MemorySource } from '@binscope/core';
import { openFile } from '@binscope/core/node';
import { indexShards, TaridxReader } from '@binscope/taridx';
import { NodeDirectory } from '@binscope/core/node';
import { tarHeader } from '@binscope/testkit';
import type { Bench } from './harness.js';

/** An image the size of a large WebDataset sample (issue 21 measured 472 MB read for 10 keys). */
const MEMBER = 50 << 20;
const FOLD = 'big';

/**
 * One shard of samples `<key>.cls` (a few bytes) then `<key>.jpg` (50 MB), written sparse:
 * only the headers and the labels take disk space, the images are holes.
 */
function generateSparse(dir: string, samples: number): string {
  const file = path.join(dir, `${FOLD}_0000.tar`);
  const fd = fs.openSync(file, 'w');
  const encoder = new TextEncoder();
  let at = 0;
  const put = (bytes: Uint8Array) => {
    fs.writeSync(fd, bytes, 0, bytes.byteLength, at);
  };
  for (let i = 0; i < samples; i++) {
    const key = `s${String(i).padStart(6, '0')}`;
    const label = encoder.encode(String(i % 1000));
    put(tarHeader({ name: `${key}.cls`, size: label.byteLength }));
    at += 512;
    put(label);
    at += 512;
    put(tarHeader({ name: `${key}.jpg`, size: MEMBER }));
    at += 512 + MEMBER;
  }
  // Two zero blocks end the archive; truncate makes the holes real without writing them.
  fs.ftruncateSync(fd, at + 1024);
  fs.closeSync(fd);
  return file;
}

export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('taridx-large');
  const samples = b.n(200, 4);
  const shard = generateSparse(dir, samples);
  const directory = new NodeDirectory(dir);
  const { bytes: index } = await indexShards({ directory, fold: FOLD });
  await directory.close();
  process.stderr.write(
    `  taridx-large: ${samples} samples with ${MEMBER >> 20} MB members, ${(fs.statSync(shard).size / 1e9).toFixed(2)} GB sparse shard\n`,
  );

  let bytesPerKey = 0;
  const row = await b.measure(
    {
      format: 'taridx',
      operation: `list keys, ${MEMBER >> 20} MB members (figure: bytes read per key)`,
      items: samples,
      goal: '512 B read per key',
    },
    async () => {
      const counted = new CountingSource(openFile(shard));
      const reader = await TaridxReader.open(new MemorySource(index, `${FOLD}.taridx`), {
        shards: [counted],
      });
      let keys = 0;
      for await (const sample of reader.samples()) {
        if ((await reader.key(sample)) === undefined) throw new Error('key not found');
        keys++;
      }
      bytesPerKey = counted.bytesRead / keys;
      await counted.close();
    },
  );
  row.figure = `${Math.round(bytesPerKey).toLocaleString('en-US')} B read per key`;
  process.stderr.write(`  ${row.figure}\n`);
}
