import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { openMldf, validateMldf } from '@binscope/mldf';
import { indexShards, openTaridx } from '@binscope/taridx';
import { jpegBytes, npyBytes, tarBytes, tempDir } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeImage, npyLayout } from '@binscope/taridx-mldf';
import { convertTaridxToMldfFile as convertTaridxToMldf } from '@binscope/taridx-mldf/node';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-tar2mldf-');
afterAll(() => scratch.remove());
const enc = new TextEncoder();

const png = (w: number, h: number, seed: number) => {
  const data = new Uint8Array(w * h * 3).map((_, i) => (i * 7 + seed) & 0xff);
  return { pixels: data, bytes: encodePng({ width: w, height: h, data, channels: 3, depth: 8 }) };
};

/** Two shards; sample k2 lacks .png and .cls; .npy varies in shape only in fold "mixed". */
function writeFold(dir: string, fold: string, mixedNpy: boolean) {
  const samples = [0, 1, 2, 3].map((i) => ({
    key: `k${i}`,
    png: png(3 + i, 2, i),
    json: { i, tag: `t${i}` },
    txt: `caption ${i} ✓`,
    cls: i * 10 - 5,
    npy: npyBytes(
      '<f4',
      [mixedNpy && i === 3 ? 3 : 2],
      new Uint8Array(new Float32Array(mixedNpy && i === 3 ? [i, i, i] : [i, -i]).buffer),
    ),
  }));
  const entries = samples.map((s) =>
    [
      s.key === 'k2' ? undefined : { name: `${s.key}.png`, data: s.png.bytes },
      { name: `sub/dir/${s.key}.json`, data: enc.encode(JSON.stringify(s.json)) },
      { name: `${s.key}.txt`, data: enc.encode(s.txt) },
      s.key === 'k2' ? undefined : { name: `${s.key}.cls`, data: enc.encode(`${s.cls}\n`) },
      { name: `${s.key}.npy`, data: s.npy },
    ].filter((e) => e !== undefined),
  );
  fs.writeFileSync(path.join(dir, `${fold}_0.tar`), tarBytes([...entries[0], ...entries[1]]));
  fs.writeFileSync(path.join(dir, `${fold}_1.tar`), tarBytes([...entries[2], ...entries[3]]));
  return samples;
}

describe('tar shards → MLDF', () => {
  const dir = scratch.dir;
  const samples = writeFold(dir, 'train', false);
  writeFold(dir, 'mixed', true);

  it('one sample per key, field types from extensions, missing members empty, decoded images', async () => {
    const { openDirectory } = await import('@binscope/core/node');
    const directory = openDirectory(dir);
    const { bytes } = await indexShards({ directory, fold: 'train' });
    const reader = await openTaridx(new MemorySource(bytes, 'train.taridx'), { shards: directory });
    const out = path.join(dir, 'api.mldf');
    const result = await convertTaridxToMldf(reader, out, { checksum: true });
    expect(result.samples).toBe(4);
    expect(result.fields).toEqual([
      { name: '__key__', type: 'TEXT_RAW' },
      { name: 'png', type: 'IMAGE_RAW' },
      { name: 'json', type: 'JSON' },
      { name: 'txt', type: 'TEXT_RAW' },
      { name: 'cls', type: 'INT' },
      { name: 'npy', type: 'NDARRAY', dtype: '<f4', shape: [2] },
    ]);
    const file = new MemorySource(new Uint8Array(fs.readFileSync(out)), 'api.mldf');
    expect((await validateMldf(file)).errors).toEqual([]);
    const mldf = await openMldf(file, { verify: true });
    for (const [i, s] of samples.entries()) {
      const got = await mldf.sample(i);
      expect(got.__key__).toBe(s.key);
      expect(got.json).toEqual(s.json);
      expect(got.txt).toBe(s.txt);
      expect(Array.from((got.npy as { data: Float32Array }).data)).toEqual([i, -i]);
      if (s.key === 'k2') {
        expect(got.png).toBeUndefined();
        expect((await mldf.valueInfo(i, 'png')).size).toBe(0);
        expect(got.cls).toBe(0n);
      } else {
        expect(got.cls).toBe(BigInt(s.cls));
        expect(got.png).toMatchObject({ height: 2, width: 3 + i, channels: 3 });
        expect((got.png as { pixels: Uint8Array }).pixels).toEqual(s.png.pixels);
      }
    }
    await reader.close();
  });

  it('through the CLI: index → convert, --keep-encoded stores bytes, mixed .npy become BYTES', () => {
    expect(cli(['index', dir, '--fold', 'train']).code).toBe(0);
    const out = path.join(dir, 'cli.mldf');
    const r = cli(['convert', path.join(dir, 'train.taridx'), out, '--keep-encoded', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.samples).toBe(4);
    expect(report.fields[1]).toEqual({ name: 'png', type: 'BYTES' });
    // An existing output is kept unless --force.
    expect(cli(['convert', path.join(dir, 'train.taridx'), out]).code).toBe(2);
    const mixed = cli(['convert', dir, path.join(dir, 'mixed.mldf'), '--fold', 'mixed', '--json']);
    expect(mixed.code).toBe(0);
    expect(JSON.parse(mixed.stdout).fields.find((f: { name: string }) => f.name === 'npy')).toEqual({
      name: 'npy',
      type: 'BYTES',
    });
    expect(cli(['validate', path.join(dir, 'mixed.mldf')]).code).toBe(0);
    expect(cli(['convert', dir, path.join(dir, 'x.mldf')]).code).toBe(2);
  });

  it('--checksum: info shows the CRCs, validate names a corrupted region', async () => {
    const out = path.join(dir, 'summed.mldf');
    expect(cli(['convert', dir, out, '--fold', 'train', '--checksum']).code).toBe(0);
    expect(cli(['info', out]).stdout).toMatch(/checksums: CRC32 data 0x[0-9a-f]{8}, metadata 0x[0-9a-f]{8}/);
    expect(cli(['validate', out]).code).toBe(0);
    const mldf = await openMldf(new MemorySource(new Uint8Array(fs.readFileSync(out)), 'summed.mldf'));
    const bytes = fs.readFileSync(out);
    bytes[mldf.header.dataPtr + 100] ^= 1;
    fs.writeFileSync(out, bytes);
    const r = cli(['validate', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/InvalidValue.*data region \[\d+, \d+\) is corrupted/);
  });

  it('a broken member fails with its sample and shard named; nothing is left at the output', async () => {
    const bad = fs.mkdtempSync(path.join(dir, 'bad-'));
    fs.writeFileSync(
      path.join(bad, 'f_0.tar'),
      tarBytes([
        { name: 'a.cls', data: enc.encode('1') },
        { name: 'b.cls', data: enc.encode('one') },
      ]),
    );
    const out = path.join(bad, 'f.mldf');
    const r = cli(['convert', bad, out, '--fold', 'f']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sample "b" member \.cls: "one" is not an integer class/);
    expect(r.stderr).toMatch(/f_0\.tar/);
    expect(fs.readdirSync(bad)).toEqual(['f_0.tar']);
  });

  it('in process: mixed .npy shapes fall back to BYTES; a failed conversion leaves nothing behind', async () => {
    const { openDirectory } = await import('@binscope/core/node');
    const directory = openDirectory(dir);
    const { bytes } = await indexShards({ directory, fold: 'mixed' });
    const reader = await openTaridx(new MemorySource(bytes, 'mixed.taridx'), { shards: directory });
    const result = await convertTaridxToMldf(reader, path.join(dir, 'api-mixed.mldf'));
    expect(result.fields.at(-1)).toEqual({ name: 'npy', type: 'BYTES' });
    await reader.close();

    const bad = fs.mkdtempSync(path.join(dir, 'bad-api-'));
    fs.writeFileSync(
      path.join(bad, 'f_0.tar'),
      tarBytes([
        { name: 'a.json', data: enc.encode('{}') },
        { name: 'b.json', data: enc.encode('{') },
      ]),
    );
    const badDir = openDirectory(bad);
    const index = await indexShards({ directory: badDir, fold: 'f' });
    const badReader = await openTaridx(new MemorySource(index.bytes, 'f.taridx'), { shards: badDir });
    await expect(convertTaridxToMldf(badReader, path.join(bad, 'f.mldf'))).rejects.toMatchObject({
      code: 'InvalidValue',
      file: 'f_0.tar',
    });
    expect(fs.readdirSync(bad)).toEqual(['f_0.tar']);
    await badReader.close();
  });

  it('decodes 16-bit, palette and grey PNGs to 8-bit HWC with fast-png', async () => {
    const place = { file: 's.tar', offset: 0, key: 'k', ext: 'png' };
    const deep = encodePng({
      width: 2,
      height: 1,
      data: new Uint16Array([0x1234, 0xff00, 0x0100, 0, 65535, 0x8000]),
      channels: 3,
      depth: 16,
    });
    expect(Array.from((await decodeImage(deep, place)).pixels)).toEqual([0x12, 0xff, 0x01, 0, 0xff, 0x80]);
    const grey = encodePng({
      width: 3,
      height: 1,
      data: new Uint8Array([0, 128, 255]),
      channels: 1,
      depth: 8,
    });
    expect(await decodeImage(grey, place)).toMatchObject({
      channels: 1,
      pixels: new Uint8Array([0, 128, 255]),
    });
    const indexed = encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([1, 0]),
      channels: 1,
      depth: 8,
      palette: [
        [10, 20, 30],
        [40, 50, 60],
      ],
    });
    expect(await decodeImage(indexed, place)).toMatchObject({
      channels: 3,
      pixels: new Uint8Array([40, 50, 60, 10, 20, 30]),
    });
  });

  it('decodes JPEG to RGB (libjpeg-turbo); refuses a non-image; reads .npy layouts', async () => {
    const rgba = new Uint8Array(8 * 8 * 4).fill(200);
    const jpeg = await jpegBytes({ width: 8, height: 8, rgba }, { quality: 95 });
    const place = { file: 's.tar', offset: 0, key: 'k', ext: 'jpg' };
    const image = await decodeImage(jpeg, place);
    expect(image).toMatchObject({ width: 8, height: 8, channels: 3 });
    expect(Math.abs(image.pixels[0] - 200)).toBeLessThan(4);
    await expect(decodeImage(enc.encode('not an image'), place)).rejects.toThrow(/neither a PNG nor a JPEG/);
    expect(npyLayout(npyBytes('<i8', [2, 1], new Uint8Array(16)))).toMatchObject({
      dtype: '<i8',
      shape: [2, 1],
    });
    expect(npyLayout(npyBytes('<i8', [2, 1], new Uint8Array(15)))).toBeUndefined();
    expect(npyLayout(npyBytes('>f4', [1], new Uint8Array(4)))).toBeUndefined();
  });
});
