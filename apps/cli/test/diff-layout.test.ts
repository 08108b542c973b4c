import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { openFile } from '@binscope/core/node';
import { openUdf, type TextEncoding, UdfBuilder, type UdfDatasetBuilder } from '@binscope/udf';
import { describeWith, tempDir } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import type { Difference, DiffReport } from '../src/commands/diff.js';
import { cli } from './helpers.js';
import { VECTORS_NEEDED, validVectors } from './vectors.js';

/**
 * `diff` compares content; where things are stored is compared only with `--layout`. A UDF
 * file the udf crate wrote (the nested_text_json vector) against the same content laid out
 * otherwise: rewritten by binscope's writer with one table compressed (every later dataset
 * moves), and with its datasets reordered parents first (the root right after the header).
 */

const scratch = tempDir('binscope-cli-diff-layout-');
afterAll(() => scratch.remove());

function diff(a: string, b: string, ...extra: string[]): { code: number | null; report: DiffReport } {
  const r = cli(['diff', a, b, '--json', ...extra]);
  expect(r.stderr).toBe('');
  return { code: r.code, report: JSON.parse(r.stdout) as DiffReport };
}

function only(report: DiffReport, p: string): Difference {
  const found = report.differences.filter((d) => d.path === p);
  expect(found, `differences: ${report.differences.map((d) => d.path).join(', ')}`).toHaveLength(1);
  return found[0];
}

function crateFile(): string {
  const vector = validVectors('udf').find((c) => c.name === 'nested_text_json');
  expect(vector, 'the nested_text_json vector (datasets referencing datasets)').toBeDefined();
  return vector!.target;
}

function write(name: string, bytes: Uint8Array): string {
  const file = path.join(scratch.dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

/** The same datasets and tables through binscope's UdfBuilder; `compress` names a u32 table to store SimpleU32-compressed. */
async function rewrite(file: string, compress: string): Promise<Uint8Array> {
  const reader = await openUdf(openFile(file));
  try {
    const datasets = await reader.allDatasets();
    const out = new UdfBuilder({ id: reader.header.id });
    const built = new Map<number, UdfDatasetBuilder>();
    for (const d of datasets) built.set(d.fileOffset.offset, out.dataset({ id: d.id }));
    for (const d of datasets) {
      const b = built.get(d.fileOffset.offset)!;
      for (const t of d.tables) {
        const table = await d.read(t);
        const common = { relatedName: t.relatedName ?? undefined, typeName: t.typeName ?? undefined };
        if (t.hint === 'text') {
          const encoding: TextEncoding = t.prim === 'u16' ? 'utf16' : t.prim === 'u32' ? 'utf32' : 'utf8';
          b.text(t.name, table.text!, { ...common, encoding });
        } else if (t.hint === 'json') b.json(t.name, table.json, { ...common, dims: t.dims });
        else if (t.hint === 'dataset')
          b.datasets(
            t.name,
            table.fileOffsets!.map((at) => (at.size === 0 ? null : built.get(at.offset)!)),
            { ...common, scalar: t.dims === 0 },
          );
        else
          b.table(t.name, {
            ...common,
            prim: t.prim,
            dims: t.dims,
            hint: t.hintValue,
            shape: t.shape,
            data: table.values!,
            indexName: t.indexName ?? undefined,
            compress: t.name === compress ? 'simple-u32' : undefined,
          });
      }
    }
    out.setRoot(built.get(reader.header.root!.offset)!);
    return out.toBytes();
  } finally {
    await reader.close();
  }
}

/** The file's bytes with its datasets moved into walk order (parents first) and every pointer patched. */
async function parentsFirst(file: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const reader = await openUdf(new MemorySource(bytes));
  const datasets = await reader.allDatasets();
  const moved = new Map<number, number>();
  let end = 64;
  for (const d of datasets) {
    moved.set(d.fileOffset.offset, end);
    end += d.fileOffset.size;
  }
  const out = new Uint8Array(end);
  out.set(bytes.subarray(0, 64));
  const view = new DataView(out.buffer);
  const repoint = (at: number) => {
    const old = Number(view.getBigUint64(at, true));
    if (old !== 0) view.setBigUint64(at, BigInt(moved.get(old)!), true);
  };
  repoint(0x10);
  for (const d of datasets) {
    const { offset, size } = d.fileOffset;
    const to = moved.get(offset)!;
    out.set(bytes.subarray(offset, offset + size), to);
    for (const t of d.tables)
      if (t.hint === 'dataset')
        for (let i = 0; i < t.dataSize; i += 16) repoint(to + t.dataOffset - offset + i);
  }
  return out;
}

async function rootOffset(file: string): Promise<number> {
  const reader = await openUdf(openFile(file));
  const root = reader.header.root!.offset;
  await reader.close();
  return root;
}

describeWith(VECTORS_NEEDED, 'diff: content by default, layout with --layout (UDF)', () => {
  it('the crate file and binscope’s rewrite with a compressed table are equal in content', async () => {
    const crate = crateFile();
    const ours = write('rewritten.udf', await rewrite(crate, 'tri'));
    expect(await rootOffset(ours)).not.toBe(await rootOffset(crate));

    const { code, report } = diff(crate, ours);
    expect(code, JSON.stringify(report.differences)).toBe(0);
    expect(report).toMatchObject({ equal: true, layout: false, differences: [], recordsCompared: 11 });
  });

  it('--layout names where they differ, and nothing else', async () => {
    const crate = crateFile();
    const ours = write('rewritten-layout.udf', await rewrite(crate, 'tri'));
    const { code, report } = diff(crate, ours, '--layout');
    expect(code).toBe(1);
    expect(report.layout).toBe(true);
    expect(report.differences.filter((d) => d.kind !== 'layout')).toEqual([]);
    const [a, b] = [await rootOffset(crate), await rootOffset(ours)];
    expect(only(report, 'header.root')).toMatchObject({
      a: { value: { offset: a } },
      b: { value: { offset: b } },
    });
    expect(only(report, 'records[0].dataset')).toMatchObject({ a: { value: a }, b: { value: b } });
    // The children table's offsets: the second child (CHLB, holding tri) shrank.
    const child = only(report, 'records[0].file_offsets[1].size');
    expect(child.b.value as number).toBeLessThan(child.a.value as number);
    // tri, the compressed table (dataset 2 in walk order, table 1): its storage, not its values.
    const tri = only(report, 'datasets[2].tables[1].storage');
    expect(tri.a.value).toMatchObject({ compress_info: 0 });
    expect((tri.b.value as { compress_info: number }).compress_info).not.toBe(0);
    expect(report.differences.some((d) => d.path === 'records[8].values')).toBe(false);
  });

  it('datasets stored parents first (the root right after the header) are equal in content; --layout shows the move', async () => {
    const crate = crateFile();
    const moved = write('parents-first.udf', await parentsFirst(crate));
    expect(await rootOffset(moved)).toBe(64);

    const plain = diff(crate, moved);
    expect(plain.code, JSON.stringify(plain.report.differences)).toBe(0);
    expect(plain.report.equal).toBe(true);

    const { code, report } = diff(crate, moved, '--layout');
    expect(code).toBe(1);
    expect(report.differences.every((d) => d.kind === 'layout')).toBe(true);
    const record = only(report, 'records[0].dataset');
    expect([record.a.value, record.b.value]).toEqual([await rootOffset(crate), 64]);
    expect(only(report, 'datasets[0].at').b.value).toMatchObject({ offset: 64 });
    expect(report.differences.some((d) => d.path === 'file_size')).toBe(false);
  });

  it('a changed value in the relaid copy is still a content difference, without --layout', async () => {
    const crate = crateFile();
    const bytes = await parentsFirst(crate);
    const reader = await openUdf(new MemorySource(bytes));
    let index = 0;
    let target: { record: number; offset: number } | undefined;
    for await (const d of reader.walk())
      for (const t of d.tables) {
        if (!target && t.name === 'vertices') target = { record: index, offset: t.dataOffset };
        index++;
      }
    expect(target).toBeDefined();
    bytes[target!.offset + 3] ^= 0x40;
    const { code, report } = diff(crate, write('parents-first-changed.udf', bytes));
    expect(code).toBe(1);
    expect(report.differences.map((d) => `${d.kind} ${d.path}`)).toEqual([
      `record records[${target!.record}].values`,
    ]);
  });

  it('--layout on a format that lists no layout fields is refused (exit 2), not reported equal', () => {
    const scbf = validVectors('scbf')[0];
    expect(scbf, 'an SCBF vector').toBeDefined();
    const r = cli(['diff', scbf.target, scbf.target, '--layout']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('diff --layout: scbf files do not describe their layout');
    expect(cli(['diff', scbf.target, scbf.target]).code).toBe(0);
  });
});
