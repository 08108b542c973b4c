import {
  type ByteSource,
  type ContentField,
  definePlugin,
  type InspectNode,
  type JsonValue,
  node,
  Phase,
  type Summary,
} from '@binscope/core';
import type { AnnDataFile, H5adSummary } from './anndata.js';
import { loadH5wasm } from './browser-lib.js';
import { checkFile } from './convert.js';
import { H5adReader } from './h5ad-read.js';
import { hdf5Tree } from './h5ad-tree.js';
import { asH5adError } from './h5-failures.js';
import { h5adFormat } from './magic.js';
import { checkHdf5Source, mountSource } from './mount.js';
import { openAnnData } from './open.js';

/** What the one parse got: the signature's place, the AnnData file opened, the tree once drawn. */
export interface H5adParse {
  source: ByteSource;
  signatureAt: number;
  adata?: AnnDataFile;
  /** Drawn by the deep checks (validate, inspect) while the file is open; they then close it. */
  tree?: InspectNode;
}

/**
 * The HDF5 signature, then the file opened by h5wasm as AnnData (obs and var present).
 * A local file or a browser File is read in place, HDF5 asking for the byte ranges it needs;
 * a remote one is refused (HDF5 cannot wait for the network, and a reader has no scratch space).
 */
async function parseH5ad(source: ByteSource, options: { signal?: AbortSignal }): Promise<H5adParse> {
  const signatureAt = await checkHdf5Source(source, source.name, options);
  const lib = await loadH5wasm();
  const mounted = await mountSource(lib, source, { copy: false, signal: options.signal });
  try {
    return { source, signatureAt, adata: openAnnData(lib, mounted.path, source.name, mounted.release) };
  } catch (error) {
    throw asH5adError(error, source.name);
  }
}

function summaryOf(adata: AnnDataFile): H5adSummary {
  try {
    return adata.summary();
  } catch (error) {
    throw asH5adError(error, adata.name);
  }
}

async function info(reader: H5adReader): Promise<Summary> {
  const s = summaryOf(reader.adata);
  const matrix = (m: H5adSummary['x']) =>
    m ? `${m.layout} ${m.rows} × ${m.cols}, ${m.nnz} stored, ${m.dtype}` : null;
  return {
    format: 'h5ad',
    title: h5adFormat.title,
    version: s.encodingVersion,
    counts: {
      obs: s.obs,
      vars: s.vars,
      nnz: reader.matrix.kind === 'dense' ? reader.matrix.rows * reader.matrix.cols : reader.matrix.nnz,
    },
    properties: [
      ['encoding version', s.encodingVersion ?? null],
      ['cells (obs)', s.obs],
      ['genes (var)', s.vars],
      ['X', matrix(s.x)],
      ['raw.X', matrix(s.rawX)],
      ['obs columns', s.obsColumns.map((c) => c.name).join(', ')],
      ['var columns', s.varColumns.map((c) => c.name).join(', ')],
      ['obsp', s.obsp.join(', ')],
      ['file size', reader.source.size],
    ],
    details: JSON.parse(JSON.stringify(s)) as { [key: string]: JsonValue },
  };
}

/** What `diff` compares: the shapes, matrices and columns (HDF5's layout inside the file is left out). */
async function contentFields(reader: H5adReader): Promise<ContentField[]> {
  const s = summaryOf(reader.adata);
  const fields: ContentField[] = [
    { path: 'counts.obs', value: s.obs },
    { path: 'counts.vars', value: s.vars },
    { path: 'obs.columns', value: s.obsColumns.map((c) => `${c.name}: ${c.type}`) },
    { path: 'var.columns', value: s.varColumns.map((c) => `${c.name}: ${c.type}`) },
    { path: 'obsp', value: s.obsp },
    { path: 'obsm', value: s.obsm },
    { path: 'layers', value: s.layers },
  ];
  for (const [key, m] of [
    ['X', s.x],
    ['raw.X', s.rawX],
  ] as const)
    fields.push({ path: `${key}`, value: m ? { ...m } : null });
  return fields;
}

const { load: _load, ...entry } = h5adFormat;

/**
 * A read-only `.h5ad` plugin (the entry's role stays `convertible`: binscope converts AnnData
 * into SCDL, and reads it to show it first). Records are the rows of X (else raw.X) shaped as
 * SCDL's `{row, indices, values}`; tables `obs` and `var` (and `raw.X` when both exist).
 * validate reports what the converter would refuse with its defaults (the matrix, the
 * dataframes and their column types, obs against the matrix; with `deep`, every row's column
 * indices and every value cast to float32); inspect draws HDF5's groups and datasets.
 */
export const h5adPlugin = definePlugin<H5adParse, H5adReader, 'file'>({
  ...entry,
  kind: 'file',
  parse: (input, _problems, options) => parseH5ad(input.source, options),
  reader: (parsed) => {
    const adata = parsed.adata!;
    try {
      return new H5adReader(adata, parsed.source, parsed.signatureAt);
    } catch (error) {
      adata.close();
      throw asH5adError(error, adata.name);
    }
  },
  async deepChecks(parsed, _input, problems, options) {
    const adata = parsed.adata;
    if (!adata) return;
    try {
      parsed.tree = hdf5Tree(adata, parsed.source.size, parsed.signatureAt);
      const warn = (message: string) => problems.warn('Conversion', message, { file: adata.name });
      await problems.attempt(
        () =>
          checkFile(adata, adata.name, { signal: options.signal }, warn, options.deep === true).catch(
            (error) => {
              throw asH5adError(error, adata.name);
            },
          ),
        { phase: Phase.payload },
      );
    } finally {
      adata.close();
      parsed.adata = undefined;
    }
  },
  tree: (parsed) =>
    parsed.tree ??
    node(parsed.source.name, 'hdf5 file', 0, parsed.source.size, {
      children: [node('signature', 'magic', parsed.signatureAt, 8)],
    }),
  info,
  inspect: async (reader) => hdf5Tree(reader.adata, reader.source.size, reader.signatureAt),
  records: (reader, options) => reader.records(options),
  contentFields,
  // h5wasm gives no byte ranges inside the file.
  locateRecord: async () => [],
});
