import * as fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TypeInference, inferCellType } from '../src/csv.js';
import {
  canonicalFloatValue,
  canonicalInt32Value,
  isCanonicalFloat,
  isCanonicalInt32,
  pyFloatRepr,
  pyJsonDumps,
  pythonFloat,
  pythonInt,
} from '../src/python.js';

// Written by Python 3 (repr / json.dumps) when the fixture was made.
const fixture = JSON.parse(fs.readFileSync(new URL('./fixtures/python.json', import.meta.url), 'utf8')) as {
  repr: [string, string][];
  json_dumps: [string, string][];
};

function fromBitsHex(hex: string): number {
  return new DataView(Uint8Array.from(Buffer.from(hex, 'hex')).buffer).getFloat64(0, true);
}

describe('pyFloatRepr', () => {
  it(`matches Python repr() on ${fixture.repr.length} values`, () => {
    for (const [bits, repr] of fixture.repr) expect(pyFloatRepr(fromBitsHex(bits)), repr).toBe(repr);
  });

  it('writes the S7 examples', () => {
    expect(pyFloatRepr(88)).toBe('88.0');
    expect(pyFloatRepr(1e-5)).toBe('1e-05');
    expect(pyFloatRepr(-0)).toBe('-0.0');
    expect(pyFloatRepr(1.5e20)).toBe('1.5e+20');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1e15)).toBe('1000000000000000.0');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(Number.NaN)).toBe('nan');
    expect(pyFloatRepr(Number.NEGATIVE_INFINITY)).toBe('-inf');
  });

  it('round-trips every finite double and is what inference accepts', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = pyFloatRepr(x);
        expect(Object.is(Number(text), x)).toBe(true);
        expect(isCanonicalFloat(text)).toBe(true);
        expect(Object.is(canonicalFloatValue(text), x)).toBe(true);
      }),
      { numRuns: 2000, seed: 1 },
    );
  });
});

describe('canonical float fast path', () => {
  it('agrees with repr() on texts of every shape', () => {
    const slow = (text: string) => {
      const v = Number(text);
      return text !== '' && Number.isFinite(v) && pyFloatRepr(v) === text;
    };
    const texts = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => pyFloatRepr(x)),
      fc
        .tuple(fc.double({ min: -1e18, max: 1e18, noNaN: true }), fc.integer({ min: 0, max: 20 }))
        .map(([x, k]) => x.toFixed(k)),
      fc
        .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 21 }))
        .map(([x, k]) => x.toPrecision(k)),
      fc.stringMatching(/^-?[0-9]{1,18}\.[0-9]{1,18}$/),
      fc.constantFrom(
        '9999999999999999.0',
        '1234567890123456.0',
        '0.0001',
        '0.00001',
        '00.5',
        '0.10',
        '-0.0',
        '1.',
        '.5',
        '1e5',
      ),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(isCanonicalFloat(text), text).toBe(slow(text));
      }),
      { numRuns: 5000, seed: 4 },
    );
  });
});

describe('S7 inference', () => {
  it('int32: canonical decimal text in range only', () => {
    for (const ok of ['0', '7', '-4', '2147483647', '-2147483648', '1234567890'])
      expect(isCanonicalInt32(ok), ok).toBe(true);
    for (const bad of [
      '',
      '-0',
      '+1',
      '01',
      '00',
      '2147483648',
      '-2147483649',
      '1.0',
      ' 1',
      '1 ',
      '1e3',
      '0x10',
      '-',
      '99999999999',
    ]) {
      expect(isCanonicalInt32(bad), bad).toBe(false);
    }
    expect(canonicalInt32Value('-2147483648')).toBe(-2147483648);
  });

  it('int32 property: String(n) is canonical for every int32', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => isCanonicalInt32(String(n))),
      { seed: 2 },
    );
  });

  it('float64: only the repr text of a finite value', () => {
    for (const ok of ['88.0', '1e-05', '-0.0', '1.5e+20', '0.1', '1234567.875', '5e-324'])
      expect(isCanonicalFloat(ok), ok).toBe(true);
    for (const bad of [
      '88',
      '1e-5',
      '1.50',
      '0.10',
      '1.5E+20',
      'inf',
      'nan',
      'NaN',
      'Infinity',
      '',
      ' 1.5',
      '.5',
      '1.',
      '+1.5',
      '1e+16.0',
      '0x1p3',
    ]) {
      expect(isCanonicalFloat(bad), bad).toBe(false);
    }
  });

  it('a column is int32, float64 or utf8 as its cells allow', () => {
    const infer = (cells: string[]) => {
      const t = new TypeInference();
      for (const c of cells) t.observe(c);
      return t.result;
    };
    expect(infer(['1', '2', '-3'])).toBe('int32');
    expect(infer(['1.5', '88.0'])).toBe('float64');
    // "88" is not repr(88.0): a mix of ints and floats is text.
    expect(infer(['1.5', '88'])).toBe('utf8');
    expect(infer(['1', ''])).toBe('utf8');
    expect(infer([])).toBe('utf8');
    expect(inferCellType('')).toBe('utf8');
  });
});

describe('Python parsing for explicit types', () => {
  it('int() and float() syntax', () => {
    expect(pythonInt(' +12 ')).toBe(12);
    expect(pythonInt('1_000')).toBe(1000);
    expect(pythonInt('1.0')).toBeNaN();
    expect(pythonFloat('1e5')).toBe(1e5);
    expect(pythonFloat(' -inf ')).toBe(Number.NEGATIVE_INFINITY);
    expect(pythonFloat('NaN')).toBeNaN();
    expect(pythonFloat('.5')).toBe(0.5);
    expect(pythonFloat('5.')).toBe(5);
    expect(pythonFloat('abc')).toBeUndefined();
    expect(pythonFloat('')).toBeUndefined();
  });
});

describe('pyJsonDumps (S2 schema_json)', () => {
  it('matches Python json.dumps', () => {
    for (const [name, dumped] of fixture.json_dumps) {
      expect(pyJsonDumps({ columns: [{ name, type: 'utf8' }] }), JSON.stringify(name)).toBe(dumped);
    }
  });

  it('parses back to the same value for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const text = pyJsonDumps({ columns: [{ name: s, type: 'int32' }] });
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        expect(JSON.parse(text)).toEqual({ columns: [{ name: s, type: 'int32' }] });
      }),
      { seed: 3 },
    );
  });
});
