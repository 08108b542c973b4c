import type { DirectorySink, ReadOptions } from '@binscope/core';
import { writeScdl } from './write.js';

/** Deterministic numbers, so every sample is the same archive. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where a DirectorySink's files go when they belong in a folder of it. */
function inFolder(out: DirectorySink, folder: string): DirectorySink {
  return { write: (path, content) => out.write(`${folder}/${path}`, content) };
}

/**
 * capabilities.sample: `cells_scdl/`, 10 cells × 20 genes (about a quarter stored) with a var
 * table (gene names, a highly-variable flag) and an obs table (cell types, counts), written by
 * the package's own writer. What `binscope demo` and the web page's sample show.
 */
export async function writeScdlSample(out: DirectorySink, options: ReadOptions = {}): Promise<string[]> {
  const rand = random(3);
  const cells = 10;
  const genes = 20;
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < cells; r++) {
    for (let g = 0; g < genes; g++) {
      if (rand() < 0.25) {
        indices.push(g);
        data.push(1 + Math.floor(rand() * 9));
      }
    }
    indptr.push(indices.length);
  }
  const folder = 'cells_scdl';
  await writeScdl(
    inFolder(out, folder),
    { indptr, indices, data, numCols: genes },
    {
      signal: options.signal,
      var: [
        {
          label: 'demo.h5ad',
          rows: cells,
          columns: [
            { name: 'gene_name', values: Array.from({ length: genes }, (_, g) => `GENE${g + 1}`) },
            { name: 'highly_variable', values: Array.from({ length: genes }, (_, g) => g % 4 === 0) },
          ],
        },
      ],
      obs: [
        {
          label: 'demo.h5ad',
          rows: cells,
          columns: [
            {
              name: 'cell_type',
              values: Array.from({ length: cells }, (_, c) => ['T cell', 'B cell', 'NK cell'][c % 3]),
            },
            {
              name: 'n_counts',
              values: Float64Array.from({ length: cells }, (_, c) =>
                data.slice(indptr[c], indptr[c + 1]).reduce((a, b) => a + b, 0),
              ),
            },
          ],
        },
      ],
    },
  );
  return [folder];
}
