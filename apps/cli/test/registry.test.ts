import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { createRegistry, DETECTION_SCORE } from '@binscope/core';
import { openPath } from '@binscope/core/node';
import {
  describeWith,
  invalidVectors,
  validVectors,
  VECTORS,
  vectorFormats,
  vectorsFolder,
} from '@binscope/testkit';
import { describe, expect, it } from 'vitest';
import { formats } from '@binscope/formats';
import { run } from '../src/cli.js';
import { createCliRegistry, readableFormats } from '../src/format-list.js';
import { cli, REPO } from './helpers.js';

/**
 * Every vector file and what detection must say of it, by the vector layout alone (held-out
 * cases follow the same rule): a valid case's files are their folder's format, a tar shard is
 * `tar`; a broken file is its format too, except a bad signature, which may be unknown but
 * must then be named as a near miss of that format.
 */
interface DetectCase {
  rel: string;
  format: string;
  /** A bad signature: detection may say unknown, with a near miss of `format`. */
  badMagic: boolean;
}

function detectCases(): DetectCase[] {
  const out: DetectCase[] = [];
  for (const format of vectorFormats()) {
    for (const v of validVectors(format)) {
      const dir = path.relative(VECTORS, v.dir);
      out.push({ rel: path.relative(VECTORS, v.target), format, badMagic: false });
      for (const f of fs.readdirSync(v.dir).filter((f) => f.endsWith('.tar')))
        out.push({ rel: path.join(dir, f), format: 'tar', badMagic: false });
    }
    for (const bad of invalidVectors(format))
      out.push({ rel: path.relative(VECTORS, bad.path), format, badMagic: bad.errorClass === 'BadMagic' });
  }
  return out;
}

function expectDetected(
  c: DetectCase,
  result: { format: string | null; nearMiss?: { id: string } | null },
): void {
  if (c.badMagic && result.format === null) expect(result.nearMiss?.id, c.rel).toBe(c.format);
  else expect(result.format, c.rel).toBe(c.format);
}

const vectorPath = (rel: string) => path.join(VECTORS, rel);

function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => {
    stdout += d;
  });
  err.on('data', (d) => {
    stderr += d;
  });
  return { streams: { stdout: out, stderr: err }, text: () => ({ stdout, stderr }) };
}

describeWith(vectorsFolder(VECTORS), 'the lazy registry over every vector', () => {
  it('detects every vector from FormatInfo alone, loading no parser', async () => {
    const loads: string[] = [];
    const counting = createRegistry(
      formats.map((f) => ({
        ...f,
        load: () => {
          loads.push(f.id);
          return f.load!();
        },
      })),
    );
    const cases = detectCases();
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expectDetected(c, await counting.detect(openPath(vectorPath(c.rel))));
    expect(loads).toEqual([]);
    expect((await counting.load('mldf')).id).toBe('mldf');
    expect(loads).toEqual(['mldf']);
  });

  it('the CLI loads no parser to detect and exactly one to validate', async () => {
    const registry = createCliRegistry();
    const detect = capture();
    const paths = detectCases().map((c) => vectorPath(c.rel));
    expect(await run(['detect', ...paths], detect.streams, { registry })).toBe(1); // some are unknown
    expect(registry.loadedIds()).toEqual([]);
    const validate = capture();
    const code = await run(['validate', vectorPath('mldf/basic_mixed/basic_mixed.mldf')], validate.streams, {
      registry,
    });
    expect(code, validate.text().stderr).toBe(0);
    expect(registry.loadedIds()).toEqual(['mldf']);
  });

  it('the built CLI imports format packages statically only for their /magic metadata', () => {
    const dist = path.join(REPO, 'apps/cli/dist');
    const statics = fs
      .readdirSync(dist)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) => [
        ...fs.readFileSync(path.join(dist, f), 'utf8').matchAll(/from\s*"(@binscope\/[^"]+)"/g),
      ])
      .map((m) => m[1])
      .filter((specifier) => !specifier.startsWith('@binscope/core'));
    // The CLI names no format package: the one list does (@binscope/formats), with its /magic entries.
    expect(new Set(statics)).toEqual(new Set(['@binscope/formats']));
  });
});

describeWith(vectorsFolder(VECTORS), 'one score scale', () => {
  it('binscope detect --json shows every candidate on the 0..1 scale, best first, and the format the vector layout names', () => {
    const cases = detectCases();
    const r = cli(['detect', '--json', ...cases.map((c) => vectorPath(c.rel))]);
    const results = JSON.parse(r.stdout) as Array<{
      format: string | null;
      nearMiss?: { id: string } | null;
      candidates: Array<{ id: string; score: number }>;
    }>;
    expect(results).toHaveLength(cases.length);
    results.forEach((result, i) => {
      expectDetected(cases[i] as DetectCase, result);
      const scores = result.candidates.map((c) => c.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      for (const score of scores) {
        expect(score).toBeGreaterThanOrEqual(DETECTION_SCORE.partialMagic);
        expect(score).toBeLessThanOrEqual(1);
      }
    });
  });
});

/** Upper-case words in help texts that are not format names. */
const NOT_FORMATS = new Set([
  'CSV',
  'JSON',
  'CRC',
  'BYTES',
  'FILE',
  'FORMAT',
  'VERB',
  'DIR',
  'FOLD',
  'NAME',
  'NODE',
  'KEY',
  'OUT',
  'MODULE',
  'SIGTERM',
  'URL',
  'OUTPUT',
  'INPUT',
  'TYPE',
  'FIRST',
  'LAST',
  'NAME_NNNN',
  'NNNN',
]);
/** Dot-suffixes in help texts that are not format extensions ("zlib.compress" is Python's). */
const NOT_FORMAT_EXTENSIONS = new Set([
  'csv',
  'h5ad',
  'tar',
  'bin',
  'json',
  'npy',
  'jpg',
  'png',
  'sch',
  'compress',
]);

function helpTexts(): Record<string, string> {
  const root = cli(['--help']);
  const verbs = [...root.stdout.matchAll(/^ {2}([a-z]+) (?:\[options\]|<|\[)/gm)].map((m) => m[1]);
  // Commander wraps lines: compare the words, not the layout.
  const words = (text: string) => text.replace(/\s+/g, ' ');
  const texts: Record<string, string> = { '--help': words(root.stdout) };
  for (const verb of verbs) texts[`${verb} --help`] = words(cli([verb, '--help']).stdout);
  return texts;
}

describe('one list of formats', () => {
  const FORMATS = readableFormats(createCliRegistry());
  const ids = FORMATS.map((f) => f.id);
  const texts = helpTexts();

  it('names every registered format, with its extension, in binscope --help', () => {
    expect(Object.keys(texts).length).toBeGreaterThan(8);
    for (const f of FORMATS) {
      expect(texts['--help']).toContain(f.id.toUpperCase());
      expect(texts['--help']).toContain(f.title);
      for (const ext of f.extensions) expect(texts['--help']).toContain(`.${ext}`);
    }
    expect(texts['info --help']).toContain(`(${ids.join(', ')})`);
  });

  it('names no format that is not registered, in any help text', () => {
    // Detection-only entries (a container, a convertible) are in the list too.
    const all = createCliRegistry().formats;
    // Words the list itself declares come from it too: an entry's title ("AnnData (.h5ad,
    // HDF5)"), a converter's title and its options' value names and descriptions (DTYPE).
    const converters = createCliRegistry().converters;
    const declared = [
      ...all.map((f) => f.title),
      ...converters.flatMap((c) => [
        c.title,
        ...(c.options ?? []).flatMap((o) => [o.valueName ?? '', o.description ?? '']),
      ]),
    ];
    const declaredWords = declared.flatMap((text) => text.match(/\b[A-Z][A-Z0-9]{2,}\b/g) ?? []);
    const names = new Set([...all.map((f) => f.id.toUpperCase()), ...declaredWords]);
    const extensions = new Set(all.flatMap((f) => f.extensions));
    for (const [which, text] of Object.entries(texts)) {
      for (const [word] of text.matchAll(/\b[A-Z][A-Z0-9]{2,}\b/g)) {
        if (!NOT_FORMATS.has(word)) expect(names, `${which}: ${word}`).toContain(word);
      }
      // jq paths (".rows") are JSON keys, not file names.
      const prose = text.replace(/\bjq \S+/g, 'jq');
      for (const [, ext] of prose.matchAll(/(?:^|[\s(*])[\w*]*\.([a-z][a-z0-9]+)\b/g)) {
        if (!NOT_FORMAT_EXTENSIONS.has(ext)) expect(extensions, `${which}: .${ext}`).toContain(ext);
      }
    }
  });
});
