import * as fs from 'node:fs';
import * as path from 'node:path';
import { openScdlArchive } from '@binscope/scdl/node';
import { tempDir, describeWith } from '@binscope/testkit';
import { afterEach, expect, it } from 'vitest';
import { convertH5adToScdl, listH5adInputs } from '../src/node.js';
import { conversionCases, expectSameArchive, listFiles, loadCase, VECTORS_NEEDED } from './vectors.js';

const temps: { remove: () => void }[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

describeWith(
  VECTORS_NEEDED,
  'conversion reproduces upstream archives (every SCDL vector with source/)',
  () => {
    for (const name of conversionCases) {
      it(`${name}: arrays and header byte-identical, feature indices equal, readable`, async () => {
        const c = loadCase(name);
        const tmp = tempDir('scdl-h5ad-');
        temps.push(tmp);
        const out = path.join(tmp.dir, 'archive');
        const result = await convertH5adToScdl(c.inputs, out, c.options);
        const rows = c.expected.matrix.num_rows_from_row_ptr;
        expect(result.rows).toBe(rows);
        await expectSameArchive(
          (rel) => new Uint8Array(fs.readFileSync(path.join(out, rel))),
          listFiles(out),
          c.archive,
          rows,
        );
        expect(fs.readdirSync(tmp.dir)).toEqual(['archive']);

        const reader = await openScdlArchive(out);
        try {
          expect(reader.numRows).toBe(rows);
          for (const expected of c.expected.matrix.rows ?? []) {
            const row = await reader.row(expected.row);
            expect(Array.from(row.indices)).toEqual(expected.col_indices);
            expect(Array.from(row.values as ArrayLike<number | bigint>, (v) => Number(v))).toEqual(
              expected.values.map(Number),
            );
          }
        } finally {
          await reader.close();
        }
      });

      it(`${name}: a folder input is taken in upstream's sorted order with upstream's labels`, () => {
        const c = loadCase(name);
        const dirs = new Set(c.conversion.inputs.map((p) => path.dirname(p)));
        if (c.conversion.inputs.length < 2 || dirs.size !== 1) return;
        const [dir] = [...dirs];
        const listed = listH5adInputs(path.join(c.source, dir)).map((f) => path.relative(c.source, f.path));
        expect(listed).toEqual(c.conversion.inputs);
      });
    }
  },
);
