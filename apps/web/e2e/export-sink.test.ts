import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlobExportSink } from '../src/worker/export-sink';

// The worker's export sink, in Node (Blob and the hash need no browser): what the page shows
// as the export's size and SHA-256 must be those of the bytes, however they were written, and
// a download built in memory stops at its stated limit.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('export sink', () => {
  it('hashes and keeps every byte, whether written in small pieces, large ones, or a reused buffer', async () => {
    const sink = new BlobExportSink('text/plain');
    const expected: number[] = [];
    const reused = new Uint8Array(7);
    for (let i = 0; i < 60_000; i++) {
      reused.fill(i & 0xff);
      await sink.write(reused);
      for (const b of reused) expected.push(b);
    }
    const large = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 31) & 0xff);
    await sink.write(large);
    for (const b of large) expected.push(b);
    const done = await sink.finish();
    const bytes = new Uint8Array(await done.blob!.arrayBuffer());
    expect(done.size).toBe(expected.length);
    expect(bytes.byteLength).toBe(expected.length);
    expect(sha256(bytes)).toBe(sha256(Uint8Array.from(expected)));
    expect(done.sha256).toBe(sha256(bytes));
  });

  it('refuses to build a download beyond its limit, saying so', async () => {
    const sink = new BlobExportSink('text/plain', 1024 * 1024);
    const chunk = new Uint8Array(300_000);
    await expect(async () => {
      for (let i = 0; i < 5; i++) await sink.write(chunk);
      await sink.finish();
    }).rejects.toThrow(/passed 1 MiB, the most a download built in memory may hold/);
  });
});
