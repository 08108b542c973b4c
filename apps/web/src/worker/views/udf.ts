import type { TableInfo, UdfDataset, UdfReader } from '@binscope/udf';
import type { ViewProvider } from '../views';
import { hexPreview, type Json, pageOf, previewJson } from './common';

const MAX_DATASETS = 2000;
/** Tables read whole for display (text, JSON, references) stop at this size. */
const MAX_WHOLE_TABLE = 8 << 20;

const keyOf = (d: UdfDataset) => `${d.fileOffset.offset}:${d.fileOffset.size}`;

/** The dataset graph (U7 walk order) and one table at a time, a page of its elements. */
export const udfView: ViewProvider = async (session, query, signal) => {
  const reader = session.reader as UdfReader;
  const datasets = await walked(session.cache, reader);
  if (query.op === 'graph') {
    const out: Json[] = [];
    for (const d of datasets.list) {
      const children = (await d.children({ signal })).map((ref) => `${ref.at.offset}:${ref.at.size}`);
      out.push({
        key: keyOf(d),
        id: d.id,
        offset: d.fileOffset.offset,
        size: d.fileOffset.size,
        children,
        tables: d.tables.map(tableJson),
      });
    }
    const root = reader.header.root;
    return {
      json: {
        root: root ? `${root.offset}:${root.size}` : null,
        datasets: out,
        truncated: datasets.truncated,
      },
    };
  }
  if (query.op === 'table') {
    const dataset = datasets.byKey.get(String(query.dataset));
    if (!dataset) throw new Error(`no dataset ${query.dataset}`);
    const info = dataset.tables[Number(query.table)];
    if (!info) throw new Error(`no table ${query.table}`);
    return { json: await tableContent(dataset, info, query, signal) };
  }
  throw new Error(`unknown UDF view query ${query.op}`);
};

async function walked(cache: Map<string, unknown>, reader: UdfReader) {
  let found = cache.get('udf:walk') as
    | { list: UdfDataset[]; byKey: Map<string, UdfDataset>; truncated: boolean }
    | undefined;
  if (!found) {
    const list: UdfDataset[] = [];
    let truncated = false;
    for await (const d of reader.walk()) {
      if (list.length >= MAX_DATASETS) {
        truncated = true;
        break;
      }
      list.push(d);
    }
    found = { list, byKey: new Map(list.map((d) => [keyOf(d), d])), truncated };
    cache.set('udf:walk', found);
  }
  return found;
}

function tableJson(t: TableInfo): Json {
  return {
    name: t.name,
    prim: t.prim,
    dims: t.dims,
    shape: t.shape,
    hint: t.hint,
    dataSize: t.dataSize,
    dataOffset: t.dataOffset,
    elements: t.elementCount,
    index: t.indexName,
    related: t.relatedName,
    type: t.typeName,
  };
}

async function tableContent(
  dataset: UdfDataset,
  info: TableInfo,
  query: { [key: string]: unknown },
  signal: AbortSignal,
): Promise<Json> {
  const base = { table: tableJson(info) };
  const readWhole =
    info.prim === 'custom' || info.hint === 'text' || info.hint === 'json' || info.hint === 'dataset';
  if (readWhole) {
    if (info.dataSize > MAX_WHOLE_TABLE) {
      const bytes = await dataset.readBytes(info, { signal });
      return { ...base, kind: 'bytes', hex: hexPreview(bytes, 256), note: 'too large to decode here' };
    }
    const table = await dataset.read(info, { signal });
    if (table.text !== undefined)
      return {
        ...base,
        kind: 'text',
        text: Array.isArray(table.text) ? table.text.slice(0, 500) : table.text,
      };
    if (table.json !== undefined) return { ...base, kind: 'json', ...previewJson(table.json, 20000) };
    if (table.fileOffsets)
      return { ...base, kind: 'datasets', refs: table.fileOffsets.map((f) => `${f.offset}:${f.size}`) };
    return { ...base, kind: 'bytes', hex: hexPreview(table.bytes, 256) };
  }
  // Numeric tables: only the page's elements are read, whatever the table's size.
  const total = Math.floor(info.elementCount) || 0;
  const rowWidth = info.shape.length > 1 ? info.shape.slice(1).reduce((a, b) => a * b, 1) : 1;
  const rows = Math.ceil(total / Math.max(1, rowWidth));
  const { start, end } = pageOf(query, rows, 500);
  const values = await dataset.readValues(info, start * rowWidth, end * rowWidth, { signal });
  const cells: string[] = Array.from(values as ArrayLike<number | bigint>, (v) => String(v));
  return { ...base, kind: 'values', rows, rowWidth, start, end, cells };
}
