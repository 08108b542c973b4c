import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AnyFormatPlugin,
  isBinscopeError,
  type PlainInspectNode,
  type Problem,
  toPlainTree,
} from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { describeWith, vectorsFolder } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import type { FormatConformance } from './formats/types.js';
import { formats, type InvalidCase, invalidCases, VECTORS, type ValidCase, validCases } from './vectors.js';

const here = path.dirname(fileURLToPath(import.meta.url));

async function loadFormat(id: string): Promise<FormatConformance | undefined> {
  const file = path.join(here, 'formats', `${id}.ts`);
  if (!fs.existsSync(file)) return undefined;
  return (await import(`./formats/${id}.ts`)).default as FormatConformance;
}

/** A1's location of an error, the part two code paths must agree on. */
function located(problem: { code?: string; offset?: number; file?: string; format?: string }) {
  return { code: problem.code, offset: problem.offset, file: problem.file, format: problem.format };
}

/**
 * A1: the first error names its class, the format, and the file and byte offset of the
 * defect: the file is the one opened (or, in an archive, one of its files) and the offset
 * lies inside it. A bad magic is located inside the format's magic signature.
 */
function expectLocated(first: Problem, bad: InvalidCase, plugin: AnyFormatPlugin): void {
  const formatId = plugin.id;
  const all = JSON.stringify(first);
  expect(first.code, all).toBe(bad.errorClass);
  expect(first.message, all).toMatch(/\S/);
  expect(first.format, all).toBe(formatId);
  expect(typeof first.file, all).toBe('string');
  const isArchive = fs.statSync(bad.path).isDirectory();
  const file = isArchive ? path.join(bad.path, first.file!) : bad.path;
  if (!isArchive) expect(first.file, all).toBe(path.basename(bad.path));
  expect(fs.existsSync(file) && fs.statSync(file).isFile(), `${all}: names a file of the case`).toBe(true);
  expect(Number.isSafeInteger(first.offset) && first.offset! >= 0, `${all}: offset`).toBe(true);
  expect(first.offset!, `${all}: offset inside the file`).toBeLessThanOrEqual(fs.statSync(file).size);
  if (bad.errorClass === 'BadMagic') {
    const inMagic = plugin.magic.some(
      (m) => first.offset! >= m.offset && first.offset! < m.offset + m.bytes.length,
    );
    expect(inMagic, `${all}: offset inside the magic signature`).toBe(true);
  }
}

/** A tree without inspect mode's problem marks. */
function unmarked(tree: PlainInspectNode): PlainInspectNode {
  const { problems: _problems, children, ...rest } = tree;
  return children ? { ...rest, children: children.map(unmarked) } : rest;
}

/** The warning codes a valid case must validate with: the format's reading of expected.json. */
function expectedWarnings(conformance: FormatConformance, testCase: ValidCase): string[] {
  if (conformance.expectedWarnings) return conformance.expectedWarnings(testCase);
  const warnings = (testCase.expected.warnings ?? []) as Array<string | { code: string }>;
  return warnings.map((w) => (typeof w === 'string' ? w : w.code));
}

const vectors = vectorsFolder(VECTORS);

describeWith(vectors, `conformance vectors in ${VECTORS}`, async () => {
  const ids = formats();
  it('the vectors folder holds formats', () => {
    expect(ids.length, `no format folders in ${VECTORS}`).toBeGreaterThan(0);
  });
  for (const format of ids) {
    const conformance = await loadFormat(format);
    if (!conformance) {
      // Vectors of a format the harness cannot run prove nothing: that is a failure, not a skip.
      describe(format, () =>
        it('has a harness', () => {
          throw new Error(`vectors for '${format}' but no formats/${format}.ts to run them`);
        }),
      );
      continue;
    }
    const { plugin } = conformance;

    describe(format, () => {
      for (const testCase of validCases(format)) {
        it(`${testCase.name} reads as expected.json says`, async () => {
          await conformance.checkValid(testCase);
        });
        it(`${testCase.name} inspects, in inspect mode, to the tree of the opened file`, async () => {
          const target = openPath(conformance.targetPath(testCase));
          const result = await plugin.inspectTarget(target);
          expect(result.errors).toEqual([]);
          expect(result.valid).toBe(true);
          const reader = await plugin.open(openPath(conformance.targetPath(testCase)));
          try {
            // The same structure; inspect mode adds marks only, for warnings (a stale metadata.json).
            expect(unmarked(toPlainTree(result.root))).toEqual(toPlainTree(await plugin.inspect(reader)));
          } finally {
            await reader.close?.();
          }
        });
        it(`${testCase.name} validates clean`, async () => {
          const target = openPath(conformance.targetPath(testCase));
          const report = await plugin.validate(target);
          expect(report.errors).toEqual([]);
          expect(report.warnings.map((w) => w.code)).toEqual(expectedWarnings(conformance, testCase));
          expect(report.valid).toBe(true);
        });
      }
      for (const bad of invalidCases(format)) {
        it(`invalid/${bad.name} is rejected with ${bad.errorClass}, located`, async () => {
          const report = await plugin.validate(openPath(bad.path));
          expect(report.valid).toBe(false);
          const first = report.errors[0];
          expect(first, 'validate reports an error').toBeDefined();
          expectLocated(first, bad, plugin);
          // The strict reader fails the same way, at the same place, as a FormatError.
          if (conformance.readAll) {
            const error = await conformance.readAll(openPath(bad.path)).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(
              isBinscopeError(error, 'FormatError'),
              `reading the whole file must raise a FormatError: ${error}`,
            ).toBe(true);
            expect(located(error as Problem), 'the strict reader agrees with validate').toEqual(
              located(first),
            );
          }
        });
        it(`invalid/${bad.name} inspects to a partial tree with the defect marked on its node`, async () => {
          const result = await plugin.inspectTarget(openPath(bad.path));
          const report = await plugin.validate(openPath(bad.path));
          expect(result.valid).toBe(false);
          // Inspect mode is the same parser: its first error is validate's.
          expect(located(result.errors[0] ?? {})).toEqual(located(report.errors[0] ?? {}));
          expect(
            result.root.children?.length ?? 0,
            'the tree shows structure, not just the file',
          ).toBeGreaterThan(0);
          const mark = result.located.find((p) => p.severity === 'error' && p.code === bad.errorClass);
          expect(mark, JSON.stringify(result.located)).toBeDefined();
          expect(mark?.path, 'the defect is marked on a node below the root').not.toBe('');
          let marked = result.root;
          for (const i of mark?.indexPath ?? []) marked = marked.children?.[i] ?? marked;
          expect(marked.problems?.some((p) => p.code === bad.errorClass)).toBe(true);
        });
      }
    });
  }
});
