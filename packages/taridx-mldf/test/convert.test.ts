import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryDirectory, MemorySink, MemorySource, type ProgressEvent } from '@binscope/core';
import { openMldf, validateMldf } from '@binscope/mldf';
import { indexShards, openTaridx } from '@binscope/taridx';
import { expectProgressToEnd, tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { convertTaridxToMldf, KEY_FIELD } from '../src/index.js';
import { convertTaridxToMldfFile } from '../src/node.js';
import { makeFold } from './fold.js';

const scratch = tempDir('taridx-mldf-');
afterAll(() => scratch.remove());

const { files, samples } = await makeFold();
const directory = () => new MemoryDirectory(files);

async function toBytes(...args: Parameters<typeof convertTaridxToMldf>): Promise<Uint8Array> {
  const sink = args[1] as MemorySink;
  await convertTaridxToMldf(...args);
  return sink.bytes();
}

describe('tar shards → MLDF, the package API', () => {
  it('a fold becomes one sample per key, typed by member extension, missing members empty', async () => {
    const sink = new MemorySink();
    const result = await convertTaridxToMldf({ directory: directory(), fold: 'train' }, sink, {
      checksum: true,
    });
    expect(result.samples).toBe(6);
    expect(result.bytes).toBe(sink.position);
    expect(result.fields).toEqual([
      { name: KEY_FIELD, type: 'TEXT_RAW' },
      { name: 'png', type: 'IMAGE_RAW' },
      { name: 'jpg', type: 'IMAGE_RAW' },
      { name: 'json', type: 'JSON' },
      { name: 'txt', type: 'TEXT_RAW' },
      { name: 'cls', type: 'INT' },
      { name: 'npy', type: 'NDARRAY', dtype: '<f4', shape: [2] },
    ]);
    const file = new MemorySource(sink.bytes(), 'train.mldf');
    expect((await validateMldf(file)).errors).toEqual([]);
    const mldf = await openMldf(file, { verify: true });
    for (const [i, s] of samples.entries()) {
      const got = await mldf.sample(i);
      expect(got[KEY_FIELD]).toBe(s.key);
      expect(got.json).toEqual(s.json);
      expect(got.txt).toBe(s.txt);
      expect(Array.from((got.npy as { data: Float32Array }).data)).toEqual(s.npy);
      if (s.key === 'k2') {
        expect((await mldf.valueInfo(i, 'png')).size).toBe(0);
        expect((await mldf.valueInfo(i, 'cls')).size).toBe(0);
      } else {
        expect(got.cls).toBe(BigInt(s.cls));
        expect(got.png).toMatchObject({ height: 2, width: 3 + i, channels: 3, pixels: s.pngPixels });
      }
      if (s.key === 'k4') expect((await mldf.valueInfo(i, 'jpg')).size).toBe(0);
      else expect(got.jpg).toMatchObject({ height: 8, width: 8, channels: 3 });
    }
  });

  it('an open reader, an index with its shards and a bare fold give the same bytes', async () => {
    const fromFold = await toBytes({ directory: directory(), fold: 'train' }, new MemorySink());
    const { bytes: index } = await indexShards({ directory: directory(), fold: 'train' });
    const fromIndex = await toBytes(
      { index: new MemorySource(index, 'train.taridx'), shards: directory() },
      new MemorySink(),
    );
    const reader = await openTaridx(new MemorySource(index, 'train.taridx'), { shards: directory() });
    const fromReader = await toBytes(reader, new MemorySink());
    expect(Buffer.from(fromIndex).equals(Buffer.from(fromFold))).toBe(true);
    expect(Buffer.from(fromReader).equals(Buffer.from(fromFold))).toBe(true);
  });

  it('/node writes the same bytes to a file as the sink form, spilling through the given path', async () => {
    const sinkBytes = await toBytes({ directory: directory(), fold: 'train' }, new MemorySink(), {
      keepEncoded: true,
      checksum: true,
    });
    const out = path.join(scratch.dir, 'train.mldf');
    const result = await convertTaridxToMldfFile({ directory: directory(), fold: 'train' }, out, {
      keepEncoded: true,
      checksum: true,
    });
    expect(result.fields[1]).toEqual({ name: 'png', type: 'BYTES' });
    expect(result.bytes).toBe(sinkBytes.byteLength);
    expect(Buffer.from(fs.readFileSync(out)).equals(Buffer.from(sinkBytes))).toBe(true);
  });

  it('values go through the spill it is given', async () => {
    const appended: number[] = [];
    const kept: Uint8Array[] = [];
    const spill = {
      append(bytes: Uint8Array) {
        appended.push(bytes.byteLength);
        kept.push(bytes.slice());
      },
      async copyTo(sink: { write(b: Uint8Array): Promise<void> }) {
        for (const chunk of kept) await sink.write(chunk);
      },
    };
    const viaSpill = await toBytes({ directory: directory(), fold: 'train' }, new MemorySink(), { spill });
    const plain = await toBytes({ directory: directory(), fold: 'train' }, new MemorySink());
    expect(appended.length).toBeGreaterThan(samples.length);
    expect(Buffer.from(viaSpill).equals(Buffer.from(plain))).toBe(true);
  });

  it('reports progress up to the sample count', async () => {
    const events: ProgressEvent[] = [];
    await convertTaridxToMldf({ directory: directory(), fold: 'train' }, new MemorySink(), {
      onProgress: (event) => events.push(event),
    });
    expectProgressToEnd(events);
    expect(events.at(-1)).toMatchObject({ phase: 'converting', done: 6, total: 6 });
  });

  it('an abort stops with a SourceError and leaves no file behind', async () => {
    const dir = fs.mkdtempSync(path.join(scratch.dir, 'abort-'));
    const out = path.join(dir, 'out.mldf');
    const controller = new AbortController();
    const promise = convertTaridxToMldfFile({ directory: directory(), fold: 'train' }, out, {
      signal: controller.signal,
      onProgress: (event) => {
        if (event.phase === 'surveying fields') controller.abort(new Error('user stop'));
      },
    });
    await expect(promise).rejects.toMatchObject({ name: 'SourceError' });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
