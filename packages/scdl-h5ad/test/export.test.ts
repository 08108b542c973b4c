import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ConvertReport,
  directoryTarget,
  isBinscopeError,
  type MemoryDirectory,
  memoryScratch,
  type ProgressEvent,
  runConverter,
} from '@binscope/core';
import { fileScratch, openDirectory, openOutput } from '@binscope/core/node';
import { openScdl, writeScdlToMemory } from '@binscope/scdl';
import { describeWith, pythonModules, runPython, tempDir } from '@binscope/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { scdlToH5adConverter as browserInfo, writeAnnData } from '../src/index.js';
import { scdlToH5adConverter } from '../src/magic-node.js';
import { convertH5adToScdl, describeH5ad, loadH5wasmNode } from '../src/node.js';
import { type AnnDataSpec, randomCounts, writeH5ad } from './fixture.js';
import { vectorsRoot } from './vectors.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'h5ad_roundtrip.py');
const H5PY = pythonModules(['h5py', 'numpy']);

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});
function scratchDir(): string {
  const t = tempDir('scdl-h5ad-export-');
  temps.push(t);
  return t.dir;
}

/** The SCDL data dtype that keeps a source matrix's dtype (float32 for those SCDL cannot hold). */
const KEEP_DTYPE: Record<string, string> = {
  f16: 'float16',
  f32: 'float32',
  f64: 'float64',
  u8: 'uint8',
  u16: 'uint16',
  u32: 'uint32',
  u64: 'uint64',
};

/** Exports an archive folder to `out` with the Node converter, as the CLI does (atomic output, scratch beside it). */
async function exportArchive(
  archive: string,
  out: string,
  options: { signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void } = {},
): Promise<ConvertReport> {
  const directory = openDirectory(archive);
  const output = await openOutput(out);
  const scratch = fileScratch(out);
  try {
    const report = await runConverter(
      scdlToH5adConverter,
      await scdlToH5adConverter.load(),
      directoryTarget(directory),
      { kind: 'file', sink: output },
      { scratch, ...options },
    );
    await output.commit();
    return report;
  } catch (error) {
    await output.abort();
    throw error;
  } finally {
    scratch.close();
    await directory.close();
  }
}

/** `.h5ad` → SCDL (keeping X's dtype) → `.h5ad`, then h5py compares the two files. */
async function roundTrip(source: string, dir: string) {
  const summary = await describeH5ad(source);
  const matrix = summary.rawX ? summary.rawX : summary.x!;
  const dtype = KEEP_DTYPE[matrix.dtype] ?? 'float32';
  const archive = path.join(dir, 'archive');
  await convertH5adToScdl(source, archive, { dataDtype: dtype as 'float32' });
  const out = path.join(dir, 'out.h5ad');
  const report = await exportArchive(archive, out);
  const numpy = dtype === 'float16' ? 'float32' : dtype;
  const checked = JSON.parse(
    runPython(
      SCRIPT,
      [source, out],
      JSON.stringify({ matrix: summary.rawX ? 'raw/X' : 'X', dtype: numpy, varFrame: 'var' }),
    ),
  );
  return { report, checked, summary };
}

/** The shared vectors' `.h5ad` files, found generically. */
function vectorH5ads(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'invalid') visit(full);
      else if (entry.name.endsWith('.h5ad')) found.push(full);
    }
  };
  visit(vectorsRoot);
  return found.sort();
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Fixtures covering each column encoding and X dtype the export maps. */
const FIXTURES: Record<string, AnnDataSpec> = {
  'float64 X, every column encoding': {
    X: { layout: 'csr', values: randomCounts(7, 5, 0.4, 3).map((r) => r.map((v) => v / 3)), dtype: '<f8' },
    obs: {
      index: names('cell', 7),
      columns: [
        { name: 'label', kind: 'string', values: ['a', 'é', '', 'a', '漢', 'b', 'c'] },
        { name: 'type', kind: 'categorical', categories: ['T', 'B'], codes: [0, 1, -1, 0, 1, 1, 0] },
        { name: 'score', kind: 'numeric', values: [0.5, Number.NaN, 2, -1, 3.25, 0, 1e300], dtype: '<f8' },
        { name: 'n', kind: 'numeric', values: [1, 2, 3, 4, 5, 6, 7], dtype: '<i4' },
        { name: 'big', kind: 'int64', values: [0n, 2n ** 60n, -5n, 1n, 2n, 3n, 4n] },
        {
          name: 'k',
          kind: 'nullable-integer',
          values: [1, 0, 3, 4, 0, 6, 7],
          mask: [false, true, false, false, true, false, false],
        },
        {
          name: 'ok',
          kind: 'nullable-boolean',
          values: [true, false, false, true, true, false, true],
          mask: [false, false, true, false, false, false, false],
        },
      ],
    },
    var: {
      index: names('gene', 5),
      columns: [{ name: 'symbol', kind: 'string', values: ['A', 'B', 'C', 'D', 'E'] }],
    },
  },
  'uint16 X, frames without columns keep their index': {
    X: { layout: 'csr', values: randomCounts(6, 9, 0.3, 5), dtype: '<u2' },
    obs: { index: names('barcode-', 6) },
    var: { index: names('ENSG', 9) },
  },
  'float32 raw.X used over X, empty rows': {
    X: {
      layout: 'csr',
      values: [
        [1, 0],
        [0, 0],
        [0, 2],
      ],
    },
    raw: {
      layout: 'csr',
      values: [
        [0, 0, 3],
        [0, 0, 0],
        [4, 0, 5],
      ],
      dtype: '<f4',
    },
    obs: { index: names('c', 3), columns: [{ name: 'g', kind: 'numeric', values: [1, 2, 3], dtype: '<f4' }] },
    var: { index: names('g', 3) },
  },
};

describeWith(H5PY, 'SCDL → .h5ad: h5py reads the AnnData layout and X equals the source (round trip)', () => {
  for (const [name, spec] of Object.entries(FIXTURES)) {
    it(name, async () => {
      const dir = scratchDir();
      const source = path.join(dir, 'in.h5ad');
      writeH5ad(source, spec);
      const { checked, report } = await roundTrip(source, dir);
      expect(checked.shape).toEqual([spec.obs.index.length, spec.var.index.length]);
      expect(checked.obs).toEqual((spec.obs.columns ?? []).map((c) => c.name));
      expect(report.details.rows).toBe(spec.obs.index.length);
    });
  }

  const vectors = vectorH5ads();
  it('the shared vectors have .h5ad files to round-trip', () => {
    // Outside CI without the vectors this proves nothing; the vectors test suite says so.
    if (fs.existsSync(vectorsRoot)) expect(vectors.length).toBeGreaterThan(0);
  });
  for (const source of vectors) {
    it(`vector ${path.relative(vectorsRoot, source)}`, async () => {
      const { checked, summary } = await roundTrip(source, scratchDir());
      expect(checked.shape).toEqual([summary.obs, (summary.rawX ?? summary.x)!.cols]);
    });
  }

  it('X is written in row blocks: many small blocks give the same file content as one', async () => {
    const dir = scratchDir();
    const source = path.join(dir, 'in.h5ad');
    writeH5ad(source, {
      X: { layout: 'csr', values: randomCounts(300, 40, 0.2, 11), dtype: '<f4' },
      obs: { index: names('c', 300) },
      var: { index: names('g', 40) },
    });
    await convertH5adToScdl(source, path.join(dir, 'archive'));
    const directory = openDirectory(path.join(dir, 'archive'));
    const reader = await openScdl(directory);
    const out = path.join(dir, 'blocks.h5ad');
    const lib = await loadH5wasmNode();
    const writes: number[] = [];
    await writeAnnData(
      reader,
      { lib, path: out, copyTo: async () => {}, dispose: () => {} },
      { batchBytes: 64, onProgress: (e) => e.phase === 'writing X' && writes.push(e.done) },
    );
    await directory.close();
    expect(writes.length).toBeGreaterThan(20);
    expect(writes.at(-1)).toBe(300);
    runPython(SCRIPT, [source, out], JSON.stringify({ matrix: 'X', dtype: 'float32', varFrame: 'var' }));
  });

  it('the browser build (file in wasm memory, streamed to the sink) writes the same AnnData', async () => {
    const dir = scratchDir();
    const source = path.join(dir, 'in.h5ad');
    writeH5ad(source, FIXTURES['float64 X, every column encoding']);
    await convertH5adToScdl(source, path.join(dir, 'archive'), { dataDtype: 'float64' });
    const directory = openDirectory(path.join(dir, 'archive'));
    const chunks: Uint8Array[] = [];
    const sink = {
      position: 0,
      async write(bytes: Uint8Array) {
        chunks.push(bytes.slice());
        sink.position += bytes.byteLength;
      },
    };
    const progress: ProgressEvent[] = [];
    await runConverter(
      browserInfo,
      await browserInfo.load(),
      directoryTarget(directory),
      { kind: 'file', sink },
      {
        scratch: memoryScratch(),
        onProgress: (e) => progress.push(e),
      },
    );
    await directory.close();
    const out = path.join(dir, 'browser.h5ad');
    fs.writeFileSync(out, Buffer.concat(chunks));
    runPython(SCRIPT, [source, out], JSON.stringify({ matrix: 'X', dtype: 'float64', varFrame: 'var' }));
    expect(progress.some((e) => e.phase === 'writing X' && e.done === 7)).toBe(true);
  });
});

describe('SCDL → .h5ad refusals and atomicity', () => {
  it('an archive whose rows use different var spaces is refused (UnsupportedFeature); nothing is written', async () => {
    const { directory } = await writeScdlToMemory(
      { indptr: [0, 1, 2], indices: [0, 2], data: [1, 2], numCols: 3 },
      {
        var: [
          { label: 'a', rows: 1, columns: [{ name: 'gene', values: ['g0', 'g1'] }] },
          { label: 'b', rows: 1, columns: [{ name: 'gene', values: ['h0', 'h1', 'h2'] }] },
        ],
      },
    );
    const dir = scratchDir();
    const out = path.join(dir, 'out.h5ad');
    const archive = path.join(dir, 'archive');
    await writeMemoryArchive(directory, archive);
    const error = await exportArchive(archive, out).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'FormatError') && error.code).toBe('UnsupportedFeature');
    expect(String((error as Error).message)).toMatch(/different features/);
    expect(fs.readdirSync(dir)).toEqual(['archive']);
  });

  it('an abort stops the export and leaves neither the output nor a temp file', async () => {
    const dir = scratchDir();
    const source = path.join(dir, 'in.h5ad');
    writeH5ad(source, {
      X: { layout: 'csr', values: randomCounts(50, 10, 0.5, 2) },
      obs: { index: names('c', 50) },
      var: { index: names('g', 10) },
    });
    await convertH5adToScdl(source, path.join(dir, 'archive'));
    const controller = new AbortController();
    const out = path.join(dir, 'out.h5ad');
    const phases: string[] = [];
    const error = await exportArchive(path.join(dir, 'archive'), out, {
      signal: controller.signal,
      onProgress: (e) => {
        phases.push(e.phase ?? '');
        if (e.phase === 'reading obs and var tables') controller.abort(new Error('stop'));
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // Stopped before X was written, not when the finished file was copied.
    expect(phases).toEqual(['reading obs and var tables']);
    expect(fs.readdirSync(dir).sort()).toEqual(['archive', 'in.h5ad']);
  });

  it('a column index beyond the var table is OutOfBounds, and nothing is written', async () => {
    // Two valid archives, then the 4-gene var table swapped for a 2-gene one: row 0 stores column 3.
    const wide = await writeScdlToMemory(
      { indptr: [0, 2], indices: [0, 3], data: [1, 2], numCols: 4 },
      { var: [{ label: 'a', rows: 1, columns: [{ name: 'gene', values: ['g0', 'g1', 'g2', 'g3'] }] }] },
    );
    const narrow = await writeScdlToMemory(
      { indptr: [0, 1], indices: [1], data: [1], numCols: 2 },
      { var: [{ label: 'a', rows: 1, columns: [{ name: 'gene', values: ['g0', 'g1'] }] }] },
    );
    const dir = scratchDir();
    const archive = path.join(dir, 'archive');
    await writeMemoryArchive(wide.directory, archive);
    await writeMemoryArchive(narrow.directory, path.join(dir, 'narrow'));
    const table = 'var_features/dataframe_0.parquet';
    fs.copyFileSync(path.join(dir, 'narrow', table), path.join(archive, table));
    const out = path.join(dir, 'out.h5ad');
    const error = await exportArchive(archive, out).catch((e: unknown) => e);
    expect(isBinscopeError(error, 'FormatError') && error.code).toBe('OutOfBounds');
    expect(String((error as Error).message)).toMatch(/column index 3 .* outside the 2 var features/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

/** A MemoryDirectory's files written to a folder on disk. */
async function writeMemoryArchive(directory: MemoryDirectory, to: string): Promise<void> {
  for (const file of await directory.list()) {
    const source = await directory.open(file);
    const bytes = await source.read(0, source.size);
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.writeFileSync(path.join(to, file), bytes);
  }
}
