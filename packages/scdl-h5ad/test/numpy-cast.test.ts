import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWith, pythonModules, runPython } from '@binscope/testkit';
import { expect, it } from 'vitest';
import { castElements, OUTPUT_SIZE, type OutputType } from '../src/cast.js';
import { firstUnfitValue } from '../src/cast-guard.js';
import { ELEMENT_SIZE, type ElementType } from '../src/h5.js';

/**
 * The lossy cast (C10, `lossyCast`) against real numpy on this machine (test/numpy_cast.py):
 * every source dtype to every data dtype, arrays of several lengths holding every awkward
 * value at every position. What the README states: binscope casts each element on its own,
 * as numpy's scalar loop does (numpy's result for a one-element array), whatever the array's
 * length; a value the data dtype holds casts as numpy casts it at any length. numpy's SIMD
 * loops may give other results for values the dtype cannot hold (float → uint32 on x86-64:
 * `[1e10, NaN]` → `[0, 2147483648]` inside whole vector blocks), which binscope does not follow.
 */

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'numpy_cast.py');

const SOURCES: Record<string, ElementType> = {
  bool: 'bool',
  int8: 'i8',
  uint8: 'u8',
  int16: 'i16',
  uint16: 'u16',
  int32: 'i32',
  uint32: 'u32',
  int64: 'i64',
  uint64: 'u64',
  float16: 'f16',
  float32: 'f32',
  float64: 'f64',
};
const TARGETS: Record<string, OutputType> = {
  uint8: 'u8',
  uint16: 'u16',
  uint32: 'u32',
  uint64: 'u64',
  float16: 'f16',
  float32: 'f32',
  float64: 'f64',
};

const FLOATS = [
  '0.0',
  '-0.0',
  '0.5',
  '1.5',
  '-1.5',
  '2.5',
  '255.5',
  '256.0',
  '65535.9',
  '65536.0',
  '3e9',
  '1e10',
  '-1e10',
  '2147483648.0',
  '4294967296.0',
  '4294967301.0',
  '9.2233720368547758e18',
  '1.8446744073709552e19',
  '1e20',
  '-1.0',
  '-2147483649.0',
  'nan',
  'inf',
  '-inf',
  '65519.0',
  '65520.0',
  '3.4028235677973366e38',
  '1e-8',
  '5e-324',
  // Just above a float16 halfway point by less than float32 can hold: rounded once, not twice.
  '1.0004882812509095',
];
const INTS = [
  '0',
  '1',
  '-1',
  '127',
  '128',
  '255',
  '256',
  '-128',
  '32767',
  '65535',
  '65536',
  '-32769',
  '2147483647',
  '2147483648',
  '4294967295',
  '4294967296',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '18446744073709551615',
];
/** Short arrays (numpy's scalar loop), whole vector blocks, and blocks plus a tail. */
const LENGTHS = [1, 2, 3, 4, 5, 8, 9, 13, 37];

interface NumpyCase {
  pair: [string, string];
  source: string;
  whole: string;
  single: string;
}

const hex = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

function numpyCases(): NumpyCase[] {
  const pairs = Object.keys(SOURCES).flatMap((s) => Object.keys(TARGETS).map((t) => [s, t]));
  const text = runPython(SCRIPT, [], JSON.stringify({ pairs, floats: FLOATS, ints: INTS, lengths: LENGTHS }));
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as NumpyCase);
}

describeWith(pythonModules(['numpy']), "the lossy cast against numpy's astype", () => {
  it('every element casts as numpy casts it alone; a value the dtype holds casts as numpy does at any length', () => {
    const cases = numpyCases();
    let elements = 0;
    const notScalar: string[] = [];
    const fitDiffering: string[] = [];
    for (const c of cases) {
      const from = SOURCES[c.pair[0]];
      const to = TARGETS[c.pair[1]];
      const source = fromHex(c.source);
      const ours = castElements(source, from, to);
      const out = OUTPUT_SIZE[to];
      const inSize = ELEMENT_SIZE[from];
      const whole = fromHex(c.whole);
      const single = fromHex(c.single);
      const n = source.byteLength / inSize;
      for (let i = 0; i < n; i++) {
        elements++;
        const mine = hex(ours.subarray(i * out, (i + 1) * out));
        const element = source.subarray(i * inSize, (i + 1) * inSize);
        const label = `${c.pair.join(' → ')} [${i} of ${n}] source ${hex(element)}`;
        if (mine !== hex(single.subarray(i * out, (i + 1) * out)))
          notScalar.push(
            `${label}: binscope ${mine}, numpy alone ${hex(single.subarray(i * out, (i + 1) * out))}`,
          );
        if (mine !== hex(whole.subarray(i * out, (i + 1) * out))) {
          if (firstUnfitValue(element.slice(), from, to) === undefined)
            fitDiffering.push(
              `${label}: binscope ${mine}, numpy ${hex(whole.subarray(i * out, (i + 1) * out))}`,
            );
        }
      }
    }
    expect(cases.length).toBe(
      Object.keys(TARGETS).length *
        LENGTHS.length *
        Object.values(SOURCES).reduce((n, s) => n + (s.startsWith('f') ? FLOATS.length : INTS.length), 0),
    );
    expect(elements).toBeGreaterThan(100_000);
    expect(notScalar.slice(0, 5), `${notScalar.length} elements differ from numpy's scalar cast`).toEqual([]);
    expect(fitDiffering.slice(0, 5), `${fitDiffering.length} representable values differ`).toEqual([]);
  });
});
