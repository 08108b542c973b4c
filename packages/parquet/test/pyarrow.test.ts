/**
 * The real consumer reads what binscope writes: every valid vector of every format, exported
 * to Parquet, read back by pyarrow with the schema the type mapping says (README "Types in
 * Parquet and Arrow") and the values binscope itself reads from the vector.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Schema, type TableInfo, tabularField } from '@binscope/core';
import {
  describeWith,
  pythonModules,
  tempDir,
  VECTORS,
  validVectors,
  vectorsFolder,
} from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { arrowTypeName, digestRecords, readWithPyarrow } from './canon.js';
import { exportFile, exportFolder, FORMATS, openInput } from './exports.js';

const scratch = tempDir('binscope-parquet-pyarrow-');
afterAll(() => scratch.remove());

const VECTOR_FORMATS = Object.keys(FORMATS).filter((f) => f !== 'parquet');

/** What the export writes by default: the primary table when the input has one, else the main records. */
async function chosen(
  tables: AsyncIterable<TableInfo>,
  main: Schema,
): Promise<{ table?: string; schema: Schema }> {
  for await (const t of tables) if (t.primary) return { table: t.name, schema: t.schema };
  return { schema: main };
}

/** pyarrow's view of `file` (read here unless given) against binscope's records of `table` (its schema and values). */
async function expectSameAsBinscope(
  file: string,
  input: Awaited<ReturnType<typeof openInput>>['input'],
  selection: { table?: string; schema: Schema },
  seen = readWithPyarrow(file),
) {
  const expectedSchema = selection.schema.fields.map((f) => {
    const t = tabularField(f);
    return { name: f.name, type: arrowTypeName(t.type), nullable: t.nullable };
  });
  expect(seen.schema).toEqual(expectedSchema);
  const ours = await digestRecords(selection.schema, input.records({ table: selection.table }));
  expect({ rows: seen.rows, first: seen.first }).toEqual({ rows: ours.rows, first: ours.first ?? null });
  expect(seen.digest).toBe(ours.digest);
  // ndarrays of a known shape keep it beside the list (Parquet has no field metadata).
  const fields = JSON.parse(seen.metadata['binscope.fields'] ?? '{}') as Record<
    string,
    Record<string, string>
  >;
  for (const f of selection.schema.fields)
    if (f.type.kind === 'ndarray' && f.type.shape)
      expect(fields[f.name]?.['binscope.shape'], f.name).toBe(JSON.stringify(f.type.shape));
}

describeWith(
  [vectorsFolder(VECTORS), pythonModules(['pyarrow', 'numpy'])],
  'pyarrow reads every export',
  () => {
    const cases = VECTOR_FORMATS.flatMap((format) => validVectors(format).map((v) => ({ format, v })));

    it('has vectors of every format', () => {
      expect(new Set(cases.map((c) => c.format))).toEqual(new Set(VECTOR_FORMATS));
    });

    it.each(cases.map((c) => [`${c.format}/${c.v.name}`, c] as const))('%s', async (_, { format, v }) => {
      const { input, close } = await openInput(format, v.target);
      try {
        const out = path.join(scratch.dir, `${format}-${v.name}.parquet`);
        await exportFile(input, out);
        await expectSameAsBinscope(out, input, await chosen(input.tables(), input.schema));
      } finally {
        await close();
      }
    });

    it.each(validVectors('udf').map((v) => [v.name, v] as const))(
      'udf/%s: every table as its own file',
      async (_, v) => {
        const { input, close } = await openInput('udf', v.target);
        try {
          const files = await exportFolder(input);
          const tables = [{ name: 'udf', schema: input.schema, table: undefined as string | undefined }];
          for await (const t of input.tables())
            tables.push({ name: t.name, schema: t.schema, table: t.name });
          expect(files.size).toBe(tables.length);
          // Each file says which table it holds (`binscope.table`; none for the main records).
          const seen = new Set<string | undefined>();
          for (const [name, bytes] of files) {
            const file = path.join(scratch.dir, `udf-${v.name}-${name}`);
            fs.writeFileSync(file, bytes);
            // One pyarrow process a file (each takes a second or two on a busy machine): it tells the
            // table the file holds and gives the view compared with binscope's records.
            const view = readWithPyarrow(file);
            const table = view.metadata['binscope.table'];
            const t = tables.find((t) => t.table === table);
            expect(t, `${name} holds ${table}`).toBeDefined();
            seen.add(table);
            await expectSameAsBinscope(file, input, { table: t!.table, schema: t!.schema }, view);
          }
          expect(seen.size).toBe(tables.length);
        } finally {
          await close();
        }
      },
      // A pyarrow process for each of up to 14 table files, each a second or more on a busy
      // machine: 87 s measured with the CPUs busy. The timeout only bounds a hang.
      300_000,
    );
  },
);
