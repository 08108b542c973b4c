import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ByteSource,
  fileTarget,
  type InspectNode,
  type InspectResult,
  isBinscopeError,
  MemorySource,
  toPlainTree,
} from '@binscope/core';
import { describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FileOffset, openUdf, UdfBuilder, udfPlugin } from '../src/index.js';
import { DatasetWalk } from '../src/walk.js';
import { UDF_VECTORS, VECTORS_NEEDED, validVectors } from './helpers.js';

/** The strict reader end to end: open, then every table of every dataset in walk order. */
async function strictError(bytes: Uint8Array): Promise<{ code: string; offset?: number } | undefined> {
  try {
    const reader = await openUdf(new MemorySource(bytes, 'f.udf'));
    const walk = new DatasetWalk(reader.header.root, async (ref) => {
      const dataset = await reader.dataset(ref.at, ref.from);
      const children: { at: FileOffset; from: number }[] = [];
      for (const info of dataset.tables) {
        const table = await dataset.read(info);
        table.fileOffsets?.forEach((at, i) => {
          children.push({ at, from: info.dataOffset + i * 16 });
        });
      }
      return { value: dataset, children };
    });
    for await (const _ of walk);
    return undefined;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return { code: error.code, offset: error.offset };
  }
}

function nodeAt(root: InspectNode, indexPath: number[]): InspectNode {
  return indexPath.reduce((n, i) => n.children![i], root);
}

/** Read, validate and inspect agree on the first error, and inspect shows a tree around it. */
async function expectModesAgree(bytes: Uint8Array): Promise<InspectResult> {
  const target = () => fileTarget(new MemorySource(bytes, 'f.udf'));
  const inspected = await udfPlugin.inspectTarget(target());
  const validated = await udfPlugin.validate(target());
  const strict = await strictError(bytes);
  expect(inspected.root.children?.length ?? 0).toBeGreaterThan(0);
  expect(inspected.errors).toEqual(validated.errors);
  const first = inspected.errors[0];
  expect(first && { code: first.code, offset: first.offset }).toEqual(strict);
  if (first) {
    const located = inspected.located.filter((p) => p.severity === 'error' && p.code === first.code);
    const owner = located.find((p) => p.offset === first.offset && p.indexPath.length > 0);
    expect(owner, 'the first error is marked below the root').toBeDefined();
    const n = nodeAt(inspected.root, owner!.indexPath);
    if (first.offset !== undefined) {
      expect(first.offset).toBeGreaterThanOrEqual(n.offset);
      expect(first.offset).toBeLessThan(n.offset + Math.max(1, n.length));
    }
  }
  return inspected;
}

function sample(): Uint8Array {
  const file = new UdfBuilder({ id: 'INSP' });
  const kid = file.dataset({ id: 'KID' }).table('v', { prim: 'i32', data: [1, 2, 3] });
  const root = file.dataset({ id: 'ROOT' });
  root.text('title', 'hello').json('meta', { n: 1 });
  root.table('ix', { prim: 'u8', data: [0, 1] });
  root.datasets('kids', [kid]);
  file.setRoot(root);
  return file.toBytes();
}

function expectedCodes(): Map<string, string> {
  const readme = fs.readFileSync(path.join(UDF_VECTORS, 'invalid', 'README.md'), 'utf8');
  const codes = new Map<string, string>();
  for (const m of readme.matchAll(/^\|\s*(\S+\.udf)\s*\|.*\|\s*(\w+)\s*\|\s*$/gm)) codes.set(m[1], m[2]);
  return codes;
}

describeWith(VECTORS_NEEDED, 'inspect mode over the vectors', () => {
  it('marks each invalid vector’s expected error on a node below the root', async () => {
    const codes = expectedCodes();
    const files = fs.readdirSync(path.join(UDF_VECTORS, 'invalid')).filter((f) => f.endsWith('.udf'));
    expect([...codes.keys()].sort()).toEqual(files.sort());
    for (const [name, code] of codes) {
      const bytes = new Uint8Array(fs.readFileSync(path.join(UDF_VECTORS, 'invalid', name)));
      const result = await expectModesAgree(bytes);
      expect(result.errors[0].code, name).toBe(code);
      expect(result.valid).toBe(false);
    }
  });

  it('gives valid vectors the tree of the opened file', async () => {
    for (const { file } of validVectors()) {
      const bytes = new Uint8Array(fs.readFileSync(file));
      const result = await udfPlugin.inspectTarget(fileTarget(new MemorySource(bytes, 'v.udf')));
      expect(result.valid, file).toBe(true);
      const opened = await udfPlugin.inspect(
        await udfPlugin.open(fileTarget(new MemorySource(bytes, 'v.udf'))),
      );
      expect(toPlainTree(result.root)).toEqual(toPlainTree(opened));
    }
  });
});

describe('inspect mode over broken files of our writer', () => {
  const valid = sample();
  const view = () => new DataView(valid.slice().buffer);

  it('a valid file inspects valid, with the tree of the opened file', async () => {
    const result = await expectModesAgree(valid);
    expect(result.valid).toBe(true);
    const opened = await udfPlugin.inspect(
      await udfPlugin.open(fileTarget(new MemorySource(valid, 'f.udf'))),
    );
    expect(toPlainTree(result.root)).toEqual(toPlainTree(opened));
  });

  it('a bad magic or version still shows the header fields, the magic marked', async () => {
    for (const [byte, code] of [
      [0x58, 'BadMagic'],
      [0x31, 'UnsupportedVersion'],
    ] as const) {
      const bytes = valid.slice();
      bytes[3] = byte;
      const result = await expectModesAgree(bytes);
      expect(result.errors[0].code).toBe(code);
      expect(result.located[0].path).toBe('file header/magic');
      const header = result.root.children![0];
      expect(header.children!.map((c) => c.name)).toEqual(['magic', 'id', 'next', 'root', 'reserved']);
    }
  });

  it('a root pointer past the end shows the pointer and the dataset clamped to the file, both marked', async () => {
    const v = view();
    const rootOffset = Number(v.getBigUint64(0x10, true));
    const rootSize = Number(v.getBigUint64(0x18, true));
    const bytes = valid.slice(0, rootOffset + 32);
    const result = await expectModesAgree(bytes);
    expect(result.errors[0].code).toBe('Truncated');
    const paths = result.located.map((p) => p.path);
    expect(paths).toContain('file header/root/offset');
    const dataset = result.root.children![1].children![0];
    expect(dataset.problems?.[0].code).toBe('Truncated');
    expect(dataset.offset + dataset.length).toBe(bytes.byteLength);
    expect(rootSize).toBeGreaterThan(dataset.length);
  });

  it('one bad table keeps every other table and dataset in the tree (U15)', async () => {
    const bytes = valid.slice();
    // Break the JSON table's payload: the other tables and the child dataset stay.
    const at = findBytes(bytes, new TextEncoder().encode('{"n":1}'));
    bytes[at] = 0x5b;
    const result = await expectModesAgree(bytes);
    expect(result.errors.map((e) => e.code)).toEqual(['InvalidValue']);
    expect(result.located[0].path).toMatch(/^datasets\/dataset "ROOT"\/data\/meta$/);
    const datasets = result.root.children![1].children!;
    expect(datasets.map((d) => d.name)).toEqual(['dataset "ROOT"', 'dataset "KID"']);
  });

  it('a child dataset pointer past the end keeps the root dataset and marks the pointer', async () => {
    const reader = await openUdf(new MemorySource(valid));
    const root = (await reader.root())!;
    const kids = root.table('kids')!;
    const bytes = valid.slice();
    new DataView(bytes.buffer).setBigUint64(kids.dataOffset, BigInt(bytes.byteLength + 64), true);
    const result = await expectModesAgree(bytes);
    expect(result.errors[0].code).toBe('OutOfBounds');
    expect(result.located[0].path).toMatch(/^datasets\/dataset "ROOT"\/data\/kids$/);
  });

  it('one structure’s errors come in A2 order, not in the order they were found', async () => {
    const bytes = valid.slice();
    const v = new DataView(bytes.buffer);
    const base = Number(v.getBigUint64(0x10, true));
    const lookup = base + 24 + 48 * v.getUint16(base + 0x0e, true);
    v.setUint16(lookup + 6, 0xffff, true); // entry 0's string runs past the blob: bounds
    v.setUint32(lookup + 8, 0, true); // entry 1's hash is 0, found later: header, ranked first
    const result = await expectModesAgree(bytes);
    expect(result.errors.slice(0, 2).map((e) => e.code)).toEqual(['InvalidValue', 'OutOfBounds']);
  });

  it('a source without readSync inspects to the same tree and problems', async () => {
    const bytes = valid.slice();
    bytes[findBytes(bytes, new TextEncoder().encode('{"n":1}'))] = 0x5b;
    const memory = new MemorySource(bytes, 'f.udf');
    const asyncOnly: ByteSource = {
      name: 'f.udf',
      size: memory.size,
      read: async (o, n) => memory.read(o, n),
    };
    const viaSync = await udfPlugin.inspectTarget(fileTarget(memory));
    const viaAsync = await udfPlugin.inspectTarget(fileTarget(asyncOnly));
    expect(viaAsync.errors.length).toBeGreaterThan(0);
    expect(viaAsync.errors).toEqual(viaSync.errors);
    expect(toPlainTree(viaAsync.root)).toEqual(toPlainTree(viaSync.root));
  });

  it('read, validate and inspect agree on every truncation and byte flip', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: valid.byteLength - 1 }),
        fc.array(fc.tuple(fc.nat(valid.byteLength - 1), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
        async (cut, flips) => {
          const bytes = valid.slice(0, cut || valid.byteLength);
          for (const [at, xor] of flips) if (at < bytes.byteLength) bytes[at] ^= xor;
          await expectModesAgree(bytes);
        },
      ),
      { numRuns: 300 },
    );
  });
});

function findBytes(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let k = 0; k < needle.length; k++) if (haystack[i + k] !== needle[k]) continue outer;
    return i;
  }
  throw new Error('not found');
}
