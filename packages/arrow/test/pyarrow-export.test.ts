import * as path from 'node:path';
import {
  describeWith,
  pythonModules,
  tempDir,
  VECTORS,
  validVectors,
  vectorsFolder,
} from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { describeWithPyarrow, expectedExport, exportTo, FORMATS, openInput } from './helpers.js';

// The real consumer reads what binscope writes: every format's valid vectors exported to an
// IPC file and an IPC stream, opened by pyarrow (ipc.open_file / open_stream), with the
// schema core's tabular mapping prescribes (types, nullability, field metadata) and values
// equal to binscope's own records (compared by a digest of every row and the first rows).

const dir = tempDir('arrow-pyarrow-');
afterAll(() => dir.remove());

/** The exports each vector gets: its default, plus every named table (TARIDX samples, UDF tables). */
async function cases(format: string, target: string): Promise<{ label: string; table?: string }[]> {
  const { input, close } = await openInput(format, target);
  try {
    const out: { label: string; table?: string }[] = [{ label: 'default' }];
    for await (const t of input.tables())
      if (out.length < 8) out.push({ label: `table ${t.name.replace(/[^\w.-]/g, '_')}`, table: t.name });
    return out;
  } finally {
    await close();
  }
}

describeWith([vectorsFolder(VECTORS), pythonModules(['pyarrow'])], 'pyarrow reads every export', () => {
  for (const format of Object.keys(FORMATS)) {
    describe(format, () => {
      for (const vector of validVectors(format)) {
        it(`${vector.name}: .arrow and .arrows read by pyarrow equal binscope's records`, async () => {
          for (const c of await cases(format, vector.target)) {
            const values = c.table === undefined ? {} : { table: c.table };
            for (const kind of ['file', 'stream'] as const) {
              const { input, close } = await openInput(format, vector.target);
              try {
                const file = path.join(
                  dir.dir,
                  `${format}-${vector.name}-${c.label}.${kind === 'file' ? 'arrow' : 'arrows'}`,
                );
                const report = await exportTo(input, file, kind, values);
                const expected = await expectedExport(input, values);
                const seen = describeWithPyarrow(file, kind);
                const what = `${vector.name} ${c.label} (${kind})`;
                expect(seen.fields, what).toEqual(expected.fields);
                expect(seen.rows, what).toBe(expected.rows);
                expect(seen.first, what).toEqual(expected.first);
                expect(seen.sha256, what).toBe(expected.sha256);
                expect(report.details.rows).toBe(expected.rows);
              } finally {
                await close();
              }
            }
          }
        });
      }
    });
  }
});
