import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ByteSource, isBinscopeError, MemorySource } from '@binscope/core';
import { openFile } from '@binscope/core/node';
import { tarBytes, tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { indexShards } from '../src/index.js';

// A tar stream cut inside a header (a half-copied shard, an interrupted download or pipe) used
// to be indexed up to the last whole header with no error: 7 of 10 rows, exit 0.

const enc = new TextEncoder();
const MEMBERS = 10;
const full = tarBytes(
  Array.from({ length: MEMBERS }, (_, i) => ({ name: `s${i}.cls`, data: enc.encode(String(i)) })),
);
// Each member is a 512-byte header and one 512-byte block of payload; then the end blocks.
const headerAt = (i: number) => i * 1024;
const scratch = tempDir('taridx-truncated-');
afterAll(() => scratch.remove());

/** The three ways walkTar reads: positional file reads, in-memory views, windowed async reads. */
function sources(bytes: Uint8Array, name: string): [string, () => ByteSource][] {
  const file = path.join(scratch.dir, `${bytes.byteLength}-${name}`);
  fs.writeFileSync(file, bytes);
  return [
    ['a local file', () => openFile(file)],
    ['memory', () => new MemorySource(bytes, name)],
    [
      'a remote-like source (async reads only)',
      () => {
        const memory = new MemorySource(bytes, name);
        return { name, size: bytes.byteLength, read: (o: number, n: number) => memory.read(o, n) };
      },
    ],
  ];
}

async function index(source: ByteSource): Promise<{ rows?: number; error?: unknown }> {
  try {
    return { rows: (await indexShards([source])).rows };
  } catch (error) {
    return { error };
  }
}

describe('a tar cut inside a header is Truncated, at that header', () => {
  for (const into of [1, 100, 200, 511]) {
    const cut = headerAt(7) + into;
    for (const [kind, open] of sources(full.subarray(0, cut), 'f_0.tar')) {
      it(`${into} bytes into header 7, read from ${kind}`, async () => {
        const { rows, error } = await index(open());
        expect(rows, 'indexed without an error').toBeUndefined();
        expect(isBinscopeError(error, 'FormatError')).toBe(true);
        expect((error as { code: string }).code).toBe('Truncated');
        expect((error as { offset: number }).offset).toBe(headerAt(7));
        expect((error as Error).message).toMatch(
          new RegExp(
            `tar header at ${headerAt(7)} is cut off: the shard ends at ${cut}, ${into} of its 512 bytes`,
          ),
        );
      });
    }
  }
});

describe('what is not a truncation', () => {
  const cases: [string, Uint8Array][] = [
    ['the whole tar', full],
    ['no end-of-archive blocks (cut at a member boundary)', full.subarray(0, headerAt(MEMBERS))],
    ['an end-of-archive block cut short', full.subarray(0, headerAt(MEMBERS) + 700)],
  ];
  for (const [name, bytes] of cases) {
    for (const [kind, open] of sources(bytes, 'f_0.tar')) {
      it(`${name}, read from ${kind}: every member`, async () => {
        const { rows, error } = await index(open());
        expect(error).toBeUndefined();
        expect(rows).toBe(MEMBERS);
      });
    }
  }
});
