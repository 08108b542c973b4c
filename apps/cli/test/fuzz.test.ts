import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyMutations, mutationArbitrary, tempDir, describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';
import { VECTORS, VECTORS_NEEDED, validVectors, vectorFormats } from './vectors.js';

/**
 * Issue 11 through the CLI: `validate --json` on mutated vector files exits 0 or 1 with a
 * JSON report, never 2 with a stack trace. One CLI run validates a whole batch of mutants.
 */
const RUNS = Number(process.env.BINSCOPE_FUZZ_RUNS ?? 40);
const scratch = tempDir('binscope-cli-fuzz-');
afterAll(() => scratch.remove());

function listFiles(dir: string, rel = ''): string[] {
  return fs
    .readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? listFiles(dir, path.join(rel, d.name)) : [path.join(rel, d.name)]))
    .sort();
}

function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

function checkReport(paths: string[], args: string[]): number {
  const r = cli(['validate', '--json', ...args, ...paths]);
  expect(r.stderr, r.stderr).not.toMatch(STACK_LINE);
  expect([0, 1], `exit ${r.code}: ${r.stderr}`).toContain(r.code);
  const report = JSON.parse(r.stdout) as Array<{
    path: string;
    valid: boolean;
    errors: Array<{ code: string }>;
  }>;
  expect(report.map((e) => e.path)).toEqual(paths);
  for (const entry of report) {
    expect(typeof entry.valid).toBe('boolean');
    if (!entry.valid) expect(entry.errors.length, entry.path).toBeGreaterThan(0);
  }
  expect(r.code).toBe(report.every((e) => e.valid) ? 0 : 1);
  return report.filter((e) => !e.valid).length;
}

describeWith(VECTORS_NEEDED, `validate on mutated vectors from ${VECTORS} (${RUNS} mutants each)`, () => {
  for (const format of vectorFormats()) {
    for (const v of validVectors(format)) {
      it(`${format}/${v.name}`, () => {
        const out = path.join(scratch.dir, format, v.name);
        fs.mkdirSync(out, { recursive: true });
        const paths: string[] = [];
        if (fs.statSync(v.target).isDirectory()) {
          // An archive: each mutant is a copy with one of its files mutated.
          const files = listFiles(v.target);
          const plans = fc.sample(fc.tuple(fc.nat({ max: files.length - 1 }), fc.nat({ max: 2 ** 31 - 1 })), {
            numRuns: RUNS,
            seed: 7,
          });
          plans.forEach(([which, seed], i) => {
            const dir = path.join(out, `mutant_${i}`);
            fs.cpSync(v.target, dir, { recursive: true });
            const file = path.join(dir, files[which]);
            const bytes = new Uint8Array(fs.readFileSync(file));
            const [mutations] = fc.sample(mutationArbitrary(bytes.byteLength), { numRuns: 1, seed });
            fs.writeFileSync(file, applyMutations(bytes, mutations));
            paths.push(dir);
          });
        } else {
          // A file: each mutant keeps its name, in a folder of its own beside links to its
          // siblings (the tar shards an index points into).
          const siblings = fs
            .readdirSync(path.dirname(v.target))
            .map((name) => path.join(path.dirname(v.target), name))
            .filter((p) => p !== v.target && fs.statSync(p).isFile());
          const bytes = new Uint8Array(fs.readFileSync(v.target));
          fc.sample(mutationArbitrary(bytes.byteLength), { numRuns: RUNS, seed: 11 }).forEach(
            (mutations, i) => {
              const dir = path.join(out, `mutant_${i}`);
              fs.mkdirSync(dir);
              for (const from of siblings) linkOrCopy(from, path.join(dir, path.basename(from)));
              const p = path.join(dir, path.basename(v.target));
              fs.writeFileSync(p, applyMutations(bytes, mutations));
              paths.push(p);
            },
          );
        }
        checkReport(paths, []);
        checkReport(paths, ['--deep']);
      });
    }
  }
});
