import { describeWith } from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { type CliResult, cli, STACK_LINE } from './helpers.js';
import { invalidVectors, VECTORS, VECTORS_NEEDED, validVectors, vectorFormats } from './vectors.js';

const TAXONOMY = [
  'BadMagic',
  'UnsupportedVersion',
  'UnsupportedFeature',
  'Truncated',
  'OutOfBounds',
  'Misaligned',
  'ReservedNonZero',
  'CountMismatch',
  'SchemaMismatch',
  'DecompressError',
  'InvalidValue',
];

interface TreeNode {
  name: string;
  kind: string;
  offset: number;
  length: number;
  file?: string;
  children?: TreeNode[];
  childCount?: number;
}

function checkTree(node: TreeNode, depth = 0): number {
  expect(typeof node.name).toBe('string');
  expect(typeof node.kind).toBe('string');
  expect(Number.isSafeInteger(node.offset) && node.offset >= 0, `${node.name} offset ${node.offset}`).toBe(
    true,
  );
  expect(Number.isSafeInteger(node.length) && node.length >= 0, `${node.name} length ${node.length}`).toBe(
    true,
  );
  let count = 1;
  for (const c of node.children ?? []) count += checkTree(c, depth + 1);
  return count;
}

function jsonLines(r: CliResult): Array<Record<string, unknown>> {
  return r.stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

function noStack(r: CliResult): void {
  expect(r.stderr, r.stderr).not.toMatch(STACK_LINE);
}

/** The record shapes other tools rely on (issue 8's contracts). */
function checkRecordShape(
  format: string,
  record: Record<string, unknown>,
  expected: Record<string, unknown>,
): void {
  switch (format) {
    case 'scdl':
      expect(Object.keys(record)).toEqual(expect.arrayContaining(['row', 'indices', 'values']));
      expect(Array.isArray(record.indices) && Array.isArray(record.values)).toBe(true);
      expect((record.indices as unknown[]).length).toBe((record.values as unknown[]).length);
      break;
    case 'scbf': {
      const names = (expected.columns as Array<{ name: string }>).map((c) => c.name);
      expect(Object.keys(record)).toEqual(names);
      break;
    }
    case 'mldf':
      expect(typeof record.sample).toBe('number');
      break;
    case 'taridx':
      expect(typeof record.key).toBe('string');
      expect(typeof record.crashid).toBe('number');
      for (const m of record.members as Array<Record<string, unknown>>) {
        expect(Object.keys(m)).toEqual(expect.arrayContaining(['ext', 'fid', 'offset', 'size']));
      }
      break;
  }
}

describeWith(VECTORS_NEEDED, `every vector in ${VECTORS} through the built CLI`, () => {
  for (const format of vectorFormats()) {
    describe(format, () => {
      for (const v of validVectors(format)) {
        describe(v.name, () => {
          it('detect names the format', () => {
            const r = cli(['detect', '--json', v.target]);
            expect(r.code, r.stderr).toBe(0);
            expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ path: v.target, format })]);
            const human = cli(['detect', v.target]);
            expect(human.stdout.startsWith(`${v.target}: ${format} (`)).toBe(true);
          });

          it('info --json has the format and its counts', () => {
            const r = cli(['info', '--json', v.target]);
            expect(r.code, r.stderr).toBe(0);
            const doc = JSON.parse(r.stdout);
            expect(doc.format).toBe(format);
            expect(Object.keys(doc.counts).length).toBeGreaterThan(0);
            for (const [k, n] of Object.entries(doc.counts)) {
              expect(Number.isSafeInteger(n), k).toBe(true);
              expect(doc[k]).toBe(n);
            }
            const human = cli(['info', v.target]);
            expect(human.code).toBe(0);
            expect(human.stdout).toContain(`(${format})`);
          });

          it('inspect gives a tree of byte ranges, and --hex prints a node', () => {
            const r = cli(['inspect', '--json', v.target]);
            expect(r.code, r.stderr).toBe(0);
            const tree = JSON.parse(r.stdout) as TreeNode;
            expect(checkTree(tree)).toBeGreaterThan(1);
            const human = cli(['inspect', v.target, '--depth', '1']);
            expect(human.code).toBe(0);
            expect(human.stdout.split('\n').length).toBeGreaterThan(1);
            const first = tree.children?.find((c) => c.length > 0);
            if (first) {
              const hex = cli(['inspect', v.target, '--hex', first.name, '--json']);
              expect(hex.code, hex.stderr).toBe(0);
              const doc = JSON.parse(hex.stdout);
              expect(doc.node).toMatchObject({
                name: first.name,
                offset: first.offset,
                length: first.length,
              });
              expect(doc.hex.length).toBe(2 * Math.min(first.length, 4096));
            }
          });

          it('validate --json says valid, exit 0', () => {
            const r = cli(['validate', '--json', v.target]);
            expect(r.code, r.stdout + r.stderr).toBe(0);
            const [entry] = JSON.parse(r.stdout);
            expect(entry).toMatchObject({ path: v.target, format, valid: true, errors: [] });
            expect(Array.isArray(entry.warnings)).toBe(true);
          });

          it('head and cat stream records in the contract shapes', () => {
            const all = cli(['cat', v.target]);
            expect(all.code, all.stderr).toBe(0);
            noStack(all);
            const records = jsonLines(all);
            for (const rec of records.slice(0, 50)) checkRecordShape(format, rec, v.expected);

            const head = cli(['head', v.target, '-n', '2']);
            expect(head.code, head.stderr).toBe(0);
            expect(jsonLines(head)).toEqual(records.slice(0, 2));

            const window = cli(['cat', v.target, '--offset', '1', '-n', '1']);
            expect(window.code).toBe(0);
            expect(jsonLines(window)).toEqual(records.slice(1, 2));

            const asJson = cli(['head', v.target, '-n', '3', '--json']);
            expect(asJson.code).toBe(0);
            expect(JSON.parse(asJson.stdout)).toEqual(records.slice(0, 3));
          });
        });
      }

      for (const bad of invalidVectors(format)) {
        describe(`invalid/${bad.name}`, () => {
          it(`validate --json reports ${bad.errorClass} first, exit 1`, () => {
            const r = cli(['validate', '--json', bad.path]);
            expect(r.code, r.stdout + r.stderr).toBe(1);
            noStack(r);
            const [entry] = JSON.parse(r.stdout);
            expect(entry.valid).toBe(false);
            expect([format, null]).toContain(entry.format);
            expect(entry.errors[0].code, JSON.stringify(entry.errors)).toBe(bad.errorClass);
            for (const e of entry.errors) {
              expect(TAXONOMY).toContain(e.code);
              expect(Object.keys(e).sort()).toEqual(['code', 'file', 'message', 'offset']);
            }
            const human = cli(['validate', bad.path]);
            expect(human.code).toBe(1);
            expect(human.stdout).toContain(`error ${bad.errorClass}`);
          });

          it('info and cat fail with one line on stderr, exit 1', () => {
            for (const verb of ['info', 'cat']) {
              const r = cli([verb, bad.path]);
              noStack(r);
              if (verb === 'info' && r.code === 0) continue; // a defect past the header need not stop info
              expect(r.code, `${verb}: ${r.stderr}`).toBe(1);
              const lines = r.stderr
                .split('\n')
                .filter((l) => l.startsWith('binscope:') && !l.includes('warning:'));
              expect(lines, r.stderr).toHaveLength(1);
              expect(lines[0]).toContain(bad.path);
            }
          });
        });
      }
    });
  }
});
