import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JsonRecord, type RecordOptions, recordToJson, type Schema } from '@binscope/core';
import { vectorsFolder } from '@binscope/testkit';
import {
  type FileOffset,
  type TextEncoding,
  UdfBuilder,
  type UdfDatasetBuilder,
  type UdfReader,
  udfPlugin,
} from '../src/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VECTORS = path.resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
export const UDF_VECTORS = path.join(VECTORS, 'udf');
export const VECTORS_NEEDED = vectorsFolder(UDF_VECTORS);
export const VECTORS_PRESENT = VECTORS_NEEDED.present;

/** Valid vector files: <case>/<case>.udf. */
export function validVectors(): { name: string; file: string }[] {
  if (!VECTORS_PRESENT) return [];
  return fs
    .readdirSync(UDF_VECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'invalid')
    .flatMap((d) => {
      const file = fs.readdirSync(path.join(UDF_VECTORS, d.name)).find((f) => f.endsWith('.udf'));
      return file ? [{ name: d.name, file: path.join(UDF_VECTORS, d.name, file) }] : [];
    });
}

const key = (at: FileOffset) => `${at.offset}:${at.size}`;

/**
 * Rebuilds a file from what the reader decoded: every dataset of the walk with its id and
 * (opaque) checksums, every table from its decoded content (strings, JSON values, referenced
 * datasets, typed arrays) through the builder's public API, default settings.
 */
export async function rebuild(reader: UdfReader): Promise<UdfBuilder> {
  const file = new UdfBuilder({ id: reader.header.id });
  const datasets = await reader.allDatasets();
  const built = new Map<string, UdfDatasetBuilder>();
  for (const d of datasets)
    built.set(key(d.fileOffset), file.dataset({ id: d.id, checksum: d.header.checksum }));
  for (const d of datasets) {
    const out = built.get(key(d.fileOffset))!;
    for (const info of d.tables) {
      const table = await d.read(info);
      const common = {
        relatedName: info.relatedName ?? undefined,
        typeName: info.typeName ?? undefined,
        checksum: info.checksum,
      };
      if (info.hint === 'text' && info.dims <= 1) {
        const encoding: TextEncoding = info.prim === 'u16' ? 'utf16' : info.prim === 'u32' ? 'utf32' : 'utf8';
        out.text(info.name, table.text!, { ...common, encoding, signed: info.prim === 'i8' });
      } else if (info.hint === 'json') {
        out.json(info.name, table.json, { ...common, dims: info.dims });
      } else if (info.hint === 'dataset') {
        const refs = table.fileOffsets!.map((at) =>
          at.offset === 0 && at.size === 0 ? null : built.get(key(at))!,
        );
        out.datasets(info.name, refs, { ...common, scalar: info.dims === 0 });
      } else {
        out.table(info.name, {
          ...common,
          prim: info.prim,
          dims: info.dims,
          hint: info.hintValue,
          shape: info.shape,
          data: table.values ?? table.bytes,
          indexName: info.indexName ?? undefined,
        });
      }
    }
  }
  const root = reader.header.root;
  file.setRoot(root ? built.get(key(root))! : null);
  return file;
}

/** A typed array (64-bit ones included) as a plain array, for comparisons. */
export const arr = (a: unknown): (number | bigint)[] => Array.from(a as ArrayLike<number | bigint>);

/** The records as `binscope cat` prints them: through core's one rendering, by the reader's schema. */
export async function jsonRecords(reader: UdfReader, options: RecordOptions = {}): Promise<JsonRecord[]> {
  const out: JsonRecord[] = [];
  const schema = options.table === undefined ? reader.schema : await tableSchemaOf(reader, options.table);
  for await (const r of udfPlugin.records(reader, options)) out.push(await recordToJson(schema, r));
  return out;
}

/** The schema of a table `capabilities.tables` lists (the catalogue's for another name: records() says it has none). */
export async function tableSchemaOf(reader: UdfReader, name: string): Promise<Schema> {
  for await (const t of udfPlugin.capabilities!.tables!(reader)) if (t.name === name) return t.schema;
  return reader.schema;
}
