import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPath } from '@binscope/core/node';
import { describe, expect, it } from 'vitest';
import type { FormatConformance } from './formats/types.js';
import { formats, invalidCases, VECTORS, VECTORS_PRESENT, validCases } from './vectors.js';

const here = path.dirname(fileURLToPath(import.meta.url));

async function loadFormat(id: string): Promise<FormatConformance | undefined> {
  const file = path.join(here, 'formats', `${id}.ts`);
  if (!fs.existsSync(file)) return undefined;
  return (await import(`./formats/${id}.ts`)).default as FormatConformance;
}

if (!VECTORS_PRESENT) {
  console.warn(`conformance: skipped, no vectors folder at ${VECTORS} (set BINSCOPE_VECTORS)`);
}

describe.skipIf(!VECTORS_PRESENT)(`conformance vectors in ${VECTORS}`, async () => {
  for (const format of formats()) {
    const conformance = await loadFormat(format);
    if (!conformance)
      console.warn(`conformance: format '${format}' is not implemented, its vectors are not counted`);

    describe.skipIf(!conformance)(format, () => {
      for (const testCase of validCases(format)) {
        it(`${testCase.name} reads as expected.json says`, async () => {
          await conformance!.checkValid(testCase);
        });
        it(`${testCase.name} validates clean`, async () => {
          const target = openPath(conformance!.targetPath(testCase));
          const report = await conformance!.plugin.validate(target);
          expect(report.errors).toEqual([]);
          expect(report.valid).toBe(true);
        });
      }
      for (const bad of invalidCases(format)) {
        it(`invalid/${bad.name} is rejected with ${bad.errorClass}`, async () => {
          const report = await conformance!.plugin.validate(openPath(bad.path));
          expect(report.valid).toBe(false);
          expect(report.errors[0]?.code, JSON.stringify(report.errors)).toBe(bad.errorClass);
          const first = report.errors[0];
          expect(typeof first.message).toBe('string');
          // Opening and reading must fail the same way, as a FormatError, not a crash.
          if (conformance!.readAll) {
            const error = await conformance!.readAll(openPath(bad.path)).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error, 'reading the whole file must raise').toBeDefined();
            expect((error as { code?: string }).code, String(error)).toBe(bad.errorClass);
          }
        });
      }
    });
  }
});
