import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  fileTarget,
  type InspectNode,
  type InspectResult,
  isBinscopeError,
  MemoryDirectory,
  MemorySource,
  nodesAlong,
  type Target,
  toPlainTree,
} from '@binscope/core';
import { describeWith, tarBytes, vectorsFolder } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexShards, type TaridxReader, taridxPlugin } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const vectors = path.resolve(root, process.env.BINSCOPE_VECTORS ?? '../shared/vectors', 'taridx');
const needed = vectorsFolder(vectors);

/** The invalid vectors and their expected class, from the table in invalid/README.md. */
function invalidVectors(): Array<{ file: string; code: string }> {
  if (!needed.present) return [];
  const readme = fs.readFileSync(path.join(vectors, 'invalid', 'README.md'), 'utf8');
  return [...readme.matchAll(/^\|\s*([\w.-]+\.taridx)\s*\|.*\|\s*(\w+)\s*\|\s*$/gm)].map((m) => ({
    file: path.join(vectors, 'invalid', m[1]),
    code: m[2],
  }));
}

function validVectors(): Array<{ name: string; dir: string; index: string }> {
  if (!needed.present) return [];
  return fs
    .readdirSync(vectors, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'invalid')
    .map((d) => {
      const dir = path.join(vectors, d.name);
      return { name: d.name, dir, index: fs.readdirSync(dir).find((f) => f.endsWith('.taridx'))! };
    });
}

function memoryTarget(bytes: Uint8Array, name = 'f.taridx', shards?: Record<string, Uint8Array>): Target {
  return fileTarget(new MemorySource(bytes, name), shards ? new MemoryDirectory(shards) : undefined);
}

/** What the strict reader throws: open, then the rows (read and checked on first use). */
async function strictError(target: Target): Promise<{ code: string; offset?: number } | undefined> {
  try {
    const reader = (await taridxPlugin.open(target)) as TaridxReader;
    await reader.load();
    return undefined;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { code: error.code, offset: error.offset };
  }
}

/** The node a located problem names: its path may go into the lazy rows. */
async function nodeAt(rootNode: InspectNode, indexPath: readonly number[]): Promise<InspectNode> {
  return (await nodesAlong(rootNode, indexPath)).at(-1) ?? rootNode;
}

/** The three modes agree on the first error, and the tree shows it on a node below the root. */
async function expectModesAgree(target: Target): Promise<InspectResult> {
  const strict = await strictError(target);
  const report = await taridxPlugin.validate(target, { deep: false });
  const inspected = await taridxPlugin.inspectTarget(target);
  const first = (errors: typeof report.errors) =>
    errors[0] && { code: errors[0].code, offset: errors[0].offset };
  expect(first(report.errors)).toEqual(strict);
  expect(first(inspected.errors)).toEqual(strict);
  expect(inspected.valid).toBe(strict === undefined);
  expect(inspected.root.children?.length).toBeGreaterThan(0);
  if (strict) {
    const marked = inspected.located.find((p) => p.code === strict.code && p.offset === strict.offset);
    expect(marked?.path).toBeTruthy();
    const at = await nodeAt(inspected.root, marked!.indexPath);
    if (strict.offset !== undefined && at.length > 0) {
      expect(strict.offset).toBeGreaterThanOrEqual(at.offset);
      expect(strict.offset).toBeLessThan(at.offset + at.length);
    }
  }
  return inspected;
}

describeWith(needed, 'inspect mode over the vectors', () => {
  it.each(invalidVectors())('$file shows its tree with the $code marked', async ({ file, code }) => {
    const result = await expectModesAgree(
      memoryTarget(new Uint8Array(fs.readFileSync(file)), path.basename(file)),
    );
    expect(result.errors[0].code).toBe(code);
    const header = result.root.children![0];
    expect(header.children?.length).toBe(13);
  });

  it('shows every whole row of the cut vector and marks the cut row', async () => {
    const file = path.join(vectors, 'invalid', 'truncated.taridx');
    const result = await taridxPlugin.inspectTarget(
      memoryTarget(new Uint8Array(fs.readFileSync(file)), 'truncated.taridx'),
    );
    const names = result.root.children!.map((c) => c.name);
    expect(names.slice(0, 4)).toEqual(['header', 'extensions', 'crash stems', 'rows']);
    const rows = result.root.children![3];
    const cut = result.root.children![4];
    expect(cut.problems?.[0].code).toBe('Truncated');
    expect(rows.lazy!.count * 32 + rows.offset).toBe(cut.offset);
    expect(await rows.lazy!.load(0, rows.lazy!.count)).toHaveLength(rows.lazy!.count);
  });

  it.each(validVectors())(
    '$name: valid, and the same tree as inspect() of the opened file',
    async ({ dir, index }) => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(dir, index)));
      const target = memoryTarget(bytes, index);
      const result = await taridxPlugin.inspectTarget(target);
      expect(result.valid).toBe(true);
      expect(result.located).toEqual([]);
      const reader = await taridxPlugin.open(target);
      expect(toPlainTree(result.root)).toEqual(toPlainTree(await taridxPlugin.inspect(reader)));
    },
  );
});

/** A small fold written by the package's own indexer: 3 shards, 4 samples each, a crash stem. */
async function writtenFold(): Promise<{ index: Uint8Array; shards: Record<string, Uint8Array> }> {
  const shards: Record<string, Uint8Array> = {};
  for (let s = 0; s < 3; s++) {
    const entries = [];
    for (let k = 0; k < 4; k++) {
      const key = `s${s}k${k}`;
      entries.push({ name: `${key}.jpg`, data: new Uint8Array(100 + 37 * k).fill(k) });
      entries.push({ name: `${key}.json`, data: new TextEncoder().encode(`{"k":${k}}`) });
    }
    shards[`f_${s}.tar`] = tarBytes(entries);
  }
  const { bytes } = await indexShards({ directory: new MemoryDirectory(shards), fold: 'f' });
  return { index: bytes, shards };
}

describe('strict read, validate and inspect agree on files broken by hand', () => {
  const put = (bytes: Uint8Array, at: number, value: number, width: 2 | 8) => {
    const copy = bytes.slice();
    const view = new DataView(copy.buffer);
    if (width === 2) view.setUint16(at, value, true);
    else view.setBigUint64(at, BigInt(value), true);
    return copy;
  };

  it('on every truncation of a written index', async () => {
    const { index } = await writtenFold();
    for (let cut = 0; cut < index.byteLength; cut++)
      await expectModesAgree(memoryTarget(index.subarray(0, cut)));
  });

  it('on a flipped magic, a bad version, pointers past the end and bad rows', async () => {
    const { index } = await writtenFold();
    const offArr = Number(new DataView(index.buffer).getBigUint64(48, true));
    const broken: Array<[string, Uint8Array]> = [
      [
        'magic',
        (() => {
          const c = index.slice();
          c[3] ^= 0x20;
          return c;
        })(),
      ],
      ['version', put(index, 8, 3, 2)],
      ['rec_size', put(index, 12, 16, 2)],
      ['off_crash past end', put(index, 40, index.byteLength + 1, 8)],
      ['off_arr past end', put(index, 48, index.byteLength + 64, 8)],
      ['n_rows', put(index, 24, 99, 8)],
      ['misaligned row', put(index, offArr + 32 + 2, 513, 8)],
      ['extid out of range', put(index, offArr + 18, 999, 2)],
    ];
    for (const [what, bytes] of broken) {
      const result = await expectModesAgree(memoryTarget(bytes));
      expect(result.valid, what).toBe(false);
    }
  });

  it('marks a bad row on the rows node, and on its field when the row is loaded', async () => {
    const { index } = await writtenFold();
    const offArr = Number(new DataView(index.buffer).getBigUint64(48, true));
    const result = await expectModesAgree(memoryTarget(put(index, offArr + 32 + 2, 513, 8)));
    const rows = result.root.children!.find((c) => c.name === 'rows')!;
    expect(rows.problems?.map((p) => p.code)).toEqual(['Misaligned']);
    const [row1] = await rows.lazy!.load(1, 2);
    expect(row1.children!.find((c) => c.name === 'offset')!.problems?.map((p) => p.code)).toEqual([
      'Misaligned',
    ]);
    const [row0] = await rows.lazy!.load(0, 1);
    expect(row0.children!.some((c) => c.problems)).toBe(false);
  });

  it('property: random truncations and byte flips never make the modes disagree', async () => {
    const { index } = await writtenFold();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: index.byteLength }),
        fc.array(fc.tuple(fc.nat({ max: index.byteLength - 1 }), fc.integer({ min: 1, max: 255 })), {
          maxLength: 3,
        }),
        async (length, flips) => {
          const bytes = index.slice(0, length);
          for (const [at, xor] of flips) if (at < bytes.byteLength) bytes[at] ^= xor;
          await expectModesAgree(memoryTarget(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('inspect --deep marks the shard at fault and keeps the others', () => {
  it('marks a shard that is missing on its shard node', async () => {
    const { index, shards } = await writtenFold();
    const { 'f_2.tar': _gone, ...rest } = shards;
    const result = await taridxPlugin.inspectTarget(memoryTarget(index, 'f.taridx', rest), { deep: true });
    expect(result.valid).toBe(false);
    const group = result.root.children!.find((c) => c.name === 'shards')!;
    expect(group.children!.map((c) => c.name)).toEqual(['f_0.tar', 'f_1.tar', 'f_2.tar']);
    expect(group.children![2].problems?.[0].code).toBe('OutOfBounds');
    expect(group.children![0].problems).toBeUndefined();
    const report = await taridxPlugin.validate(memoryTarget(index, 'f.taridx', rest));
    expect(result.errors).toEqual(report.errors);
  });

  it('marks a member of a cut shard on its member node', async () => {
    const { index, shards } = await writtenFold();
    const cut = { ...shards, 'f_1.tar': shards['f_1.tar'].subarray(0, 1200) };
    const result = await taridxPlugin.inspectTarget(memoryTarget(index, 'f.taridx', cut), { deep: true });
    const group = result.root.children!.find((c) => c.name === 'shards')!;
    const [bad] = group.children!.filter((c) => c.children?.length);
    expect(bad.name).toBe('f_1.tar');
    expect(bad.children![0]).toMatchObject({ kind: 'member', file: 'f_1.tar' });
    expect(bad.children![0].problems?.length).toBeGreaterThan(0);
    expect(result.located.every((p) => p.path.startsWith('shards/f_1.tar'))).toBe(true);
  });
});

/** Shards that answer only asynchronously, after `delay(name)` ms: the remote path of the shard checks. */
class SlowDirectory extends MemoryDirectory {
  constructor(
    files: Record<string, Uint8Array>,
    private readonly delay: (name: string) => number,
  ) {
    super(files);
  }
  override async open(name: string) {
    const inner = await super.open(name);
    const wait = this.delay(name);
    return {
      name: inner.name,
      size: inner.size,
      read: async (offset: number, length: number) => {
        await new Promise((resolve) => setTimeout(resolve, wait));
        return inner.read(offset, length);
      },
    };
  }
}

describe('shards checked concurrently report in fid order', () => {
  it('gives the same report over slow async shards as over local ones, whichever answers first', async () => {
    const { index, shards } = await writtenFold();
    // Every shard changed after indexing, each in its own way.
    const changed = {
      'f_0.tar': shards['f_0.tar'].subarray(0, 700),
      'f_1.tar': (() => {
        const c = shards['f_1.tar'].slice();
        c[512 + 512] ^= 0xff;
        return c;
      })(),
      'f_2.tar': (() => {
        const c = shards['f_2.tar'].slice();
        c[0] = 'x'.charCodeAt(0);
        return c;
      })(),
    };
    const local = await taridxPlugin.validate(memoryTarget(index, 'f.taridx', changed));
    expect(new Set(local.errors.map((e) => e.file))).toEqual(new Set(['f_0.tar', 'f_1.tar', 'f_2.tar']));
    // The first shard answers last.
    const slow = new SlowDirectory(changed, (name) =>
      name === 'f_0.tar' ? 30 : name === 'f_1.tar' ? 15 : 1,
    );
    const remote = await taridxPlugin.validate(fileTarget(new MemorySource(index, 'f.taridx'), slow));
    expect(remote).toEqual(local);
    expect(remote.errors.map((e) => e.file)).toEqual([...remote.errors.map((e) => e.file)].sort());
  });
});
