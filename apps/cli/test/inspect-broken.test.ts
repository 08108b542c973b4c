import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWith } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';
import { invalidVectors, VECTORS, VECTORS_NEEDED, vectorFormats } from './vectors.js';

interface JsonNode {
  name: string;
  children?: JsonNode[];
  problems?: Array<{ code: string }>;
}

/** The node at a "/"-joined path of names below the root, in the printed JSON tree. */
function nodeAt(root: JsonNode, nodePath: string): JsonNode | undefined {
  let current: JsonNode | undefined = root;
  for (const name of nodePath.split('/').filter(Boolean))
    current = current?.children?.find((c) => c.name === name);
  return current;
}

// A folder archive whose signature file is damaged is not detected (detection's near misses are
// by a file's magic bytes); naming the format is how such an archive is inspected.
function inspectArgs(format: string, target: string): string[] {
  return fs.statSync(target).isDirectory() && format === 'scdl' ? ['--as', format] : [];
}

describeWith(VECTORS_NEEDED, `inspect on every invalid vector in ${VECTORS}`, () => {
  for (const format of vectorFormats()) {
    for (const bad of invalidVectors(format)) {
      describe(`${format}/invalid/${bad.name}`, () => {
        const extra = inspectArgs(format, bad.path);

        it(`prints the tree with ${bad.errorClass} marked on a node, exit 1`, () => {
          const r = cli(['inspect', bad.path, ...extra]);
          expect(r.code, r.stdout + r.stderr).toBe(1);
          expect(r.stderr).not.toMatch(STACK_LINE);
          const lines = r.stdout.trimEnd().split('\n');
          const marked = lines.findIndex(
            (l) => l.endsWith(`✗ ${bad.errorClass}`) || l.includes(`✗ ${bad.errorClass},`),
          );
          expect(marked, r.stdout).toBeGreaterThanOrEqual(0);
          expect(lines[marked + 1]).toMatch(
            new RegExp(`✗ error ${bad.errorClass}( at byte \\d+( in \\S+)?)?: .+`),
          );
          expect(lines.at(-1)).toMatch(/^[1-9]\d* errors?, \d+ warnings?$/);
        });

        it('--json gives problems[0] with that code and a node path --hex resolves', () => {
          const r = cli(['inspect', '--json', bad.path, ...extra]);
          expect(r.code, r.stderr).toBe(1);
          const doc = JSON.parse(r.stdout);
          const [first] = doc.problems;
          expect(first).toMatchObject({ code: bad.errorClass, severity: 'error', format });
          expect(Object.keys(first).sort()).toEqual(
            ['code', 'file', 'format', 'indexPath', 'message', 'offset', 'path', 'severity'].sort(),
          );
          const owner = nodeAt(doc, first.path);
          expect(
            owner?.problems?.map((p) => p.code) ?? doc.problems.map((p: { code: string }) => p.code),
          ).toContain(bad.errorClass);
          if (first.path === '' && fs.statSync(bad.path).isDirectory()) return; // a folder has no bytes of its own
          const hex = cli(['inspect', bad.path, ...extra, '--hex', first.path, '--json']);
          expect(hex.code, hex.stderr).toBe(1);
          expect(hex.stderr).toContain('error');
          const dump = JSON.parse(hex.stdout);
          expect(dump.node.name).toBe(owner?.name);
          expect(dump.hex.length).toBe(2 * dump.shown);
        });
      });
    }
  }
});

describeWith(VECTORS_NEEDED, 'a problem inside a table row', () => {
  // ptr_oob.mldf: sample 0's payload data_ptr points past the end (the vectors' README).
  const file = path.join(VECTORS, 'mldf', 'invalid', 'ptr_oob.mldf');

  it("is located on the row's field that holds the bad value, and --hex prints that field", () => {
    const r = cli(['inspect', '--json', file]);
    expect(r.code, r.stderr).toBe(1);
    const [first] = JSON.parse(r.stdout).problems;
    expect(first.code).toBe('OutOfBounds');
    expect(first.path).toBe('metadata table/row 0/payload/data_ptr');
    const hex = cli(['inspect', file, '--hex', first.path, '--json']);
    const dump = JSON.parse(hex.stdout);
    expect(dump.node).toMatchObject({ name: 'data_ptr', offset: first.offset, length: 8 });
  });
});

describe('inspect on files no format claims', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-inspect-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('inspects a near miss (8 of 9 MLDF magic bytes, no extension) as that format, magic marked', () => {
    const file = path.join(dir, 'near');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('\x89MLDF\x00\n\x1a\n', 'latin1'), Buffer.alloc(200)]));
    const r = cli(['inspect', '--json', file]);
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.problems[0]).toMatchObject({ code: 'BadMagic', format: 'mldf', offset: 5 });
    const human = cli(['inspect', file]);
    expect(human.stdout).toMatch(/✗ BadMagic/);
  });

  it('says "unknown format" when nothing matches at all', () => {
    const file = path.join(dir, 'noise');
    fs.writeFileSync(file, Buffer.from('just some text, nothing like a signature\n'));
    const r = cli(['inspect', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown format');
  });
});
