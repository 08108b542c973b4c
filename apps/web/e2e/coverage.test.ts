import { BlobSource, MemoryDirectory, MemorySource, type ReadRequest } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { Coverage, CoverageDirectory, CoverageSource, covered } from '../src/worker/counting';

// The page's byte counter wraps every local file; it implements the one read method and hands
// each request on as made, so the inner source's fast paths (a synchronous answer, `into`,
// `defer`, the signal) are never lost on the way.

const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);

describe('CoverageSource', () => {
  it('answers synchronously when its source does, into the caller’s buffer', () => {
    const source = new CoverageSource(new MemorySource(bytes, 'm'));
    const into = new Uint8Array(8);
    const out = source.read(4, 8, { into });
    expect(out).not.toBeInstanceOf(Promise);
    expect(out).toBe(into);
    expect([...into]).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('hands the request on unchanged and counts distinct bytes once', async () => {
    const seen: Array<ReadRequest | undefined> = [];
    const inner = {
      name: 'spy',
      size: bytes.length,
      read: async (offset: number, length: number, request?: ReadRequest) => {
        seen.push(request);
        return bytes.subarray(offset, offset + length);
      },
    };
    const source = new CoverageSource(inner);
    const request: ReadRequest = { defer: true, signal: new AbortController().signal };
    await source.read(0, 16, request);
    await source.read(8, 16, request);
    expect(seen).toEqual([request, request]);
    expect(source.coverage.bytes).toBe(24);
    expect(source.coverage.reads).toBe(2);
  });

  it('keeps a browser File a BlobSource (a format may mount the Blob itself) and counts its reads', async () => {
    const coverage = new Coverage();
    const source = covered(new BlobSource(new Blob([bytes]), 'f.bin'), coverage);
    expect(source).toBeInstanceOf(BlobSource);
    expect(source.name).toBe('f.bin');
    expect([...(await source.read(2, 3))]).toEqual([2, 3, 4]);
    expect(coverage.bytes).toBe(3);
    const memory = covered(new MemorySource(bytes, 'm'));
    expect(memory.read(0, 1)).not.toBeInstanceOf(Promise);
  });

  it('totals a folder’s reads across its files', async () => {
    const directory = new CoverageDirectory(new MemoryDirectory({ a: bytes, b: bytes }));
    await (await directory.open('a')).read(0, 10);
    await (await directory.open('b')).read(60, 10);
    expect(directory.bytesRead).toBe(14);
  });
});
