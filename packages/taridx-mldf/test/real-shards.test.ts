/**
 * Tar shards → MLDF on shards written by the real tools (GNU tar `--format=posix`, Python's
 * `tarfile` in PAX format): their PAX headers are recorded in the index as rows, but are no
 * members, so they make no sample and no field. And .json members are stored as their bytes.
 */
import { MemoryDirectory, MemorySink, MemorySource } from '@binscope/core';
import { type MldfLazyText, openMldf, validateMldf } from '@binscope/mldf';
import {
  describeWith,
  gnuTar,
  gnuTarShard,
  pythonModules,
  pythonTarShard,
  type ToolTarEntry,
} from '@binscope/testkit';
import { expect, it } from 'vitest';
import { convertTaridxToMldf, KEY_FIELD } from '../src/index.js';

/**
 * JSON that a parse and re-stringify would change, each in one way only (no spaces to lose):
 * each must come back byte for byte.
 */
const JSON_TEXTS = {
  big: '{"id":12345678901234567890}',
  negzero: '{"x":-0.0,"y":[-0]}',
  dupkeys: '{"k":1,"k":2}',
  spelling: '[1.50,1e2,0.1E-1]',
  spaces: ' {"a" : [ ] } ',
};

function entries(keys: readonly string[]): ToolTarEntry[] {
  return Object.entries(JSON_TEXTS).flatMap(([what, json], i) => [
    { name: `${keys[i]}.cls`, data: String(i + 1) },
    { name: `${keys[i]}.json`, data: json },
    { name: `${keys[i]}.txt`, data: what },
  ]);
}

async function convert(shard: Uint8Array) {
  const sink = new MemorySink();
  const result = await convertTaridxToMldf(
    { directory: new MemoryDirectory({ 'train_0.tar': shard }), fold: 'train' },
    sink,
  );
  const file = new MemorySource(sink.bytes(), 'train.mldf');
  expect((await validateMldf(file)).errors).toEqual([]);
  const mldf = await openMldf(file);
  const samples = [];
  for (let i = 0; i < mldf.numSamples; i++) samples.push(await mldf.sample(i, { decode: 'lazy' }));
  return { result, samples };
}

const text = (value: unknown) => (value as MldfLazyText).text();

async function expectFold(shard: Uint8Array, keys: readonly string[]) {
  const { result, samples } = await convert(shard);
  // No empty-named field (a PAX header's extension) and no @PaxHeader sample.
  expect(result.fields.map((f) => f.name)).toEqual([KEY_FIELD, 'cls', 'json', 'txt']);
  expect(result.samples).toBe(keys.length);
  expect(samples.map((s) => text(s[KEY_FIELD]))).toEqual(keys);
  // Each .cls is the file's content, not the PAX record text before it.
  expect(samples.map((s) => s.cls)).toEqual([1n, 2n, 3n, 4n, 5n]);
  const got = Object.fromEntries(samples.map((s) => [text(s.txt), text(s.json)]));
  expect(got).toEqual(JSON_TEXTS);
}

describeWith(gnuTar(), 'GNU tar --format=posix shards', () => {
  it('convert: PAX headers make no sample and no field; .cls and .json are the files', async () => {
    // Non-ASCII names: GNU tar writes a PAX x header (path, times) before every member.
    const keys = ['ü0', 'ü1', 'ascii2', 'ß3', 'ü4'];
    await expectFold(gnuTarShard(entries(keys)), keys);
  });
});

describeWith(pythonModules(['tarfile']), 'Python tarfile PAX shards', () => {
  it('convert: no @PaxHeader sample, no empty-named field', async () => {
    // tarfile writes `././@PaxHeader` (x) before non-ASCII names and a global (g) header first;
    // the 100-byte name field holds `?` for each non-ASCII character, which is the key (T2).
    const shard = pythonTarShard(entries(['é0', 'é1', 'plain2', 'é3', 'é4']), { comment: 'binscope' });
    await expectFold(shard, ['?0', '?1', 'plain2', '?3', '?4']);
  });
});
