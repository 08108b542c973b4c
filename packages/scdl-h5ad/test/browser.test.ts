/**
 * The browser entry (h5wasm's wasm build, Emscripten WORKERFS) run under Node: a Web Worker's
 * FileReaderSync is emulated over a file-backed Blob stand-in, so the test also counts how
 * many bytes HDF5 actually pulls from the "File".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir, describeWith } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { type ByteSink, type DirectorySink, MemoryDirectory } from '@binscope/core';
import { convertH5adFiles, convertH5adFilesToMemory, describeH5adFile } from '../src/index.js';
import { randomCounts, writeH5ad } from './fixture.js';
import { conversionCases, expectSameArchive, loadCase, VECTORS_NEEDED } from './vectors.js';

/** A Blob stand-in over a byte range of a file, read synchronously the way FileReaderSync reads a Blob. */
class FileRangeBlob {
  static bytesRead = 0;
  constructor(
    readonly file: string,
    readonly start = 0,
    readonly size = fs.statSync(file).size,
  ) {}
  slice(a = 0, b = this.size): FileRangeBlob {
    const start = Math.min(this.size, Math.max(0, a));
    const end = Math.min(this.size, Math.max(start, b));
    return new FileRangeBlob(this.file, this.start + start, end - start);
  }
  readSync(): ArrayBuffer {
    const out = Buffer.alloc(this.size);
    const fd = fs.openSync(this.file, 'r');
    try {
      fs.readSync(fd, out, 0, this.size, this.start);
    } finally {
      fs.closeSync(fd);
    }
    FileRangeBlob.bytesRead += this.size;
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.readSync();
  }
}

const g = globalThis as Record<string, unknown>;
// What a dedicated worker offers; set before h5wasm's wasm module starts (first conversion).
g.WorkerGlobalScope = function WorkerGlobalScope() {};
g.FileReaderSync = class {
  readAsArrayBuffer(blob: FileRangeBlob): ArrayBuffer {
    return blob.readSync();
  }
};
afterAll(() => {
  delete g.WorkerGlobalScope;
  delete g.FileReaderSync;
});

const asInput = (file: string, label: string) => ({
  blob: new FileRangeBlob(file) as unknown as Blob,
  label,
});

describeWith(VECTORS_NEEDED, 'browser entry reproduces upstream archives', () => {
  for (const name of conversionCases) {
    it(`${name}: same archive as upstream, through WORKERFS`, async () => {
      const c = loadCase(name);
      const files = [...c.inputs].reverse().map((i) => asInput(i.path, i.label));
      const { directory, result } = await convertH5adFilesToMemory(files, c.options);
      const rows = c.expected.matrix.num_rows_from_row_ptr;
      expect(result.rows).toBe(rows);
      expect(result.files).toEqual(await directory.list());
      await expectSameArchive((rel) => directory.get(rel)!, await directory.list(), c.archive, rows);
    });
  }
});

describe('browser entry on generated files', () => {
  const t = tempDir('scdl-h5ad-web-');
  afterAll(() => t.remove());
  const file = path.join(t.dir, 'big.h5ad');
  writeH5ad(file, {
    X: { layout: 'csr', values: randomCounts(400, 600, 0.3, 8) },
    obs: { index: Array.from({ length: 400 }, (_, i) => `c${i}`) },
    var: { index: Array.from({ length: 600 }, (_, i) => `g${i}`) },
  });
  const size = fs.statSync(file).size;

  it('describeH5adFile reads only a small part of the file (lazy WORKERFS reads)', async () => {
    FileRangeBlob.bytesRead = 0;
    const summary = await describeH5adFile(asInput(file, 'big.h5ad'));
    expect(summary).toMatchObject({ obs: 400, vars: 600, x: { layout: 'csr', rows: 400, cols: 600 } });
    expect(FileRangeBlob.bytesRead).toBeGreaterThan(0);
    expect(FileRangeBlob.bytesRead).toBeLessThan(size / 4);
  });

  it('chunk buffers are reused only once a write resolved: a sink that takes its time to copy still gets correct bytes', async () => {
    const reference = await convertH5adFilesToMemory([asInput(file, 'big.h5ad')], {
      useX: true,
      chunkNnz: 1000,
    });
    // A sink that copies each chunk only after a macrotask, before its write resolves (core's
    // ByteSink contract): a converter reusing a buffer before that would corrupt the copy.
    const kept = new Map<string, Uint8Array[]>();
    const slow: DirectorySink = {
      async write(p, content) {
        const chunks: Uint8Array[] = [];
        const sink: ByteSink = {
          position: 0,
          write: (bytes) =>
            new Promise((resolve) =>
              setImmediate(() => {
                chunks.push(bytes.slice());
                resolve();
              }),
            ),
        };
        if (content instanceof Uint8Array) await sink.write(content);
        else await content(sink);
        kept.set(p, chunks);
      },
    };
    await convertH5adFiles([asInput(file, 'big.h5ad')], slow, { useX: true, chunkNnz: 1000 });
    for (const rel of await reference.directory.list()) {
      expect(Buffer.concat(kept.get(rel) ?? []).equals(Buffer.from(reference.directory.get(rel)!)), rel).toBe(
        true,
      );
    }
  });

  it('outside a worker (no FileReaderSync) a real Blob is copied into wasm memory and converts the same', async () => {
    const viaWorkerFs = await convertH5adFilesToMemory([asInput(file, 'big.h5ad')], { useX: true });
    const saved = g.FileReaderSync;
    delete g.FileReaderSync;
    try {
      const blob = new Blob([fs.readFileSync(file)]);
      const sink = new MemoryDirectory();
      await convertH5adFiles([{ blob, label: 'big.h5ad' }], sink, { useX: true });
      for (const rel of await viaWorkerFs.directory.list()) {
        expect(Buffer.from(sink.get(rel)!).equals(Buffer.from(viaWorkerFs.directory.get(rel)!)), rel).toBe(
          true,
        );
      }
    } finally {
      g.FileReaderSync = saved;
    }
  });
});
