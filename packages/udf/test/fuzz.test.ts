import * as fs from 'node:fs';
import { fileTarget, isBinscopeError, MemorySource, walk } from '@binscope/core';
import { describeWith, fuzzMutations, onlyTruncates } from '@binscope/testkit';
import { describe, it } from 'vitest';
import { UdfBuilder, type UdfReader, udfPlugin, validateUdf } from '../src/index.js';
import { VECTORS_NEEDED, validVectors } from './helpers.js';

/** Structure boundaries worth truncating at / overwriting: header fields, datasets, descriptors, lookups, data. */
async function boundaries(bytes: Uint8Array): Promise<number[]> {
  const out = new Set([0, 3, 4, 8, 0x10, 0x18, 0x20, 0x40]);
  const reader = (await udfPlugin.open(fileTarget(new MemorySource(bytes)))) as UdfReader;
  for await (const d of reader.walk()) {
    const base = d.fileOffset.offset;
    for (const b of [
      base,
      base + 0x0c,
      base + 0x0e,
      base + 0x10,
      base + 0x12,
      base + d.header.headerSize,
      base + d.fileOffset.size,
    ])
      out.add(b);
    for (const t of d.tables)
      for (const b of [
        t.descriptorOffset,
        t.descriptorOffset + 4,
        t.descriptorOffset + 8,
        t.descriptorOffset + 0x10,
        t.descriptorOffset + 0x14,
        t.dataOffset,
      ])
        out.add(b);
  }
  return [...out].filter((b) => b < bytes.byteLength);
}

/**
 * Where the bytes the file references end: the 64-byte header and every reachable dataset.
 * Bytes past it are unreferenced (allowed: readers never scan), so only a cut before it
 * must be rejected.
 */
async function referencedEnd(bytes: Uint8Array): Promise<number> {
  let end = 0x40;
  const reader = (await udfPlugin.open(fileTarget(new MemorySource(bytes)))) as UdfReader;
  for await (const d of reader.walk()) end = Math.max(end, d.fileOffset.offset + d.fileOffset.size);
  return end;
}

/** Fuzzes `bytes`: a truncation into referenced bytes must be rejected. */
async function fuzz(bytes: Uint8Array, label: string): Promise<void> {
  const end = await referencedEnd(bytes);
  await fuzzMutations(bytes, readEverything, {
    boundaries: await boundaries(bytes),
    label,
    mustReject: (mutations, mutated, valid) =>
      onlyTruncates(mutations, mutated, valid) && mutated.byteLength < end,
  });
}

/** Everything a user or the CLI can do with a file: open, walk, decode, records, inspect (lazy pages too). */
async function readEverything(bytes: Uint8Array): Promise<void> {
  const report = await validateUdf(new MemorySource(bytes)).catch((e: unknown) => {
    throw new Error(`validate threw: ${(e as Error)?.stack ?? e}`);
  });
  let failure: unknown;
  try {
    const target = fileTarget(new MemorySource(bytes));
    const reader = (await udfPlugin.open(target)) as UdfReader;
    for await (const d of reader.walk()) for (const t of d.tables) await d.read(t);
    for await (const _ of udfPlugin.records(reader)) {
      // decode every record
    }
    const tree = await udfPlugin.inspect(reader);
    const lazy: Promise<unknown>[] = [];
    walk(tree, (n) => {
      if (n.lazy) lazy.push(n.lazy.load(0, n.lazy.count));
      return true;
    });
    await Promise.all(lazy);
    await udfPlugin.info(reader);
  } catch (error) {
    failure = error;
  }
  // The reader and validate agree: a file reads cleanly exactly when validate finds no error.
  if (failure === undefined && !report.valid)
    throw new Error(`read fine but validate says ${JSON.stringify(report.errors)}`);
  if (failure !== undefined && report.valid && isBinscopeError(failure, 'FormatError'))
    throw new Error(`validate says valid but reading failed: ${failure}`);
  if (failure !== undefined) throw failure;
}

function writerFile(): Uint8Array {
  const file = new UdfBuilder({ id: 'FUZZ' });
  const kid = file.dataset({ id: 'KID' });
  kid.table('v', { prim: 'f64', data: [1.5, -2] }).text('names', ['a', 'bé'], { encoding: 'utf16' });
  const root = file.dataset({ id: 'ROOT' });
  root.table('pts', { prim: 'f32', hint: 'coord', shape: [3, 2], data: [0, 0, 1, 0, 1, 1] });
  root.table('tri', { prim: 'u32', hint: 'index', indexName: 'pts', data: [0, 1, 2] });
  root.table('spans', { prim: 'u8', hint: 'range', indexName: 'pts', shape: [1, 2], data: [0, 3] });
  root.json('meta', { a: [1, 2] }).text('s', 'x✓', { encoding: 'utf32' });
  root.datasets('kids', [kid, root, null]);
  file.setRoot(root);
  return file.toBytes();
}

describe('fuzz: mutated files read or fail with FormatError, validate never throws', () => {
  it('a file our writer makes', async () => {
    await fuzz(writerFile(), 'udf writer file');
  });

  describeWith(VECTORS_NEEDED, 'each valid vector', () => {
    for (const vector of validVectors()) {
      it(vector.name, async () => {
        await fuzz(new Uint8Array(fs.readFileSync(vector.file)), `udf ${vector.name}`);
      });
    }
  });
});
