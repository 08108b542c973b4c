import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { createRegistry, DETECTION_SCORE } from '@binscope/core';
import { openPath } from '@binscope/core/node';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli.js';
import { FORMATS, registry } from '../src/plugins.js';
import { cli, REPO } from './helpers.js';

const VECTORS = process.env.BINSCOPE_VECTORS ?? '/work/shared/vectors';

/**
 * Every vector and the format detection names for it, pinned: a change of the score scale
 * must not move any file to another format (null: unknown, reported as a near miss).
 */
const DETECTED: Record<string, string | null> = {
  'mldf/basic_mixed/basic_mixed.mldf': 'mldf',
  'mldf/empty_dataset/empty_dataset.mldf': 'mldf',
  'mldf/ndarray_image/ndarray_image.mldf': 'mldf',
  'mldf/invalid/bad_magic.mldf': null,
  'mldf/invalid/ptr_oob.mldf': 'mldf',
  'mldf/invalid/truncated.mldf': 'mldf',
  'mldf/invalid/version_2.mldf': 'mldf',
  'scbf/basic/basic.scbf': 'scbf',
  'scbf/large_100k/large_100k.scbf': 'scbf',
  'scbf/unicode_empty/unicode_empty.scbf': 'scbf',
  'scbf/invalid/bad_magic.scbf': 'scbf',
  'scbf/invalid/corrupt_zlib.scbf': 'scbf',
  'scbf/invalid/truncated.scbf': 'scbf',
  'scdl/basic_float32_raw/archive': 'scdl',
  'scdl/collection_two_files_ragged/archive': 'scdl',
  'scdl/uint16_counts_from_X/archive': 'scdl',
  'scdl/invalid/bad_magic': null,
  'scdl/invalid/data_truncated': 'scdl',
  'taridx/gnu_dirs_longname/val.taridx': 'taridx',
  'taridx/gnu_dirs_longname/val_0000.tar': 'tar',
  'taridx/ustar_flat_2shards/train.taridx': 'taridx',
  'taridx/ustar_flat_2shards/train_0001.tar': 'tar',
  'taridx/invalid/bad_magic.taridx': null,
  'taridx/invalid/major_2.taridx': 'taridx',
  'taridx/invalid/truncated.taridx': 'taridx',
  'udf/nested_text_json/nested_text_json.udf': 'udf',
  'udf/primitives/primitives.udf': 'udf',
  'udf/root_null/root_null.udf': 'udf',
  'udf/invalid/bad_check.udf': 'udf',
  'udf/invalid/bad_magic.udf': null,
  'udf/invalid/misaligned_root.udf': 'udf',
  'udf/invalid/truncated.udf': 'udf',
};

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

describe('the lazy registry over every vector', () => {
  it('detects every vector from FormatInfo alone, loading no parser', async () => {
    const loads: string[] = [];
    const counting = createRegistry(
      FORMATS.map((f) => ({
        ...f,
        load: () => {
          loads.push(f.id);
          return f.load();
        },
      })),
    );
    for (const [rel, format] of Object.entries(DETECTED)) {
      const target = openPath(vectorPath(rel));
      expect((await counting.detect(target)).format, rel).toBe(format);
    }
    expect(loads).toEqual([]);
    expect((await counting.load('mldf')).id).toBe('mldf');
    expect(loads).toEqual(['mldf']);
  });

  it('the CLI loads no parser to detect and exactly one to validate', async () => {
    const detect = capture();
    const paths = Object.keys(DETECTED).map(vectorPath);
    expect(await run(['detect', ...paths], detect.streams)).toBe(1); // some are unknown
    expect(registry.loadedIds()).toEqual([]);
    const validate = capture();
    const code = await run(['validate', vectorPath('mldf/basic_mixed/basic_mixed.mldf')], validate.streams);
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
    expect(new Set(statics)).toEqual(new Set(FORMATS.map((f) => `@binscope/${f.id}/magic`)));
  });
});

describe('one score scale', () => {
  it('binscope detect --json shows every candidate on the 0..1 scale, best first, and the pinned format', () => {
    const rels = Object.keys(DETECTED);
    const r = cli(['detect', '--json', ...rels.map(vectorPath)]);
    const results = JSON.parse(r.stdout) as Array<{
      format: string | null;
      candidates: Array<{ id: string; score: number }>;
    }>;
    results.forEach((result, i) => {
      expect(result.format, rels[i]).toBe(DETECTED[rels[i]]);
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
    const names = new Set(ids.map((id) => id.toUpperCase()));
    const extensions = new Set(FORMATS.flatMap((f) => f.extensions));
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
