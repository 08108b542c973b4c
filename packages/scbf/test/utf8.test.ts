import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Column } from '../src/utf8.js';

function column(values: string[]): Utf8Column {
  const encoded = values.map((v) => new TextEncoder().encode(v));
  const offsets = new Uint32Array(values.length + 1);
  for (let i = 0; i < encoded.length; i++) offsets[i + 1] = offsets[i] + encoded[i].length;
  const bytes = new Uint8Array(offsets[values.length]);
  for (let i = 0; i < encoded.length; i++) bytes.set(encoded[i], offsets[i]);
  return new Utf8Column(offsets, bytes);
}

/** Short ASCII values from a few letters (many repeats), with now and then a long or a non-ASCII one. */
const value = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 14 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

describe('Utf8Column.toArray', () => {
  it('gives every value as get(i) does, in any slice (short values shared or not)', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.nat(), fc.nat(), (values, a, b) => {
        const all = column(values);
        const start = values.length === 0 ? 0 : a % values.length;
        const end = start + (values.length === 0 ? 0 : b % (values.length - start + 1));
        const part = all.slice(start, end);
        expect(part.toArray()).toEqual(values.slice(start, end));
        expect(all.toArray()).toEqual(values);
      }),
      { numRuns: 500 },
    );
  });

  it('a column of a few labels, one of distinct short values (past the trial rows) and one of colliding hashes come out whole', () => {
    const labels = ['alpha', 'beta', 'gamma', 'delta'];
    const many = Array.from({ length: 20_000 }, (_, i) => labels[(i * 7) % 4]);
    expect(column(many).toArray()).toEqual(many);
    const distinct = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
    expect(column(distinct).toArray()).toEqual(distinct);
    // Values whose hashes collide must not be mixed up: these two share the 32-bit hash the
    // interning keys on (FNV-style over the bytes, seeded with the length), found by search.
    const colliding = ['k12ya8', 'k1zki6', 'k12ya8', 'k1zki6', 'k1zki6'];
    expect(column(colliding).toArray()).toEqual(colliding);
    const pairs: string[] = [];
    for (let x = 32; x < 127; x++) for (let y = 32; y < 127; y += 3) pairs.push(String.fromCharCode(x, y));
    const repeated = [...pairs, ...pairs, ...pairs];
    expect(column(repeated).toArray()).toEqual(repeated);
  });
});
