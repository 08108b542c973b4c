import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { formats } from '@binscope/formats';
import { describe, expect, it } from 'vitest';

// The page and its worker know no format by name (issue #30): they import only core, the
// format list and libraries, and no source file mentions a format of the list.

const src = join(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a source imports (static, dynamic, re-export). */
function specifiers(code: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'\s]+)["']/g;
  return [...code.matchAll(pattern)].map((m) => m[1]);
}

const ALLOWED =
  /^(\.|@binscope\/core(\/(binary|http))?$|@binscope\/formats$|react$|react-dom(\/client)?$|fflate$|@noble\/hashes\/sha2\.js$|uplot(\/dist\/uPlot\.min\.css)?$)/;

/** Where a source names a format of the list (its id as a word, any case). */
function mentions(code: string, ids: readonly string[]): string[] {
  return ids.filter((id) => new RegExp(`\\b${id}\\b`, 'i').test(code));
}

describe('the page is generic', () => {
  const files = sources(src);
  const ids = formats.map((f) => f.id);

  it('the checks can fail', () => {
    expect(
      specifiers("import { x } from '@binscope/scbf';\nconst m = await import('@binscope/udf/magic');"),
    ).toEqual(['@binscope/scbf', '@binscope/udf/magic']);
    expect(specifiers("import './styles.css';")).toEqual(['./styles.css']);
    expect(mentions("if (format === 'SCDL') open('header.sch')", ids)).toEqual(['scdl']);
  });

  it('imports only core, the format list and libraries', () => {
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((s) => !ALLOWED.test(s))
        .map((s) => `${relative(src, file)}: ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('names no format of the list', () => {
    expect(ids.length).toBeGreaterThan(1);
    const offenders = files.flatMap((file) =>
      mentions(readFileSync(file, 'utf8'), ids).map((id) => `${relative(src, file)}: ${id}`),
    );
    expect(offenders).toEqual([]);
  });
});
