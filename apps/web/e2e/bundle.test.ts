import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '..', 'dist');

/** Every module specifier a built chunk imports (static, dynamic, re-export, CommonJS). */
function importSpecifiers(code: string): string[] {
  const out: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\brequire\s*\(\s*)["'`]([^"'`\s]+)["'`]/g;
  for (const match of code.matchAll(pattern)) out.push(match[1]);
  return out;
}

const builtins = new Set(builtinModules);
const isNodeBuiltin = (specifier: string) =>
  specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]);

describe('built bundle', () => {
  it('finds node imports when they are there (the check itself can fail)', () => {
    const sample =
      'import{readFileSync as a}from"node:fs";const b=await import("node:zlib");require("path");import"./x.js";';
    expect(importSpecifiers(sample).filter(isNodeBuiltin)).toEqual(['node:fs', 'node:zlib', 'path']);
  });

  it('contains no Node built-in imports', () => {
    expect(existsSync(dist), 'run `vite build` first (the e2e script does)').toBe(true);
    const assets = join(dist, 'assets');
    const chunks = readdirSync(assets).filter((f) => f.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(0);
    const offenders: string[] = [];
    for (const chunk of chunks) {
      for (const specifier of importSpecifiers(readFileSync(join(assets, chunk), 'utf8'))) {
        if (isNodeBuiltin(specifier)) offenders.push(`${chunk}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('has no stubs Vite puts where a Node built-in was imported', () => {
    // Vite replaces `node:*` imports in browser builds with an empty "browser external"
    // module and only warns; its trace in the output means a Node entry leaked in.
    const assets = join(dist, 'assets');
    const leaked = readdirSync(assets).filter(
      (f) =>
        f.includes('browser-external') ||
        (f.endsWith('.js') && readFileSync(join(assets, f), 'utf8').includes('__vite-browser-external')),
    );
    expect(leaked).toEqual([]);
  });
});
