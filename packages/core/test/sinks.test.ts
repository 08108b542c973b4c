import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBinscopeError, MemoryDirectory, memoryScratch, readExact, type Scratch } from '../src/index.js';
import { fileScratch, folderSink } from '../src/node/index.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-sinks-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const bytes = (from: number, n: number) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);

describe.each([
  ['memoryScratch', () => memoryScratch()],
  ['fileScratch', () => fileScratch(path.join(dir, 'out.bin'))],
] as Array<[string, () => Scratch]>)('%s', (_name, make) => {
  it('appends, reads back across appends (into a buffer too), and removes its files', () => {
    const scratch = make();
    const file = scratch.file('col 1/offsets');
    const chunk = bytes(0, 100);
    file.append(chunk);
    chunk.fill(0); // the caller may reuse its buffer once append returns
    file.append(bytes(100, 50));
    file.append(new Uint8Array(0));
    expect(file.size).toBe(150);
    const across = readExact(file, 90, 20) as Uint8Array;
    expect(Array.from(across)).toEqual(Array.from(bytes(90, 20)));
    const into = new Uint8Array(10);
    expect(file.read(145, 10, { into })).toEqual(bytes(145, 5));
    expect(Array.from(file.read(0, 1000) as Uint8Array)).toEqual(Array.from(bytes(0, 150)));
    scratch.close();
    expect(() => file.read(0, 1)).toThrow();
    if (_name === 'fileScratch') expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('sinks', () => {
  it('folderSink writes each file whole, makes folders, and keeps paths inside', async () => {
    // The sink's root is a folder inside `dir`, so an escape would land in `dir`, not elsewhere.
    const root = path.join(dir, 'root');
    const sink = folderSink(root);
    await sink.write('a/b/c.bin', bytes(0, 4));
    await sink.write('d.txt', async (out) => {
      await out.write(new TextEncoder().encode('he'));
      await out.write(new TextEncoder().encode('llo'));
    });
    expect(fs.readFileSync(path.join(root, 'a/b/c.bin'))).toEqual(Buffer.from(bytes(0, 4)));
    expect(fs.readFileSync(path.join(root, 'd.txt'), 'utf8')).toBe('hello');
    const outside = await sink.write('../x.bin', bytes(0, 1)).catch((e: unknown) => e);
    expect(isBinscopeError(outside, 'SourceError')).toBe(true);
    expect(fs.existsSync(path.join(dir, 'x.bin'))).toBe(false);
    // A failed streamed write leaves nothing behind.
    await expect(
      sink.write('e.bin', async (out) => {
        await out.write(bytes(0, 3));
        throw new Error('writer failed');
      }),
    ).rejects.toThrow('writer failed');
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'd.txt']);
  });

  it('a MemoryDirectory is a sink that reads back what was written', async () => {
    const memory = new MemoryDirectory();
    await memory.write('x/y.bin', bytes(5, 3));
    await memory.write('z.bin', async (out) => out.write(bytes(9, 2)));
    expect(await memory.list()).toEqual(['x/y.bin', 'z.bin']);
    expect(Array.from(await readExact(await memory.open('z.bin'), 0, 2))).toEqual([9, 10]);
  });
});
