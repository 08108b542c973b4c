import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { tempDir } from '@binscope/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvToScbf, writeScbfFile } from '../src/node.js';
import { pyFloatRepr } from '../src/python.js';
import { openScbf } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';

/**
 * Pins what `pythonZlib` writes for two CSVs of our own, so a change of deflater (node:zlib,
 * pako's default hash, another level, a chunking that changes the stream) goes red without
 * vectors. The digests were checked once by hand against the upstream Python writer (its
 * `write_scbf` on the same CSVs, CPython 3.11, zlib 1.2.13): the files were equal except for
 * the utf8 columns' `str_uncomp_size`, where upstream stores the offsets block offset (S4)
 * and binscope the strings' real size. Inputs follow both writers' type inference, so the
 * schemas agree: int32 columns of ints only, float64 columns of Python `repr` texts whose
 * first value is not an int, and empty cells only in utf8 columns.
 */
const SMALL_CSV =
  'id,count,label,größe,blank\n' +
  '1,-5,alpha,,\n' +
  '2,0,"with, comma",x,\n' +
  '-2147483648,2147483647,"quote ""q""",ünïcødé,\n' +
  '42,7,,,\n';
const SMALL_SHA256 = '92efacebcfcf13f992a7086326d20f72afc5d101704e694778ab9a80725aad5a';

/** Rows enough that every column crosses the CSV converter's 256 KiB deflate chunks. */
const LARGE_ROWS = 90_000;
const LARGE_SHA256 = 'e310053a6e9c8051d6f0dbb6ba6417facad0702ab649d3bc54559311aec00251';

/** A deterministic CSV (xorshift32) of ints, floats, strings with empties and quoting, and a sparse column. */
function largeCsv(): string {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const words = ['', 'abc', 'héllo', 'a,b', 'say "hi"', 'line\nbreak'];
  const lines = ['n,v,s,e'];
  for (let i = 0; i < LARGE_ROWS; i++) {
    const n = (next() | 0) >> 1;
    const v = pyFloatRepr(i === 0 ? 0.5 : (next() / 2 ** 32) * 1000 - 500);
    const word = next() % 8 < words.length ? words[next() % words.length] : `w${i}${'x'.repeat(i % 23)}`;
    const s = /[",\n]/.test(word) ? `"${word.replaceAll('"', '""')}"` : word;
    lines.push(`${n},${v},${s},${i % 3 === 0 ? 'e' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let tmp: { dir: string; remove: () => void };
beforeEach(() => {
  tmp = tempDir('scbf-pin-');
});
afterEach(() => tmp.remove());

async function convert(csv: string, name: string): Promise<Buffer> {
  const input = path.join(tmp.dir, `${name}.csv`);
  const output = path.join(tmp.dir, `${name}.scbf`);
  fs.writeFileSync(input, csv);
  await csvToScbf(input, output, { pythonZlib: true });
  return fs.readFileSync(output);
}

describe('pythonZlib writes the upstream writer bytes (S3, pinned on our own CSVs)', () => {
  it('a small CSV: non-ASCII names, quoting, an empty column', async () => {
    const bytes = await convert(SMALL_CSV, 'small');
    expect(sha256(bytes)).toBe(SMALL_SHA256);
  });

  it('a CSV large enough to be deflated in chunks, and the array writers agree with the converter', async () => {
    const bytes = await convert(largeCsv(), 'large');
    expect(sha256(bytes)).toBe(LARGE_SHA256);

    const reader = await openScbf(new MemorySource(bytes));
    const values = await reader.readColumns();
    const columns = reader.columns.map((c) => {
      const column = values[c.name] as unknown;
      return {
        name: c.name,
        type: c.type,
        values: (column instanceof Int32Array || column instanceof Float64Array
          ? column
          : (column as { toArray(): string[] }).toArray()) as Int32Array | Float64Array | string[],
      };
    });
    expect(sha256(await encodeScbf(columns, { pythonZlib: true }))).toBe(LARGE_SHA256);
    const written = path.join(tmp.dir, 'written.scbf');
    await writeScbfFile(written, columns, { pythonZlib: true });
    expect(sha256(fs.readFileSync(written))).toBe(LARGE_SHA256);
  });
});
