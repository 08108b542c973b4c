import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUnprivileged, tempDir } from '@binscope/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FieldSpec, writeMldf } from '../src/index.js';
import { MldfFileWriter, openMldfFile, writeMldfFile } from '../src/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const dist = path.join(pkg, 'dist/node.js');

const fields: FieldSpec[] = [
  { name: 'label', type: 'INT' },
  { name: 'image', type: 'IMAGE_RAW' },
  { name: 'meta', type: 'JSON' },
];
const sample = (i: number) => ({
  label: BigInt(i),
  image: { height: 8, width: 8, channels: 3, pixels: new Uint8Array(192).fill(i & 0xff) },
  meta: { i },
});

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});
function scratch(): string {
  const t = tempDir('binscope-mldf-');
  cleanup.push(t.remove);
  return t.dir;
}

describe('Node file writer', () => {
  it('spills to disk and produces the same bytes as the in-memory writer', async () => {
    const dir = scratch();
    const target = path.join(dir, 'out.mldf');
    const samples = Array.from({ length: 3000 }, (_, i) => sample(i));
    await writeMldfFile(target, fields, samples, { pageSize: 4096 });
    const expected = await writeMldf(fields, samples, { pageSize: 4096 });
    expect(fs.readFileSync(target).equals(Buffer.from(expected))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['out.mldf']);
    const reader = await openMldfFile(target);
    expect(await reader.sample(2999)).toEqual({ ...sample(2999), image: { ...sample(2999).image, mode: 0 } });
    await reader.close();
  });

  it('an aborted writer leaves the target untouched and no temp files', async () => {
    const dir = scratch();
    const target = path.join(dir, 'out.mldf');
    fs.writeFileSync(target, 'previous');
    const w = MldfFileWriter.create(target, fields);
    w.add(sample(1));
    expect(fs.readdirSync(dir).length).toBe(2); // target + the spill
    w.abort();
    expect(fs.readFileSync(target, 'utf8')).toBe('previous');
    expect(fs.readdirSync(dir)).toEqual(['out.mldf']);
    await expect(writeMldfFile(target, fields, [sample(1), { label: 1.5 }])).rejects.toThrow(/safe integer/);
    expect(fs.readFileSync(target, 'utf8')).toBe('previous');
    expect(fs.readdirSync(dir)).toEqual(['out.mldf']);
  });

  it('a read-only or missing directory fails with a clear error and leaves nothing', async () => {
    await expect(writeMldfFile('/nonexistent-dir-binscope/x.mldf', fields, [sample(0)])).rejects.toThrow(
      /cannot write \/nonexistent-dir-binscope\/x.mldf: no such file or directory/,
    );
    const dir = scratch();
    fs.chmodSync(dir, 0o555);
    try {
      // The writer runs as an unprivileged user: root would ignore the folder's permissions.
      const child = runUnprivileged(
        (locate) => `
        const { writeMldfFile } = await import(${JSON.stringify(locate(pkg, 'dist/node.js'))});
        try {
          await writeMldfFile(${JSON.stringify(path.join(dir, 'x.mldf'))}, [{ name: 'label', type: 'INT' }], [{ label: 0 }]);
          console.log('written');
        } catch (error) {
          console.log(error.name, error.message);
        }`,
      );
      expect(child.stderr).toBe('');
      expect(child.stdout).toMatch(/^SourceError cannot write .*x\.mldf: permission denied/);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });

  it('a writer killed at random points leaves the previous file or nothing new; the next run cleans up', async () => {
    expect(fs.existsSync(dist), `build the package first: ${dist} is missing`).toBe(true);
    const dir = scratch();
    const target = path.join(dir, 'killed.mldf');
    const script = `
      import { writeMldfFile } from ${JSON.stringify(dist)};
      const n = Number(process.argv[2]);
      const fields = [{ name: 'label', type: 'INT' }, { name: 'blob', type: 'BYTES' }];
      const signalAt = Number(process.argv[3] ?? -1);
      async function* samples() {
        for (let i = 0; i < n; i++) {
          if (i === signalAt) await new Promise((resolve) => process.stdout.write('x', resolve));
          yield { label: i, blob: new Uint8Array(4096).fill(i & 255) };
        }
      }
      await writeMldfFile(process.argv[1], fields, samples());
      process.stdout.write('done');
    `;
    /** Runs a writer of n samples; kills it when it reaches sample `killAt`, or after `killAfterMs`. */
    const run = (n: number, killAt?: number, killAfterMs?: number) =>
      new Promise<{ done: boolean }>((resolve) => {
        const args = ['--input-type=module', '-e', script, target, String(n), String(killAt ?? -1)];
        const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.endsWith('x')) child.kill('SIGKILL');
        });
        const timer =
          killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve({ done: out === 'done' });
        });
      });
    const { openMldf } = await import('../src/index.js');
    const { openFile } = await import('@binscope/core/node');
    const countIn = async () => {
      // Whoever opens a source closes it: the reader leaves it open.
      const source = openFile(target);
      try {
        return (await openMldf(source)).numSamples;
      } finally {
        await source.close();
      }
    };
    expect((await run(50)).done).toBe(true);
    expect(await countIn()).toBe(50);
    let killedMidWrite = 0;
    const kills: Array<[number | undefined, number | undefined]> = [
      [0, undefined],
      [777, undefined],
      [19999, undefined],
      [undefined, 150],
      [undefined, 400],
    ];
    for (const [killAt, killAfterMs] of kills) {
      const { done } = await run(20000, killAt, killAfterMs);
      if (!done && fs.readdirSync(dir).length > 1) killedMidWrite++;
      // Whatever the moment of the kill: the complete old file or the complete new one.
      expect([50, 20000]).toContain(await countIn());
      if (done) expect(await countIn()).toBe(20000);
    }
    expect(killedMidWrite, 'at least one kill landed mid-write and left a temp file').toBeGreaterThan(0);
    expect((await run(10)).done).toBe(true);
    expect(await countIn()).toBe(10);
    expect(fs.readdirSync(dir)).toEqual(['killed.mldf']);
  }, 120_000);
});

describe('borrowed buffers (reuse) on local files', () => {
  const decoded = (i: number) => {
    const s = sample(i);
    return { ...s, image: { ...s.image, mode: 0 } };
  };
  it('sample, samples and batches with reuse read the same values as fresh reads', async () => {
    const dir = scratch();
    const target = path.join(dir, 'reuse.mldf');
    const count = 400;
    await writeMldfFile(
      target,
      fields,
      Array.from({ length: count }, (_, i) => sample(i)),
    );
    const reader = await openMldfFile(target);
    try {
      for (const i of [0, 7, 399, 200, 7])
        expect(await reader.sample(i, { reuse: true })).toEqual(decoded(i));
      // Borrowed: the next reusing call reads into the same memory.
      const a = (await reader.sample(1, { reuse: true })).image as { pixels: Uint8Array };
      const b = (await reader.sample(2, { reuse: true })).image as { pixels: Uint8Array };
      expect(a.pixels.buffer).toBe(b.pixels.buffer);
      // A fresh read is never borrowed.
      const fresh = (await reader.sample(3)).image as { pixels: Uint8Array };
      await reader.sample(4, { reuse: true });
      expect(fresh.pixels[0]).toBe(3);

      const indices = [399, 3, 150, 4, 300, 2, 0, 398];
      expect(await reader.samples(indices, { reuse: true })).toEqual(indices.map(decoded));

      let n = 0;
      let batches = 0;
      for await (const batch of reader.batches({ reuse: true, batchSize: 100, windowSize: 16 << 10 })) {
        expect(batch.length).toBeGreaterThan(0);
        expect(batch.length).toBeLessThanOrEqual(100);
        for (const s of batch) expect(s).toEqual(decoded(n++));
        batches++;
      }
      expect(n).toBe(count);
      // Windows of 16 KiB end batches early: more batches than count / batchSize.
      expect(batches).toBeGreaterThan(count / 100);
      let m = 0;
      for await (const batch of reader.batches({ reuse: true, start: 10, end: 20 })) {
        for (const s of batch) expect(s).toEqual(decoded(10 + m++));
      }
      expect(m).toBe(10);
    } finally {
      await reader.close();
    }
  }, 30_000);

  it('batches read ahead on the thread pool: fresh samples stay intact, and a pass left early closes cleanly', async () => {
    const dir = scratch();
    const target = path.join(dir, 'ahead.mldf');
    const count = 300;
    await writeMldfFile(
      target,
      fields,
      Array.from({ length: count }, (_, i) => sample(i)),
    );
    const reader = await openMldfFile(target);
    const kept: unknown[] = [];
    // Windows smaller than some samples: straddling samples are carried, larger ones read anew.
    for await (const batch of reader.batches({ batchSize: 7, windowSize: 3000 })) kept.push(...batch);
    // Nothing read ahead later overwrote a sample handed out earlier.
    expect(kept).toEqual(Array.from({ length: count }, (_, i) => decoded(i)));
    let seen = 0;
    for await (const batch of reader.batches({ reuse: true, windowSize: 4096 })) {
      expect(batch[0]).toEqual(decoded(seen));
      seen += batch.length;
      // From the second window on, the next one is in flight here; close must wait for it.
      if (seen > batch.length) break;
    }
    await reader.close();
    await expect(reader.sample(0)).rejects.toThrow(/read after close/);
  }, 30_000);
});
