import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  directoryTarget,
  type FormatError,
  type InspectNode,
  type InspectResult,
  isBinscopeError,
  type MemoryDirectory,
  type PlainInspectNode,
  type Target,
  toPlainTree,
  type ValidationReport,
  walk,
} from '@binscope/core';
import { openDirectory } from '@binscope/core/node';
import { describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scdlNearMiss, scdlPlugin } from '../src/index.js';
import { raggedArchive, SCDL_VECTORS, VECTORS_NEEDED, validCases, withChanges } from './helpers.js';

interface Modes {
  strict: FormatError | undefined;
  report: ValidationReport;
  inspected: InspectResult;
}

/** The one parse in its three modes; anything but a FormatError from open is a failure. */
async function threeModes(target: Target): Promise<Modes> {
  let strict: FormatError | undefined;
  try {
    await (await scdlPlugin.open(target)).close?.();
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    strict = error;
  }
  const report = await scdlPlugin.validate(target);
  const inspected = await scdlPlugin.inspectTarget(target);
  return { strict, report, inspected };
}

const where = (p: { code: string; offset?: number; file?: string } | undefined) =>
  p && { code: p.code, offset: p.offset, file: p.file };

/** The node a problem is marked on, with its depth (0 = the root). */
function markedNode(root: InspectNode, problem: { code: string; message: string }) {
  let found: { node: InspectNode; depth: number } | undefined;
  walk(root, (n, trail) => {
    if (!found && n.problems?.some((p) => p.code === problem.code && p.message === problem.message))
      found = { node: n, depth: trail.length };
    return undefined;
  });
  return found;
}

/** Strict read, validate and inspect agree on the first error; inspect shows a tree with it marked below the root. */
function expectAgreement({ strict, report, inspected }: Modes): void {
  expect(inspected.root.children?.length ?? 0).toBeGreaterThan(0);
  expect(inspected.errors).toEqual(report.errors);
  if (strict) {
    expect(where(report.errors[0])).toEqual(where(strict));
    expect(where(inspected.errors[0])).toEqual(where(strict));
  }
  const first = inspected.errors[0];
  if (!first) return;
  const marked = markedNode(inspected.root, first);
  expect(marked?.depth ?? 0, `${first.code} ${first.message} marked below the root`).toBeGreaterThan(0);
  expect(inspected.located.some((l) => l.severity === 'error' && l.message === first.message)).toBe(true);
}

function withoutMarks(tree: PlainInspectNode): PlainInspectNode {
  const { problems: _marks, children, ...rest } = tree;
  return children ? { ...rest, children: children.map(withoutMarks) } : rest;
}

/** Expected classes from the invalid vectors' README table ("| bad_magic/ | … | BadMagic |"). */
function invalidCases(): Array<{ name: string; code: string }> {
  const readme = fs.readFileSync(path.join(SCDL_VECTORS, 'invalid', 'README.md'), 'utf8');
  return [...readme.matchAll(/^\|\s*([\w-]+)\/\s*\|.*\|\s*(\w+)\s*\|\s*$/gm)].map((m) => ({
    name: m[1],
    code: m[2],
  }));
}

describeWith(VECTORS_NEEDED, 'inspect mode over the vectors', () => {
  it('lists the invalid vectors it checks', () => {
    expect(invalidCases().map((c) => c.name)).toEqual(
      fs.readdirSync(path.join(SCDL_VECTORS, 'invalid')).filter((n) => n !== 'README.md'),
    );
  });

  for (const { name, code } of invalidCases()) {
    it(`invalid/${name}: a tree with ${code} marked on the structure at fault`, async () => {
      const modes = await threeModes(
        directoryTarget(await openDirectory(path.join(SCDL_VECTORS, 'invalid', name))),
      );
      expect(modes.strict?.code).toBe(code);
      expectAgreement(modes);
      const first = modes.inspected.errors[0];
      const marked = markedNode(modes.inspected.root, first)!;
      expect(marked.node.kind).not.toBe('archive');
      expect(marked.node.file ?? first.file).toBe(first.file);
      if (first.offset !== undefined) {
        // A file that ends too early is marked up to where it ends: the offset is that end.
        expect(first.offset).toBeGreaterThanOrEqual(marked.node.offset);
        expect(first.offset).toBeLessThanOrEqual(marked.node.offset + marked.node.length);
      }
      // Every file of the archive is still shown.
      const files = modes.inspected.root.children?.find((c) => c.name === 'files');
      expect(files?.children?.length).toBe(
        fs
          .readdirSync(path.join(SCDL_VECTORS, 'invalid', name), { recursive: true })
          .filter((f) => fs.statSync(path.join(SCDL_VECTORS, 'invalid', name, String(f))).isFile()).length,
      );
    });
  }

  it('bad_magic shows the header fields with the magic node marked, and is a near miss of SCDL', async () => {
    const target = directoryTarget(await openDirectory(path.join(SCDL_VECTORS, 'invalid', 'bad_magic')));
    const { root } = await scdlPlugin.inspectTarget(target);
    const header = root.children?.find((c) => c.name === 'header.sch');
    expect(header?.children?.map((c) => c.name)).toEqual(
      expect.arrayContaining(['magic', 'version', 'arrays']),
    );
    expect(header?.children?.find((c) => c.name === 'magic')?.problems?.[0]?.code).toBe('BadMagic');
    // The descriptors behind the magic are decoded, and the arrays they describe shown.
    expect(header?.children?.find((c) => c.name === 'arrays')?.children?.map((c) => c.name)).toEqual([
      'DATA',
      'ROWPTR',
      'COLPTR',
    ]);
    expect(root.children?.map((c) => c.name)).toEqual(expect.arrayContaining(['data.npy', 'row_ptr.npy']));
    expect(await scdlPlugin.detect?.(target, new Uint8Array(0))).toBe(0);
    expect((await scdlNearMiss(target))?.message).toMatch(
      /^BadMagic for SCDL: byte 3 is 0x58, expected 0x4c/,
    );
  });

  for (const { name, archive } of validCases()) {
    it(`${name}: valid, and the same tree as inspect(open())`, async () => {
      const target = directoryTarget(await openDirectory(archive));
      const result = await scdlPlugin.inspectTarget(target);
      expect(result.valid).toBe(true);
      const reader = await scdlPlugin.open(target);
      // Warnings (a stale metadata.json) are marked on their nodes; the structure is the same.
      expect(withoutMarks(toPlainTree(result.root))).toEqual(toPlainTree(await scdlPlugin.inspect(reader)));
      await reader.close?.();
      expect(await scdlNearMiss(target)).toBeUndefined();
    });
  }
});

function changed(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = bytes.slice();
  copy[at] = value;
  return copy;
}

describe('inspect mode over written archives broken on purpose', () => {
  it('a written archive is valid in all three modes', async () => {
    const modes = await threeModes(directoryTarget(await raggedArchive()));
    expect(modes.strict).toBeUndefined();
    expect(modes.report.errors).toEqual([]);
    expect(modes.inspected.valid).toBe(true);
  });

  it('data.npy cut at every length: Truncated, marked on data.npy', async () => {
    const dir = await raggedArchive();
    const data = dir.get('data.npy')!;
    for (let cut = 0; cut < data.byteLength; cut++) {
      const modes = await threeModes(
        directoryTarget(await withChanges(dir, { 'data.npy': data.subarray(0, cut) })),
      );
      expect(modes.strict?.code).toBe('Truncated');
      expectAgreement(modes);
      expect(markedNode(modes.inspected.root, modes.inspected.errors[0])?.node.name).toBe('data.npy');
    }
  });

  const cases: Array<[string, (dir: MemoryDirectory) => Record<string, Uint8Array>, string, boolean]> = [
    ['flipped magic', (d) => ({ 'header.sch': changed(d.get('header.sch')!, 0, 0x78) }), 'BadMagic', true],
    [
      'major version 1',
      (d) => ({ 'header.sch': changed(d.get('header.sch')!, 4, 1) }),
      'UnsupportedVersion',
      true,
    ],
    [
      'header cut inside a descriptor',
      (d) => ({ 'header.sch': d.get('header.sch')!.subarray(0, 30) }),
      'Truncated',
      true,
    ],
    [
      'row_ptr ends past nnz',
      (d) => ({ 'row_ptr.npy': changed(d.get('row_ptr.npy')!, 6, 200) }),
      'CountMismatch',
      true,
    ],
    [
      'row_ptr steps past nnz mid-way',
      (d) => ({ 'row_ptr.npy': changed(d.get('row_ptr.npy')!, 2, 200) }),
      'OutOfBounds',
      false,
    ],
    [
      'column index past its block',
      (d) => ({ 'col_ptr.npy': changed(d.get('col_ptr.npy')!, 1, 9) }),
      'OutOfBounds',
      false,
    ],
  ];
  for (const [name, change, code, strictFails] of cases) {
    it(`${name}: ${code}${strictFails ? '' : ' (validate only)'}, the same in every mode`, async () => {
      const dir = await raggedArchive();
      const modes = await threeModes(directoryTarget(await withChanges(dir, change(dir))));
      expect(modes.strict?.code).toBe(strictFails ? code : undefined);
      expect(modes.report.errors[0]?.code).toBe(code);
      expectAgreement(modes);
    });
  }

  for (const file of ['header.sch', 'data.npy', 'row_ptr.npy', 'var_features/dataframe_0.parquet']) {
    it(`${file} deleted: Truncated, marked on a node for it (not the root)`, async () => {
      const modes = await threeModes(
        directoryTarget(await withChanges(await raggedArchive(), { [file]: null })),
      );
      expect(modes.strict?.code).toBe('Truncated');
      expectAgreement(modes);
      const marked = markedNode(modes.inspected.root, modes.inspected.errors[0])!;
      expect(file.startsWith(marked.node.name)).toBe(true);
    });
  }

  it('an unknown dtype: the descriptor read part-way is shown, the dtype field marked', async () => {
    const dir = await raggedArchive();
    // DATA's dtype (a big-endian u32 at 32, after the core header, the name and the length).
    const header = dir.get('header.sch')!.slice();
    header.set([0, 0, 0, 10], 32);
    const modes = await threeModes(directoryTarget(await withChanges(dir, { 'header.sch': header })));
    expect(modes.strict?.code).toBe('InvalidValue');
    expectAgreement(modes);
    const [first] = modes.inspected.located;
    expect(first.path).toBe('header.sch/arrays/DATA/dtype');
    const marked = markedNode(modes.inspected.root, modes.inspected.errors[0])!;
    expect({ offset: marked.node.offset, length: marked.node.length, value: marked.node.value }).toEqual({
      offset: 32,
      length: 4,
      value: 10,
    });
  });

  it('property: random truncations and byte flips never make the modes disagree', async () => {
    const dir = await raggedArchive();
    const files = (await dir.list()).filter((f) => dir.get(f)!.byteLength > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...files),
        fc.nat(),
        fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 255 })),
        async (file, position, flip) => {
          const bytes = dir.get(file)!;
          const at = position % bytes.byteLength;
          const broken = flip < 0 ? bytes.subarray(0, at) : changed(bytes, at, bytes[at] ^ flip);
          expectAgreement(await threeModes(directoryTarget(await withChanges(dir, { [file]: broken }))));
        },
      ),
      { numRuns: 150 },
    );
  });
});
