import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScdlArchiveWriter, openScdlArchive } from '@binscope/scdl/node';
import { type Bench, generateInChild, generatorMain } from './harness.js';

const here = fileURLToPath(import.meta.url);

const FULL_CELLS = 80_000;
const GENES = 20_000;
const FULL_RANDOM_READS = 100_000;
const CHUNK_ROWS = 1000;

/** xorshift32: a deterministic workload on every machine. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/**
 * The workload × scale: cells × 20,000 genes, 400–1,200 non-zeros per row
 * (sorted distinct columns), float32 counts, a var table of gene ids and an obs table of
 * cell types and counts. Written with this project's streaming writer.
 */
export async function generate(target: string, cells: number): Promise<void> {
  const random = rng(7);
  const perRow = Array.from({ length: cells }, () => 400 + Math.floor(random() * 801));
  const nnz = perRow.reduce((a, b) => a + b, 0);
  const writer = await createScdlArchiveWriter(target, { dataDType: 'float32', numCols: GENES, nnz });
  for (let start = 0; start < cells; start += CHUNK_ROWS) {
    const end = Math.min(cells, start + CHUNK_ROWS);
    let chunkNnz = 0;
    for (let r = start; r < end; r++) chunkNnz += perRow[r];
    const indptr = new Float64Array(end - start + 1);
    const indices = new Uint16Array(chunkNnz);
    const data = new Float32Array(chunkNnz);
    let at = 0;
    for (let r = start; r < end; r++) {
      const k = perRow[r];
      const stride = GENES / k;
      // One column per stride window: distinct and sorted without a shuffle.
      for (let j = 0; j < k; j++) {
        indices[at] = Math.floor(j * stride + random() * stride);
        data[at] = 1 + Math.floor(random() * 50);
        at++;
      }
      indptr[r - start + 1] = at;
    }
    await writer.appendRows({ indptr, indices, data });
  }
  const cellTypes = ['T cell', 'B cell', 'NK cell', 'monocyte', 'dendritic'];
  await writer.finish({
    var: [
      {
        label: 'bench.h5ad',
        rows: cells,
        columns: [
          {
            name: 'feature_id',
            values: Array.from({ length: GENES }, (_, g) => `ENSG${String(g).padStart(11, '0')}`),
          },
        ],
      },
    ],
    obs: [
      {
        label: 'bench.h5ad',
        rows: cells,
        columns: [
          {
            name: 'cell_type',
            values: Array.from({ length: cells }, (_, c) => cellTypes[c % cellTypes.length]),
          },
          { name: 'n_counts', values: perRow, type: 'int64' },
        ],
      },
    ],
  });
}

function fileSize(file: string): number {
  return fs.statSync(file).size;
}

export default async function run(b: Bench): Promise<void> {
  const cells = b.n(FULL_CELLS, 50);
  const archive = path.join(b.dir('scdl'), 'bench.scdl');
  process.stderr.write(`scdl: generating ${cells} cells × ${GENES} genes (child process) …\n`);
  // The reads below are a reader's alone: the writer's heap and GC state stay in the child.
  generateInChild(here, [archive, String(cells)]);
  const dataFile = path.join(archive, 'data.npy');
  const colFile = path.join(archive, 'col_ptr.npy');
  const dataBytes = fileSize(dataFile);
  const colBytes = fileSize(colFile);

  const reader = await openScdlArchive(archive);
  const nnz = reader.nnz;
  const rowPtr = (await reader.rows(0, reader.numRows)).indptr; // the floor gets the offsets for free
  const colItem = reader.colPtr.itemSize;

  // 1. Random rows with values materialised, vs bare positional reads of the same slices.
  const reads = b.n(FULL_RANDOM_READS, 100);
  const random = rng(42);
  const picks = Uint32Array.from({ length: reads }, () => Math.floor(random() * reader.numRows));
  let randomBytes = 0;
  for (const i of picks) randomBytes += (rowPtr[i + 1] - rowPtr[i]) * (4 + colItem);
  const dataFd = fs.openSync(dataFile, 'r');
  const colFd = fs.openSync(colFile, 'r');
  const scratch = Buffer.allocUnsafe(1 << 20);
  let sink = 0;
  const sliceReads = {
    name: 'fs.readSync of the same col_ptr/data slices',
    run: () => {
      for (const i of picks) {
        const a = rowPtr[i];
        const n = rowPtr[i + 1] - a;
        fs.readSync(colFd, scratch, 0, n * colItem, a * colItem);
        fs.readSync(dataFd, scratch, n * colItem, n * 4, a * 4);
        sink += scratch[0];
      }
    },
  };
  await b.compare(
    {
      format: 'scdl',
      operation: `${reads.toLocaleString('en-US')} random row(i) reads`,
      items: reads,
      bytes: randomBytes,
      goal: '≤ 1.2',
      allocation: { count: reads, unit: 'row' },
    },
    async () => {
      for (const i of picks) {
        const row = await reader.row(i);
        sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
      }
    },
    sliceReads,
  );

  await b.compare(
    {
      format: 'scdl',
      operation: `${reads.toLocaleString('en-US')} random row(i, { reuse: true }) reads`,
      items: reads,
      bytes: randomBytes,
      goal: '≤ 1.2',
      allocation: { count: reads, unit: 'row' },
    },
    async () => {
      for (const i of picks) {
        const row = await reader.row(i, { reuse: true });
        sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
      }
    },
    sliceReads,
  );

  // The same reads without awaiting: row(i) answers synchronously from local files (no promise per row).
  for (const reuse of [false, true]) {
    await b.compare(
      {
        format: 'scdl',
        operation: `${reads.toLocaleString('en-US')} random row(i${reuse ? ', { reuse: true }' : ''}) reads, answered synchronously`,
        items: reads,
        bytes: randomBytes,
        goal: '≤ 1.2',
        allocation: { count: reads, unit: 'row' },
      },
      () => {
        const options = { reuse };
        for (const i of picks) {
          const row = reader.row(i, options);
          if (row instanceof Promise) throw new Error('a local archive answers row(i) synchronously');
          sink += row.values.length ? (row.values[0] as number) + row.indices[0] : 0;
        }
      },
      sliceReads,
    );
  }

  // 2. A full sequential pass (every row), vs a raw sequential read of data.npy + col_ptr.npy.
  const buffer = Buffer.allocUnsafe(4 << 20);
  const rawRead = {
    name: 'fs.readSync of data.npy + col_ptr.npy, 4 MiB buffer',
    run: () => {
      for (const fd of [dataFd, colFd]) {
        let position = 0;
        for (;;) {
          const n = fs.readSync(fd, buffer, 0, buffer.byteLength, position);
          if (n === 0) break;
          position += n;
        }
      }
    },
  };
  const pass = {
    format: 'scdl',
    items: nnz,
    bytes: dataBytes + colBytes,
    note: 'items/s = non-zeros/s',
    allocation: { count: reader.numRows, unit: 'row' },
  };
  await b.compare(
    {
      ...pass,
      operation: `sequential pass (batches), ${nnz.toLocaleString('en-US')} non-zeros`,
      goal: '≤ 1.25',
    },
    async () => {
      for await (const batch of reader.batches({ reuse: true }))
        sink += batch.values.length + batch.indptr.length;
    },
    rawRead,
  );
  await b.compare(
    { ...pass, operation: 'sequential pass + a view object per row' },
    async () => {
      for await (const batch of reader.batches({ reuse: true })) {
        for (let k = 0; k + 1 < batch.indptr.length; k++) sink += batch.row(k).values.length;
      }
    },
    rawRead,
  );
  fs.closeSync(dataFd);
  fs.closeSync(colFd);
  await reader.close();

  // 3. Open time: header + array checks + feature-index metadata; then the first lookups (parquet).
  await b.measure(
    { format: 'scdl', operation: 'open (header, arrays, feature-index metadata)', runs: 9 },
    async () => {
      const r = await openScdlArchive(archive);
      await r.close();
    },
  );
  await b.measure(
    { format: 'scdl', operation: 'open + first gene and cell lookup (parquet)', runs: 9 },
    async () => {
      const r = await openScdlArchive(archive);
      sink += (await r.features(0))?.count ?? 0;
      sink += (await r.obs(r.numRows - 1))?.values.length ?? 0;
      await r.close();
    },
  );
  if (sink === Number.MIN_VALUE) process.stderr.write('');
}

await generatorMain(here, (args) => generate(args[0], Number(args[1])));
