import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vectorsFolder } from '@binscope/testkit';
import { expect } from 'vitest';
import type { ConvertOptions } from '../src/index.js';
import { parquetContent } from './parquet.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const vectorsRoot = path.resolve(repoRoot, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
const scdlVectors = path.join(vectorsRoot, 'scdl');

/** Every SCDL vector with a source/ folder (conversion inputs), found generically. */
export const conversionCases: string[] = fs.existsSync(scdlVectors)
  ? fs
      .readdirSync(scdlVectors)
      .filter((name) => fs.existsSync(path.join(scdlVectors, name, 'source', 'conversion.json')))
      .sort()
  : [];

export const VECTORS_NEEDED = vectorsFolder(scdlVectors);
if (VECTORS_NEEDED.present && conversionCases.length === 0)
  throw new Error(
    `no SCDL vector under ${scdlVectors} has source/conversion.json: the conversion checks have nothing to run`,
  );
export const vectorsPresent = VECTORS_NEEDED.present;

export interface ConversionCase {
  name: string;
  dir: string;
  source: string;
  archive: string;
  conversion: {
    inputs: string[];
    matrix: string;
    data_dtype: string;
    load_neighbors?: boolean;
    neighbor_key?: string;
  };
  expected: {
    matrix: {
      num_rows_from_row_ptr: number;
      rows?: { row: number; col_indices: number[]; values: (number | string)[] }[];
    };
  };
  /** Inputs with their labels (paths as given to upstream, relative to source/). */
  inputs: { path: string; label: string }[];
  options: ConvertOptions;
}

export function loadCase(name: string): ConversionCase {
  const dir = path.join(scdlVectors, name);
  const source = path.join(dir, 'source');
  const conversion = JSON.parse(fs.readFileSync(path.join(source, 'conversion.json'), 'utf8'));
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
  const neighbors = conversion.load_neighbors ? (conversion.neighbor_key ?? true) : false;
  return {
    name,
    dir,
    source,
    archive: path.join(dir, 'archive'),
    conversion,
    expected,
    inputs: conversion.inputs.map((label: string) => ({ path: path.join(source, label), label })),
    options: { dataDtype: conversion.data_dtype, useX: conversion.matrix === 'X', neighbors },
  };
}

/** Relative paths of every file under a folder. */
export function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, child));
    else out.push(child);
  }
  return out.sort();
}

const BYTE_IDENTICAL =
  /^(header\.sch|data\.npy|row_ptr\.npy|col_ptr\.npy|neighbor_[a-z]+\.npy|version\.json)$/;
const FEATURE_BYTES = /^(var|obs)_features\/(cumulative_sum_index\.npy|version\.npy|labels\.json)$/;

/**
 * Compares a converted archive with upstream's: the same files; header and arrays byte for
 * byte; feature-index files byte for byte except parquet, whose content (column names in
 * order, values) must match; metadata.json with the true row count.
 */
export async function expectSameArchive(
  ours: (rel: string) => Uint8Array,
  ourFiles: string[],
  upstream: string,
  rows: number,
): Promise<void> {
  const theirs = listFiles(upstream);
  expect(ourFiles).toEqual(theirs);
  for (const rel of theirs) {
    const a = ours(rel);
    const b = new Uint8Array(fs.readFileSync(path.join(upstream, rel)));
    if (BYTE_IDENTICAL.test(rel) || FEATURE_BYTES.test(rel)) {
      expect(Buffer.from(a).equals(Buffer.from(b)), `${rel} differs from upstream's`).toBe(true);
    } else if (rel.endsWith('.parquet')) {
      expect(await parquetContent(a), `${rel} content`).toEqual(await parquetContent(b));
    } else if (rel === 'metadata.json') {
      expect(JSON.parse(new TextDecoder().decode(a))).toEqual({ num_rows: rows });
    }
  }
}
