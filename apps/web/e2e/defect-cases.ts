import { cpSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { InspectNode } from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { inspectedFormat } from '../src/worker/inspect-mode';
import { registry as currentRegistry } from '../src/worker/registry';
import { vector } from './helpers';

/** A file or folder's inspect-mode tree, as the page's worker builds it. */
export async function inspectPath(path: string) {
  const target = openPath(path);
  const registry = currentRegistry();
  const format = inspectedFormat(await registry.detect(target), registry);
  if (!format) throw new Error(`${path}: no format reads it`);
  return (await registry.load(format.id)).inspectTarget(target);
}

/** The node at a path of names below the root (lazy children loaded), with its file. */
export async function nodeAtNames(
  root: InspectNode,
  names: readonly string[],
): Promise<{ node: InspectNode; file?: string }> {
  let node = root;
  let file = root.file;
  for (const name of names) {
    let next = node.children?.find((c) => c.name === name);
    if (!next && node.lazy) next = (await node.lazy.load(0, node.lazy.count)).find((c) => c.name === name);
    if (!next) throw new Error(`no node ${JSON.stringify(name)} below ${JSON.stringify(node.name)}`);
    node = next;
    file = node.file ?? file;
  }
  return { node, file };
}

/** A broken copy of a valid vector: one field (found by its path in the format's tree) rewritten. */
export interface DefectCase {
  name: string;
  /** What the page is given: files, or one folder. */
  open: { files: string[] } | { folder: string };
  /** What to inspect in Node for the expected tree (the main file or the folder). */
  main: string;
  /** The node holding the offending value, by names below the root. */
  field: string[];
  /** The temp folder the broken copy is in (removed after the tests). */
  dir?: string;
}

type Width = 'u8' | 'u16le' | 'u32le' | 'u32be';

function put(bytes: Uint8Array, at: number, value: number, width: Width): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (width === 'u8') view.setUint8(at, value);
  else if (width === 'u16le') view.setUint16(at, value, true);
  else view.setUint32(at, value, width === 'u32le');
}

/**
 * Copies `source` (a file, or a folder) with `siblings` beside it into a temp folder, then
 * writes `value(old)` over the field at `field` (its bytes, in the file it names).
 */
async function broken(
  name: string,
  source: string,
  siblings: string[],
  field: string[],
  width: Width,
  value: (old: number) => number,
): Promise<DefectCase> {
  const dir = mkdtempSync(join(tmpdir(), `binscope-defect-${name}-`));
  const folder = statSync(source).isDirectory();
  const main = join(dir, folder ? name : basename(source));
  cpSync(source, main, { recursive: true });
  for (const s of siblings) cpSync(s, join(dir, basename(s)));
  const { node, file } = await nodeAtNames((await inspectPath(main)).root, field);
  const path = folder ? join(main, file ?? '') : main;
  const bytes = new Uint8Array(readFileSync(path));
  const old = Number(node.value);
  put(bytes, node.offset, value(Number.isFinite(old) ? old : 0), width);
  writeFileSync(path, bytes);
  const open = folder ? { folder: main } : { files: [main, ...siblings.map((s) => join(dir, basename(s)))] };
  return { name, open, main, field, dir };
}

/** The defects of issue #35 that opened on their whole container, each with the field at fault. */
export async function defectCases(): Promise<DefectCase[]> {
  const taridx = vector('taridx', 'ustar_flat_2shards');
  const shards = [join(taridx, 'train_0000.tar'), join(taridx, 'train_0001.tar')];
  const scdl = vector('scdl', 'basic_float32_raw', 'archive');
  const ptrOob = vector('mldf', 'invalid', 'ptr_oob.mldf');
  return [
    // README: sample 0's 'payload' data_ptr points past the end of the file.
    {
      name: 'mldf-ptr_oob',
      open: { files: [ptrOob] },
      main: ptrOob,
      field: ['metadata table', 'row 0', 'payload', 'data_ptr'],
    },
    await broken(
      'mldf-alloc_mismatch',
      vector('mldf', 'basic_mixed', 'basic_mixed.mldf'),
      [],
      ['allocation table', 'entry 0', 'size'],
      'u32le',
      (n) => n + 1,
    ),
    await broken(
      'taridx-extid_oob',
      join(taridx, 'train.taridx'),
      shards,
      ['rows', 'row 0', 'extid'],
      'u16le',
      () => 999,
    ),
    await broken(
      'scdl-unknown_dtype',
      scdl,
      [],
      ['header.sch', 'arrays', 'DATA', 'dtype'],
      'u32be',
      () => 10,
    ),
    // row_ptr[2] below row_ptr[1]: the value that decreases.
    await broken('scdl-rowptr_decreasing', scdl, [], ['row_ptr.npy', 'row_ptr[2]'], 'u8', () => 0),
    // Blocks 0..140 of a dataset of fewer: mem_end is what runs past.
    await broken(
      'udf-mem_oob',
      vector('udf', 'primitives', 'primitives.udf'),
      [],
      ['datasets', 'dataset "PRIM"', 'descriptors', 'u8_1d', 'mem_end'],
      'u32le',
      () => 140,
    ),
  ];
}
