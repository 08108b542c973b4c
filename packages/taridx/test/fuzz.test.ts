import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileTarget, type InspectNode, MemoryDirectory, MemorySource } from '@binscope/core';
import { describeWith, fuzzMutations, tarBytes, vectorsFolder } from '@binscope/testkit';
import { describe, it } from 'vitest';
import { indexShards, type TaridxReader, taridxPlugin } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const vectors = path.resolve(root, process.env.BINSCOPE_VECTORS ?? '../shared/vectors', 'taridx');
const needed = vectorsFolder(vectors);
const present = needed.present;

const cases = present
  ? fs
      .readdirSync(vectors, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'invalid')
      .map((d) => {
        const dir = path.join(vectors, d.name);
        const files = fs.readdirSync(dir);
        const index = files.find((f) => f.endsWith('.taridx'))!;
        const shards = Object.fromEntries(
          files
            .filter((f) => f.endsWith('.tar'))
            .map((f) => [f, new Uint8Array(fs.readFileSync(path.join(dir, f)))]),
        );
        return { name: d.name, index, bytes: new Uint8Array(fs.readFileSync(path.join(dir, index))), shards };
      })
  : [];

/** Everything a user can do with an index: open, every record (keys from the shards), payloads, the tree. */
async function readEverything(
  bytes: Uint8Array,
  name: string,
  shards: Record<string, Uint8Array>,
): Promise<void> {
  const target = fileTarget(new MemorySource(bytes, name), new MemoryDirectory(shards));
  try {
    const report = await taridxPlugin.validate(target);
    if (typeof report.valid !== 'boolean') throw new Error('validate returned no verdict');
  } catch (error) {
    throw new Error(`validate threw: ${(error as Error)?.stack ?? error}`);
  }
  // Inspect mode (with the shards) never throws for bad input and always has a tree to show.
  let inspected: Awaited<ReturnType<typeof taridxPlugin.inspectTarget>>;
  try {
    inspected = await taridxPlugin.inspectTarget(target, { deep: true });
  } catch (error) {
    throw new Error(`inspectTarget threw: ${(error as Error)?.stack ?? error}`);
  }
  if (!inspected.root.children?.length) throw new Error('inspectTarget gave an empty tree');
  const reader = (await taridxPlugin.open(target)) as TaridxReader;
  for await (const _record of taridxPlugin.records(reader)) {
    // every key is resolved from its shard
  }
  let n = 0;
  for await (const sample of reader.samples()) {
    if (n++ >= 20) break;
    await reader.readSample(sample);
  }
  const tree = await taridxPlugin.inspect(reader);
  const load = async (node: InspectNode) => {
    if (node.lazy) await node.lazy.load(0, Math.min(node.lazy.count, 500));
    for (const child of node.children ?? []) await load(child);
  };
  await load(tree);
  await taridxPlugin.info(reader);
}

/** Boundaries worth cutting or overwriting at: header fields, block starts, row starts. */
function boundaries(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offArr = bytes.byteLength >= 56 ? view.getUint32(48, true) : 64;
  const out = [0, 8, 10, 12, 14, 16, 24, 32, 36, 40, 48, 56, 57, 64];
  for (let at = offArr; at < Math.min(bytes.byteLength, offArr + 32 * 8); at += 32)
    out.push(at, at + 2, at + 10, at + 18, at + 20, at + 24);
  return out;
}

describeWith(needed, 'fuzzing the vectors', () => {
  for (const c of cases) {
    it(`${c.name}: mutations read fine or raise FormatError`, async () => {
      await fuzzMutations(c.bytes, (bytes) => readEverything(bytes, c.index, c.shards), {
        boundaries: boundaries(c.bytes),
      });
    });
  }
});

describe('fuzzing writer-made files', () => {
  it('mutated indexes read fine or raise FormatError', async () => {
    const shards = {
      'w_0.tar': tarBytes([
        { name: 'a/one.jpg', data: new Uint8Array(700).fill(1) },
        { name: 'a/one.json', data: new TextEncoder().encode('{}') },
        { name: 'dir', type: 'directory' },
        { name: 'two.cls', data: Uint8Array.of(0x33) },
      ]),
      'w_1.tar': tarBytes([{ name: `${'x'.repeat(120)}.jpg`, data: new Uint8Array(513) }], 'gnu'),
    };
    const { bytes } = await indexShards({ directory: new MemoryDirectory(shards), fold: 'w' });
    await fuzzMutations(bytes, (b) => readEverything(b, 'w.taridx', shards), {
      boundaries: boundaries(bytes),
    });
  });

  it('mutated tar shards index fine or raise FormatError', async () => {
    const shard = tarBytes(
      [
        { name: 'k.jpg', data: new Uint8Array(1000).fill(7) },
        { name: `${'y'.repeat(130)}.json`, data: new Uint8Array(10) },
        { name: 'k.cls', data: Uint8Array.of(1) },
      ],
      'pax',
    );
    const blocks = Array.from({ length: shard.byteLength / 512 }, (_, i) => [
      i * 512,
      i * 512 + 124,
      i * 512 + 156,
    ]).flat();
    await fuzzMutations(shard, (b) => indexShards([new MemorySource(b, 'm_0.tar')]), {
      boundaries: blocks,
      label: 'taridx tar shard',
      // T1: the header scan stops at a short read, so a cut tar indexes what it still holds.
      mustReject: () => false,
    });
  });
});
