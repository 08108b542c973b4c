import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printable } from '../src/printable.js';
import { cli } from './helpers.js';

// Names in files are data, not terminal commands: ESC (recolour, retitle, clear a line), CR
// (overwrite the line), BEL, DEL and C1 controls (U+009B is a CSI on some terminals) from a
// file never reach stdout or stderr raw, in messages, tables, trees or summaries. The only
// control character the CLI may print is its own line end (and, on a terminal, its colours).

const NAME = 'ev\u001b]0;owned\u0007il\r\u001b[2Kname\u007f\u009bX';
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const scratch = tempDir('binscope-cli-controls-');
const at = (name: string) => path.join(scratch.dir, name);

/** A ustar header (512 bytes) for a member of `size` bytes named `name`. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'latin1');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

beforeAll(() => {
  // CR must be quoted in CSV; the name holds no quote or comma.
  // Few distinct values in many rows: --dictionary auto encodes the column, and validate warns.
  const rows = Array.from({ length: 200 }, (_, i) => `${i},value${i % 3}`);
  fs.writeFileSync(at('in.csv'), `id,"${NAME}"\n${rows.join('\n')}\n`);
  const made = cli(['convert', at('in.csv'), at('t.scbf'), '--dictionary', 'auto']);
  expect(made.code, made.stderr).toBe(0);
  fs.mkdirSync(at('shards'));
  const member = Buffer.from('3');
  const stem = `k\u001b[31m\rey`;
  fs.writeFileSync(
    at('shards/f_0.tar'),
    Buffer.concat([tarHeader(`${stem}.cls`, 1), member, Buffer.alloc(511), Buffer.alloc(1024)]),
  );
  const indexed = cli(['index', at('shards'), '--fold', 'f', '-o', at('f.taridx')]);
  expect(indexed.code, indexed.stderr).toBe(0);
}, 60_000);
afterAll(() => scratch.remove());

describe('control characters from files are shown escaped', () => {
  const runs = (): [string, string[]][] => [
    ['info', ['info', at('t.scbf')]],
    ['inspect', ['inspect', at('t.scbf'), '--depth', '9']],
    ['validate (the dictionary warning names the column)', ['validate', at('t.scbf')]],
    ['head as a table', ['head', at('t.scbf'), '--format', 'table']],
    ['head as JSON lines', ['head', at('t.scbf')]],
    ['head --json', ['head', '--json', at('t.scbf')]],
    ['head --columns (an error listing the columns)', ['head', at('t.scbf'), '--columns', 'nope']],
    ['diff', ['diff', at('t.scbf'), at('in.csv')]],
    [
      'convert with a type the column cannot take (an error naming the column)',
      ['convert', at('in.csv'), at('bad.scbf'), '--types', `${NAME}:int32`],
    ],
    ['get (members of a sample whose key holds controls)', ['get', at('f.taridx'), 'k\u001b[31m\rey']],
    ['head of the index', ['head', at('f.taridx'), '--format', 'table']],
    ['inspect of the index', ['inspect', at('f.taridx'), '--depth', '9']],
    [
      'a --plugin module that cannot be loaded (its name in the error)',
      ['--plugin', at(`${NAME}.mjs`), 'detect', at('t.scbf')],
    ],
  ];
  for (const [name, args] of runs()) {
    it(name, () => {
      const run = cli(args);
      expect(run.stdout + run.stderr, 'the run printed something').not.toBe('');
      expect(
        RAW_CONTROL.exec(run.stdout)?.[0],
        `stdout: ${JSON.stringify(run.stdout.slice(0, 300))}`,
      ).toBeUndefined();
      expect(RAW_CONTROL.exec(run.stderr)?.[0], `stderr: ${JSON.stringify(run.stderr)}`).toBeUndefined();
    });
  }

  it('the escaped name is there to read, the way JSON writes it', () => {
    const run = cli(['validate', at('t.scbf')]);
    expect(run.stdout).toContain(printable(NAME));
    expect(printable(NAME)).toBe('ev\\u001b]0;owned\\u0007il\\r\\u001b[2Kname\\u007f\\u009bX');
  });

  it('JSON output keeps the name exactly (parsed back, it is the same string)', () => {
    const run = cli(['info', '--json', at('t.scbf')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"ev\\u001b]0;owned\\u0007il\\r\\u001b[2Kname\\u007f\\u009bX"');
    expect(JSON.stringify(JSON.parse(run.stdout))).toContain(JSON.stringify(NAME));
  });

  it('CSV output is data and keeps the bytes (quoted as RFC 4180 says)', () => {
    const run = cli(['head', at('t.scbf'), '--format', 'csv']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`id,"${NAME}"`);
  });
});
