/**
 * The `.h5ad → SCDL` Converter that `/magic` declares, run the way an app runs it: a target
 * from core (a file, a folder, a source answering with promises), the app's DirectorySink,
 * its scratch and the declared options' values.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ByteSource,
  type ConvertInput,
  directoryTarget,
  fileTarget,
  isBinscopeError,
  MemoryDirectory,
  memoryScratch,
  type OptionValues,
  type Scratch,
  runConverter,
} from '@binscope/core';
import { NodeDirectory, NodeFileSource, openPath } from '@binscope/core/node';
import { describeWith, tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { h5adConverters, h5adToScdlConverter, scdlToH5adConverter } from '../src/magic.js';
import { convertH5adToScdl } from '../src/node.js';
import { type AnnDataSpec, randomCounts, writeH5ad } from './fixture.js';
import { conversionCases, expectSameArchive, listFiles, loadCase, VECTORS_NEEDED } from './vectors.js';

const t = tempDir('scdl-h5ad-converter-');
afterAll(() => t.remove());

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Scratch space that remembers how many files it made and how many are still there. */
function countingScratch(): Scratch & { made: number; left: () => number } {
  const inner = memoryScratch();
  const open = new Set<{ remove(): void }>();
  const scratch = {
    made: 0,
    left: () => open.size,
    file(name: string) {
      scratch.made++;
      const file = inner.file(name);
      open.add(file);
      const remove = file.remove.bind(file);
      file.remove = () => {
        open.delete(file);
        remove();
      };
      return file;
    },
    close: () => inner.close(),
  };
  return scratch;
}

async function convert(input: ConvertInput, values: OptionValues = {}, scratch: Scratch = memoryScratch()) {
  const converter = await h5adToScdlConverter.load();
  const out = new MemoryDirectory();
  const report = await runConverter(
    h5adToScdlConverter,
    converter,
    input,
    { kind: 'directory', sink: out },
    { scratch, values },
  );
  return { out, report };
}

/** The Node helper's archive (h5wasm's Node build, paths) for the same inputs: the reference. */
async function reference(inputs: string | { path: string; label: string }[], options = {}) {
  const out = path.join(t.dir, `ref-${Math.random().toString(36).slice(2)}`);
  await convertH5adToScdl(inputs, out, options);
  return out;
}

async function expectSameFiles(ours: MemoryDirectory, theirs: string): Promise<void> {
  expect(await ours.list()).toEqual(listFiles(theirs));
  for (const rel of listFiles(theirs))
    expect(Buffer.from(ours.get(rel)!).equals(fs.readFileSync(path.join(theirs, rel))), rel).toBe(true);
}

/** A source that answers every read with a promise (as HTTP or S3 would). */
function promised(source: ByteSource): ByteSource {
  return { size: source.size, name: source.name, read: async (o, l, r) => source.read(o, l, r) };
}

describeWith(VECTORS_NEEDED, 'the Converter reproduces upstream archives', () => {
  for (const name of conversionCases) {
    it(`${name}: through a file or folder target`, async () => {
      const c = loadCase(name);
      const dirs = new Set(c.inputs.map((i) => path.dirname(i.label)));
      // Labels are the target's names: one file named as given, or the folder the inputs share.
      let target: ConvertInput;
      if (c.inputs.length === 1)
        target = fileTarget(NodeFileSource.open(c.inputs[0].path, c.inputs[0].label));
      else if (dirs.size === 1 && !([...dirs][0] ?? '').includes('/'))
        target = directoryTarget(new NodeDirectory(path.join(c.source, [...dirs][0])));
      else return;
      const values = {
        dataDtype: c.options.dataDtype,
        useX: c.options.useX,
        neighbors:
          c.options.neighbors === true ? (c.conversion.neighbor_key ?? 'next_cell_ids') : c.options.neighbors,
      } as OptionValues;
      const { out, report } = await convert(target, values);
      const rows = c.expected.matrix.num_rows_from_row_ptr;
      expect(report.details.rows).toBe(rows);
      await expectSameArchive((rel) => out.get(rel)!, await out.list(), c.archive, rows);
    });
  }
});

describe('the Converter on generated files', () => {
  const counts = randomCounts(30, 12, 0.3, 5);
  const spec = (layout: 'csr' | 'csc' | 'dense', extra: Partial<AnnDataSpec> = {}): AnnDataSpec => ({
    X: { layout, values: counts },
    obs: {
      index: names('cell', 30),
      columns: [
        { name: 'kind', kind: 'categorical', categories: ['a', 'b'], codes: counts.map((_, i) => i % 2) },
      ],
    },
    var: { index: names('gene', 12) },
    ...extra,
  });

  for (const layout of ['csr', 'csc', 'dense'] as const) {
    it(`${layout}: the same bytes as the Node helper, from a file and from a source answering with promises`, async () => {
      const file = path.join(t.dir, `${layout}.h5ad`);
      writeH5ad(file, spec(layout));
      const theirs = await reference([{ path: file, label: `${layout}.h5ad` }], {
        useX: true,
        dataDtype: 'uint16',
      });
      const values = { useX: true, dataDtype: 'uint16' };
      const direct = await convert(openPath(file), values);
      await expectSameFiles(direct.out, theirs);
      const scratch = countingScratch();
      const source = NodeFileSource.open(file, `${layout}.h5ad`);
      try {
        const remote = await convert(fileTarget(promised(source)), values, scratch);
        await expectSameFiles(remote.out, theirs);
      } finally {
        await source.close();
      }
      // The promised source was copied into the scratch space, and the copy removed again.
      expect(scratch.made).toBeGreaterThan(0);
      expect(scratch.left()).toBe(0);
    });
  }

  it('a folder target is one archive of its .h5ad files in sorted order (C12), labelled folder/file', async () => {
    const dir = path.join(t.dir, 'h5ads');
    fs.mkdirSync(dir);
    // Other genes: b's var block is its own (C12), so labels.json names both files.
    writeH5ad(path.join(dir, 'b.h5ad'), { ...spec('csr'), var: { index: names('g', 12) } });
    writeH5ad(path.join(dir, 'a.h5ad'), spec('dense'));
    // Upstream sorts paths part by part: a/c.h5ad comes before a.h5ad (a string sort says after).
    fs.mkdirSync(path.join(dir, 'a'));
    writeH5ad(path.join(dir, 'a', 'c.h5ad'), spec('csc'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not an input');
    // A dense input has no stored count: row_ptr waits as a wide temp in the app's scratch.
    const scratch = countingScratch();
    const { out, report } = await convert(openPath(dir), { useX: true }, scratch);
    expect(scratch.made).toBeGreaterThan(0);
    expect(scratch.left()).toBe(0);
    expect((await out.list()).filter((p) => p.endsWith('.wide'))).toEqual([]);
    expect((report.details.inputs as { label: string }[]).map((i) => i.label)).toEqual([
      'h5ads/a/c.h5ad',
      'h5ads/a.h5ad',
      'h5ads/b.h5ad',
    ]);
    expect(new TextDecoder().decode(out.get('var_features/labels.json'))).toBe(
      '["h5ads/a/c.h5ad", "h5ads/b.h5ad"]',
    );
    expect(report.details.rows).toBe(90);
    // The Node helper given the same files in that order writes the same archive.
    const inputs = ['a/c.h5ad', 'a.h5ad', 'b.h5ad'].map((f) => ({
      path: path.join(dir, f),
      label: `h5ads/${f}`,
    }));
    await expectSameFiles(out, await reference(inputs, { useX: true }));
  });

  it('the declared options reach the conversion: neighbors, lossy casts; warnings are reported', async () => {
    const file = path.join(t.dir, 'opts.h5ad');
    const graph = counts.map((_, r) => counts.map((_, c) => (c === (r + 1) % 30 ? 0.5 : 0)));
    writeH5ad(file, spec('csr', { obsp: { connectivities: { layout: 'csr', values: graph } } }));
    const { out, report } = await convert(openPath(file), { neighbors: 'connectivities' });
    expect(await out.list()).toContain('neighbor_indptr.npy');
    // No raw.X: X is converted, with the converter's warning.
    expect(report.warnings.map((w) => w.message)).toEqual(['opts.h5ad: no raw.X, converting X']);
    const without = await convert(openPath(file), { neighbors: '' });
    expect(await without.out.list()).not.toContain('neighbor_indptr.npy');
    // A fraction does not fit uint8: refused (C10), unless lossy casts are asked for.
    const fractions = path.join(t.dir, 'fractions.h5ad');
    writeH5ad(fractions, {
      ...spec('csr'),
      X: { layout: 'csr', values: counts.map((r) => r.map((v) => v / 2)) },
    });
    const refused = await convert(openPath(fractions), { dataDtype: 'uint8' }).catch((e: unknown) => e);
    expect(isBinscopeError(refused, 'InvalidValue'), String(refused)).toBe(true);
    const lossy = await convert(openPath(fractions), { dataDtype: 'uint8', lossyCast: true });
    expect(lossy.report.details.dataDType).toBe('uint8');
  });

  it('refuses what it cannot do with typed errors, writing nothing', async () => {
    const converter = await h5adToScdlConverter.load();
    const file = path.join(t.dir, 'refused.h5ad');
    writeH5ad(file, spec('csr'));
    const options = { scratch: memoryScratch() };
    const out = new MemoryDirectory();
    const fileOut = { kind: 'file' as const, sink: { position: 0, write: async () => {} } };
    await expect(
      runConverter(h5adToScdlConverter, converter, openPath(file), fileOut, options),
    ).rejects.toThrow(/directory sink/);
    const stream = { kind: 'stream' as const, name: 'stdin', chunks: (async function* () {})() };
    await expect(
      runConverter(h5adToScdlConverter, converter, stream, { kind: 'directory', sink: out }, options),
    ).rejects.toThrow(/random access/);
    const badDtype = await runConverter(
      h5adToScdlConverter,
      converter,
      openPath(file),
      { kind: 'directory', sink: out },
      { ...options, values: { dataDtype: 'int7' } },
    ).catch((e: unknown) => e);
    expect(isBinscopeError(badDtype, 'InvalidValue')).toBe(true);
    const text = path.join(t.dir, 'text.h5ad');
    fs.writeFileSync(text, 'not hdf5 at all');
    const notHdf5 = await runConverter(
      h5adToScdlConverter,
      converter,
      openPath(text),
      { kind: 'directory', sink: out },
      options,
    ).catch((e: unknown) => e);
    expect(isBinscopeError(notHdf5, 'BadMagic')).toBe(true);
    expect(await out.list()).toEqual([]);
  });

  it('declares the CLI flags of today: --data-dtype (choices), --use-x, --lossy-cast, --neighbors', () => {
    expect(h5adConverters).toEqual([h5adToScdlConverter, scdlToH5adConverter]);
    expect(h5adToScdlConverter).toMatchObject({ from: 'h5ad', to: 'scdl', output: 'directory' });
    expect(h5adToScdlConverter.options?.map((o) => [o.name, o.type])).toEqual([
      ['dataDtype', 'string'],
      ['useX', 'boolean'],
      ['lossyCast', 'boolean'],
      ['neighbors', 'string'],
    ]);
    expect(h5adToScdlConverter.options?.[0].choices).toEqual([
      'float32',
      'float16',
      'float64',
      'uint8',
      'uint16',
      'uint32',
      'uint64',
    ]);
  });
});
