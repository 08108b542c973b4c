import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ByteSource,
  type DataRecord,
  type DirectorySource,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  readExact,
  recordToJson,
  type Target,
} from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { describeWith, paxRecords, tarBytes, tarHeader, vectorsFolder } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { indexShards, SAMPLES_TABLE, type TaridxReader, taridxPlugin } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const vectors = path.resolve(root, process.env.BINSCOPE_VECTORS ?? '../shared/vectors', 'taridx');
const needed = vectorsFolder(vectors);
const LINES = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, 'fixtures/vector-records.json'), 'utf8'),
);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const enc = new TextEncoder();
const lookup = taridxPlugin.capabilities!.lookup!;
const valueSource = taridxPlugin.capabilities!.valueSource!;
const samples = { table: SAMPLES_TABLE };

function vectorIndex(name: string): string {
  const dir = path.join(vectors, name);
  return path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.taridx'))!);
}

async function recordsOf(reader: TaridxReader, options = {}): Promise<DataRecord[]> {
  const out: DataRecord[] = [];
  for await (const r of taridxPlugin.records(reader, options)) out.push(r);
  return out;
}

/** A source's bytes read in pieces of `chunk`, as an app copies a value out. */
async function drain(source: ByteSource, chunk = 1000): Promise<Uint8Array> {
  const out = new Uint8Array(source.size);
  for (let at = 0; at < source.size; at += chunk)
    out.set(await readExact(source, at, Math.min(chunk, source.size - at)), at);
  return out;
}

interface ExpectedSample {
  stem: string;
  crashid: number;
  members: Array<{ row: number; ext: string; size: number; sha256: string }>;
}

function expectedOf(name: string) {
  const e = JSON.parse(fs.readFileSync(path.join(vectors, name, 'expected.json'), 'utf8'));
  const extended = new Set<number>(
    e.rows.filter((r: { typeflag: string }) => 'xgLK'.includes(r.typeflag)).map((r: { i: number }) => r.i),
  );
  return { samples: e.samples as ExpectedSample[], extended, extensions: e.extensions as string[] };
}

describeWith(needed, 'records as the apps print them, over the vectors', () => {
  it.each(['ustar_flat_2shards', 'gnu_dirs_longname'])(
    '%s: recordToJson gives the lines `cat` printed before contract v2, with or without locations',
    async (name) => {
      const target = openPath(vectorIndex(name));
      const reader = await taridxPlugin.open(target);
      const lines = async (options = {}) =>
        Promise.all(
          (await recordsOf(reader, options)).map(async (r) =>
            JSON.stringify(await recordToJson(reader.schema, r)),
          ),
        );
      expect(await lines()).toEqual(LINES[name]);
      expect(await lines({ locations: true })).toEqual(LINES[name]);
      // Locations are locateRecord's, field by field (the rows are the members').
      for (const r of await recordsOf(reader, { locations: true, limit: 3 })) {
        const where = await taridxPlugin.locateRecord(reader, r.index);
        expect(r.locations!.members).toEqual(where.filter((l) => l.field === undefined));
        expect(r.locations!.key).toEqual(
          where.filter((l) => l.field === 'key').map(({ field: _, ...l }) => l),
        );
      }
      await reader.close();
      await (target as Extract<Target, { kind: 'file' }>).source.close?.();
    },
  );

  it.each(['ustar_flat_2shards', 'gnu_dirs_longname'])(
    '%s: the samples table holds each sample’s first member per extension, extended headers never',
    async (name) => {
      const { samples: expected, extended, extensions } = expectedOf(name);
      const reader = await taridxPlugin.open(openPath(vectorIndex(name)));
      const table = reader.tables!.find((t) => t.name === SAMPLES_TABLE)!;
      expect(table.schema.fields.map((f) => f.name)).toEqual(['key', ...new Set(extensions)]);
      const real = expected
        .map((s) => ({ ...s, members: s.members.filter((m) => !extended.has(m.row)) }))
        .filter((s) => s.members.length > 0);
      const got = await recordsOf(reader, samples);
      expect(got.map((r) => r.values.key)).toEqual(real.map((s) => s.stem));
      got.forEach((record, k) => {
        for (const ext of new Set(extensions)) {
          const first = real[k].members.find((m) => m.ext === ext);
          const value = record.values[ext];
          expect(value === null ? null : sha256(value as Uint8Array), `${real[k].stem}.${ext}`).toBe(
            first?.sha256 ?? null,
          );
        }
      });
      // The same values through lookup and valueSource, read in pieces.
      for (const s of real) {
        const index = await lookup(reader, s.stem, samples);
        expect(index).toBe(got[real.indexOf(s)].index);
        for (const m of s.members) {
          const first = s.members.find((x) => x.ext === m.ext)!;
          const value = await valueSource(reader, index!, m.ext, samples);
          expect(value?.size).toBe(first.size);
          expect(sha256(await drain(value!))).toBe(first.sha256);
        }
      }
      expect(await lookup(reader, '@LongLink')).toBeUndefined();
      expect(await lookup(reader, 'no-such-key')).toBeUndefined();
      await reader.close();
    },
  );

  it('json of a samples record: bytes as size and sha256, null where a sample has no such member', async () => {
    const reader = await taridxPlugin.open(openPath(vectorIndex('ustar_flat_2shards')));
    const [record] = await recordsOf(reader, { ...samples, limit: 1 });
    const json = await recordToJson(reader.tables![0].schema, record);
    expect(Object.keys(json)).toEqual(['key', 'jpg', 'json', 'cls', 'txt', 'seg.png']);
    expect(json).toMatchObject({ key: '000000', jpg: { size: 1500 }, txt: null, 'seg.png': null });
    await reader.close();
  });
});

/** Two shards: samples a, b (with a repeated .jpg), c; `k.JPG` is stored lower-cased (T2). */
function shardFiles(): Record<string, Uint8Array> {
  return {
    'f_0.tar': tarBytes([
      { name: 'a.jpg', data: new Uint8Array(700).fill(1) },
      { name: 'a.json', data: enc.encode('{"a":1}') },
      { name: 'b.jpg', data: new Uint8Array(3).fill(2) },
      { name: 'other/b.jpg', data: new Uint8Array(5).fill(3) },
    ]),
    'f_1.tar': tarBytes([
      { name: 'c.JPG', data: new Uint8Array(9).fill(4) },
      { name: 'c.cls', data: enc.encode('7') },
    ]),
  };
}

/** A folder that counts the sources it opened and closed. */
class CountingDirectory extends MemoryDirectory {
  opened = 0;
  closed = 0;
  override async open(name: string): Promise<ByteSource> {
    const inner = await super.open(name);
    this.opened++;
    return {
      name: inner.name,
      size: inner.size,
      read: (o, l, r) => inner.read(o, l, r),
      close: async () => {
        this.closed++;
      },
    };
  }
}

async function fold(files = shardFiles()): Promise<{ index: Uint8Array; dir: CountingDirectory }> {
  const { bytes } = await indexShards({ directory: new MemoryDirectory(files), fold: 'f' });
  return { index: bytes, dir: new CountingDirectory(files) };
}

describe('schema, lookup and values', () => {
  it('states the schema: the main records keyed by key, and samples with media types by extension', async () => {
    const { index, dir } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    expect(reader.schema.key).toBe('key');
    expect(reader.schema.fields.map((f) => [f.name, f.type.kind])).toEqual([
      ['key', 'string'],
      ['crashid', 'int'],
      ['members', 'list'],
    ]);
    const table = reader.tables![0];
    expect(table.schema.key).toBe('key');
    expect(table.schema.fields.map((f) => [f.name, f.type])).toEqual([
      ['key', { kind: 'string' }],
      ['jpg', { kind: 'bytes', mediaType: 'image/jpeg' }],
      ['json', { kind: 'bytes', mediaType: 'application/json' }],
      ['cls', { kind: 'bytes', mediaType: 'text/plain' }],
    ]);
    expect(table.schema.fields.slice(1).every((f) => f.nullable)).toBe(true);
  });

  it('finds keys by hash, and a sample’s payloads as sources, `.JPG` as jpg, the first of a repeated extension', async () => {
    const { index, dir } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const b = (await lookup(reader, 'b'))!;
    expect(b).toBe(1);
    const jpg = await valueSource(reader, b, 'jpg', samples);
    expect(Array.from(await drain(jpg!))).toEqual([2, 2, 2]);
    const c = (await lookup(reader, 'c', samples))!;
    expect(Array.from(await drain((await valueSource(reader, c, '.JPG', samples))!))).toEqual(
      new Array(9).fill(4),
    );
    expect(await valueSource(reader, c, 'json', samples)).toBeUndefined();
    expect(await valueSource(reader, c, 'nosuchext', samples)).toBeUndefined();
    // The main records have no bytes fields.
    expect(await valueSource(reader, c, 'jpg')).toBeUndefined();
    await expect(valueSource(reader, c, 'jpg', { table: 'nope' })).rejects.toThrow(RangeError);
  });

  it('a key that only shares its hash with an indexed stem is no record (with the shards at hand)', async () => {
    // Two real XXH64-colliding stems of the vectors: only the first is in this fold.
    const [canonical, other] = [
      'pRgQWX3XAK584M2Y05QJFQBHuAh9sMTVjJMsvZsOiVkCvajNOfl_6wS4yJeyByOk',
      'Qhj49cgEUibe8MNkM8clL1EwoaWfHReWuPOgEYrnMHP3qh-g3KLpd8ry9ZHdnKOQ',
    ];
    const files = { 'f_0.tar': tarBytes([{ name: `${canonical}.cls`, data: enc.encode('1') }]) };
    const { index, dir } = await fold(files);
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    expect(await reader.find(other)).toBeDefined();
    expect(await lookup(reader, canonical)).toBe(0);
    expect(await lookup(reader, other)).toBeUndefined();
    // Without the shards only the hash can answer.
    const blind = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx')));
    expect(await lookup(blind, other)).toBe(0);
  });

  it('checks a payload’s stem as text, not only its hash: a colliding stem written over it is refused', async () => {
    const [canonical, other] = [
      'pRgQWX3XAK584M2Y05QJFQBHuAh9sMTVjJMsvZsOiVkCvajNOfl_6wS4yJeyByOk',
      'Qhj49cgEUibe8MNkM8clL1EwoaWfHReWuPOgEYrnMHP3qh-g3KLpd8ry9ZHdnKOQ',
    ];
    const tar = tarBytes([
      { name: `${canonical}.cls`, data: enc.encode('1') },
      { name: `${canonical}.json`, data: enc.encode('{}') },
    ]);
    const { index } = await fold({ 'f_0.tar': tar });
    // After indexing, the .json member is renamed to the colliding stem: same hash, same length.
    const edited = tar.slice();
    edited.set(enc.encode(other), 1024);
    const dir = new MemoryDirectory({ 'f_0.tar': edited });
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const k = (await lookup(reader, canonical, samples))!;
    expect(await drain((await valueSource(reader, k, 'cls', samples))!)).toEqual(enc.encode('1'));
    const error = await valueSource(reader, k, 'json', samples).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue'), String(error)).toBe(true);
    expect(String(error)).toMatch(/is not the sample's key/);
  });

  it('refuses a member whose shard was rewritten after indexing, naming the stem', async () => {
    const files = shardFiles();
    const { index } = await fold(files);
    const edited = files['f_0.tar'].slice();
    edited[1536] = 'z'.charCodeAt(0); // a.json → z.json: same length, same place
    const dir = new MemoryDirectory({ ...files, 'f_0.tar': edited });
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const a = (await lookup(reader, 'a'))!;
    expect(await drain((await valueSource(reader, a, 'jpg', samples))!)).toHaveLength(700);
    const error = await valueSource(reader, a, 'json', samples).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'InvalidValue'), String(error)).toBe(true);
    expect(String(error)).toMatch(/stem "z" is not the sample's key \(the shard changed after indexing\?\)/);
  });

  it('never hands out an extended header: a PAX header with the member’s own name is skipped', async () => {
    // GNU tar --format=posix: `PaxHeaders/k.cls` (typeflag x) right before `k.cls`, same stem and extension.
    const records = paxRecords({ path: 'k.cls', mtime: '1' });
    const pad = (n: number) => new Uint8Array((512 - (n % 512)) % 512);
    const tar = new Uint8Array([
      ...tarHeader({ name: 'PaxHeaders/k.cls', size: records.byteLength, typeflag: 'x', format: 'pax' }),
      ...records,
      ...pad(records.byteLength),
      ...tarHeader({ name: 'k.cls', size: 1, format: 'pax' }),
      ...enc.encode('5'),
      ...pad(1),
      ...new Uint8Array(1024),
    ]);
    const { index, dir } = await fold({ 'f_0.tar': tar });
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const k = (await lookup(reader, 'k', samples))!;
    expect(reader.members(await reader.sample(k), 'cls')).toHaveLength(2);
    expect(new TextDecoder().decode(await drain((await valueSource(reader, k, 'cls', samples))!))).toBe('5');
    const [record] = await recordsOf(reader, samples);
    expect(new TextDecoder().decode(record.values.cls as Uint8Array)).toBe('5');
  });

  it('the samples table needs the shards: a typed error naming what is missing', async () => {
    const { index } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx')));
    for (const attempt of [
      () => recordsOf(reader, samples),
      () => lookup(reader, 'a', samples),
      () => valueSource(reader, 0, 'jpg', samples),
      () => taridxPlugin.locateRecord(reader, 0, samples),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(isBinscopeError(error, 'missing'), String(error)).toBe(true);
      expect(String(error)).toMatch(/f_\*\.tar/);
    }
    // An empty folder is as good as none.
    const empty = await taridxPlugin.open(
      fileTarget(new MemorySource(index, 'f.taridx'), new MemoryDirectory()),
    );
    const error = await recordsOf(empty, samples).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'missing'), String(error)).toBe(true);
    expect(String(error)).toMatch(/holds no f_\*\.tar/);
    // The main records do without: keys unknown.
    expect((await recordsOf(reader)).map((r) => r.values.key)).toEqual([null, null, null]);
  });

  it('columns name fields of the table asked for, in that order', async () => {
    const { index, dir } = await fold();
    const reader = await taridxPlugin.open(fileTarget(new MemorySource(index, 'f.taridx'), dir));
    const [first] = await recordsOf(reader, { columns: ['crashid', 'key'], limit: 1 });
    expect(first.values).toEqual({ crashid: 0, key: 'a' });
    const [a] = await recordsOf(reader, { ...samples, columns: ['json', 'key'], limit: 1 });
    expect(Object.keys(a.values)).toEqual(['json', 'key']);
    await expect(recordsOf(reader, { columns: ['jpg'] })).rejects.toThrow(/no field "jpg"/);
  });
});

describe('ownership', () => {
  it('never closes its target; closes the shards it opened from the folder', async () => {
    const { index, dir } = await fold();
    let indexClosed = 0;
    const inner = new MemorySource(index, 'f.taridx');
    const source: ByteSource = {
      name: inner.name,
      size: inner.size,
      read: (o, l, r) => inner.read(o, l, r),
      close: async () => {
        indexClosed++;
      },
    };
    const reader = await taridxPlugin.open(fileTarget(source, dir as DirectorySource));
    for (const r of await recordsOf(reader, samples)) expect(r.values.key).toBeTruthy();
    expect(dir.opened).toBe(2);
    await reader.close?.();
    expect(dir.closed).toBe(2);
    expect(indexClosed).toBe(0);
    // validate opens the shards too, and closes them.
    const report = await taridxPlugin.validate(fileTarget(source, dir));
    expect(report.valid).toBe(true);
    expect(dir.closed).toBe(dir.opened);
    expect(indexClosed).toBe(0);
  });
});
