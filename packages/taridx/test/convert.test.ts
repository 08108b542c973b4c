import {
  type ConvertInput,
  type ConvertOptions,
  createRegistry,
  directoryTarget,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  memoryScratch,
  type OptionValues,
  runConverter,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { tarBytes } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import {
  indexShards,
  taridxConverters,
  tarShardFormat,
  tarToTaridxConverter,
  taridxFormat,
} from '../src/index.js';

const enc = new TextEncoder();

/** Four shards, a sample split across the second and third, a stem repeated in two shards. */
function shards(): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (let s = 0; s < 4; s++) {
    const entries = [];
    for (let k = 0; k < 3; k++) {
      entries.push({ name: `s${s}k${k}.jpg`, data: new Uint8Array(100 + k).fill(s) });
      entries.push({ name: `s${s}k${k}.cls`, data: enc.encode(String(k)) });
    }
    if (s === 1) entries.push({ name: 'split.jpg', data: enc.encode('a') });
    if (s === 2) entries.push({ name: 'split.json', data: enc.encode('{}') });
    out[`f_${String(s).padStart(4, '0')}.tar`] = tarBytes(entries);
  }
  return out;
}

async function convert(input: ConvertInput, values: OptionValues) {
  const converter = await tarToTaridxConverter.load();
  const sink = new MemorySink();
  const scratch = memoryScratch();
  const options: ConvertOptions = { scratch, values };
  try {
    const report = await runConverter(
      tarToTaridxConverter,
      converter,
      input,
      { kind: 'file', sink },
      options,
    );
    return { bytes: sink.bytes(), report };
  } finally {
    scratch.close();
  }
}

describe('tar → taridx, the index verb', () => {
  it('is declared with its verb and options, and found by the registry', async () => {
    const registry = createRegistry([taridxFormat, tarShardFormat], taridxConverters);
    const info = registry.converter('tar', 'taridx')!;
    expect(info).toBe(tarToTaridxConverter);
    expect(info.verb).toBe('index');
    expect(info.options?.map((o) => o.name)).toEqual(['fold', 'shardRange', 'merge', 'shardName']);
    expect(typeof (await info.load()).convert).toBe('function');
  });

  it('indexes a fold of a folder as indexShards does', async () => {
    const files = shards();
    const directory = new MemoryDirectory({ ...files, 'other_0000.tar': files['f_0000.tar'] });
    const { bytes, report } = await convert(directoryTarget(directory), { fold: 'f' });
    const expected = await indexShards({ directory, fold: 'f' });
    expect(Buffer.from(bytes).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(report.details).toEqual({ fold: 'f', rows: expected.rows, shards: expected.shards });
  });

  it('indexes ranges into partial indexes, and merges them into the one-pass index byte for byte', async () => {
    const files = shards();
    const directory = new MemoryDirectory(files);
    const whole = await indexShards({ directory, fold: 'f' });
    const parts: Record<string, Uint8Array> = {};
    for (const range of ['2-99', '0-0', '1-1']) {
      const { bytes, report } = await convert(directoryTarget(directory), { fold: 'f', shardRange: range });
      expect(report.details.range).toMatchObject({ total: 4 });
      parts[`part-${range}.taridx`] = bytes;
    }
    // The app lists the files the user named as a folder target; other files are not partials.
    const listed = new MemoryDirectory({ ...parts, 'notes.txt': enc.encode('x') });
    const { bytes, report } = await convert(directoryTarget(listed), { merge: true });
    expect(Buffer.from(bytes).equals(Buffer.from(whole.bytes))).toBe(true);
    expect(report.details).toMatchObject({ rows: whole.rows, shards: 4 });
    // One partial covering every shard is a merge of one.
    const all = (await convert(directoryTarget(directory), { fold: 'f', shardRange: '0-3' })).bytes;
    const one = await convert(fileTarget(new MemorySource(all, 'all.taridx')), { merge: true });
    expect(Buffer.from(one.bytes).equals(Buffer.from(whole.bytes))).toBe(true);
    // Partials that leave shards out are refused, naming what is missing.
    const { 'part-1-1.taridx': _gone, ...holey } = parts;
    const error = await convert(directoryTarget(new MemoryDirectory(holey)), { merge: true }).catch((e) => e);
    expect(isBinscopeError(error, 'OutOfBounds'), String(error)).toBe(true);
    expect(String(error)).toMatch(/shards 1-1 of 4 are in no partial index/);
  });

  it('indexes one shard streamed on standard input, named by shardName, through scratch', async () => {
    const files = shards();
    const data = files['f_0002.tar'];
    async function* chunks() {
      for (let at = 0; at < data.byteLength; at += 1000) yield data.subarray(at, at + 1000);
    }
    const { bytes, report } = await convert(
      { kind: 'stream', name: 'stdin', chunks: chunks() },
      { shardName: 'f_0002.tar' },
    );
    const expected = await indexShards([new MemorySource(data, 'f_0002.tar')]);
    expect(Buffer.from(bytes).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(report.details).toMatchObject({ fold: 'f', shards: ['f_0002.tar'] });
  });

  it('refuses what it cannot index, with the error a caller can act on', async () => {
    const directory = directoryTarget(new MemoryDirectory(shards()));
    const attempt = (input: ConvertInput, values: OptionValues) =>
      convert(input, values).catch((e: unknown) => e);
    expect(String(await attempt(directory, {}))).toMatch(/RangeError: .*--fold NAME/);
    expect(String(await attempt(directory, { fold: 'a/f' }))).toMatch(/RangeError: .*fold name only/);
    expect(String(await attempt(directory, { fold: 'f', shardRange: '9-2' }))).toMatch(
      /RangeError: .*FIRST-LAST/,
    );
    const none = await attempt(directory, { fold: 'nope' });
    expect(isBinscopeError(none, 'missing'), String(none)).toBe(true);
    expect(String(none)).toMatch(/no shards named nope_\*\.tar/);
    const stream = { kind: 'stream' as const, name: 'stdin', chunks: (async function* () {})() };
    expect(String(await attempt(stream, { fold: 'f' }))).toMatch(/--shard-name f_NNNN\.tar/);
    expect(String(await attempt(stream, { fold: 'f', shardName: 'f_a/b.tar' }))).toMatch(/--shard-name/);
    const past = await attempt(directory, { fold: 'f', shardRange: '7-9' });
    expect(isBinscopeError(past, 'OutOfBounds'), String(past)).toBe(true);
  });
});
