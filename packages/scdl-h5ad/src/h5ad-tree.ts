import { type InspectNode, node } from '@binscope/core';
import type { AnnDataFile } from './anndata.js';
import {
  child,
  elementType,
  type H5Dataset,
  type H5Group,
  isDataset,
  isGroup,
  isStringType,
  readStringAttr,
} from './h5.js';

/** Nodes drawn at most: an `uns` of thousands of entries is summarised, not listed. */
const MAX_NODES = 5000;

function datasetValue(ds: H5Dataset): string {
  const meta = ds.metadata;
  const type = isStringType(meta) ? 'string' : (elementType(meta) ?? `HDF5 class ${meta.type}`);
  const shape = meta.shape === null ? 'null' : `(${meta.shape.join(', ')})`;
  const chunks = meta.chunks ? `, chunks (${meta.chunks.join(', ')})` : '';
  const filters = ds.filters.length
    ? `, ${ds.filters.map((f) => f.name || `filter ${f.id}`).join(' + ')}`
    : '';
  return `${type} ${shape}${chunks}${filters}`;
}

/**
 * The HDF5 groups and datasets of an `.h5ad` as a tree: a group's anndata encoding (csr_matrix,
 * dataframe, categorical …) and a dataset's type, shape, chunks and filters. h5wasm gives no
 * byte ranges inside the file, so only the file and its signature carry ranges; every other
 * node is a name and a description (offset 0, length 0).
 */
export function hdf5Tree(adata: AnnDataFile, size: number, signatureAt: number): InspectNode {
  let budget = MAX_NODES;
  const visit = (group: H5Group, name: string, path: string): InspectNode => {
    const keys = group.keys();
    const children: InspectNode[] = [];
    for (const key of keys) {
      if (budget-- <= 0) {
        children.push(node('…', 'more', 0, 0, { value: `${keys.length - children.length} more entries` }));
        break;
      }
      const entity = child(group, key);
      const at = `${path}/${key}`;
      if (isGroup(entity)) children.push(visit(entity, key, at));
      else if (isDataset(entity)) children.push(node(key, 'dataset', 0, 0, { value: datasetValue(entity) }));
      else children.push(node(key, 'link', 0, 0, { value: 'a link or an object h5wasm does not open' }));
    }
    const encoding = readStringAttr(group, 'encoding-type') ?? readStringAttr(group, 'h5sparse_format');
    return node(name, 'group', 0, 0, {
      value: `${encoding ? `${encoding}, ` : ''}${keys.length} entr${keys.length === 1 ? 'y' : 'ies'}`,
      children,
    });
  };
  const root = visit(adata.file, adata.name, '');
  return node(adata.name, 'hdf5 file', 0, size, {
    value: root.value,
    children: [
      node('signature', 'magic', signatureAt, 8, { value: '\\x89HDF\\r\\n\\x1a\\n' }),
      ...(root.children ?? []),
    ],
  });
}
