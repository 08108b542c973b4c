import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as browser from '../src/zlib-browser.js';
import * as node from '../src/zlib-node.js';

// The two back ends package.json's "#zlib" chooses between (node:zlib in Node, pako elsewhere)
// must give identical results, including on broken input.

const EMPTY_BLOCK = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01];

describe('zlib back ends', () => {
  it('name themselves', () => {
    expect(node.zlibName).toBe('node:zlib');
    expect(browser.zlibName).toBe('pako');
  });

  it('deflate empty input to the S3 empty block', () => {
    expect(Array.from(node.deflateBlock(new Uint8Array(0)))).toEqual(EMPTY_BLOCK);
    expect(Array.from(browser.deflateBlock(new Uint8Array(0)))).toEqual(EMPTY_BLOCK);
  });

  it('inflate each other’s output to the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 9 }), (data, level) => {
        for (const deflated of [node.deflateBlock(data, level), browser.deflateBlock(data, level)]) {
          const a = node.inflateBlock(deflated, data.byteLength);
          const b = browser.inflateBlock(deflated, data.byteLength);
          expect(a.ok && b.ok).toBe(true);
          if (a.ok && b.ok) {
            expect(Buffer.from(a.bytes).equals(Buffer.from(data))).toBe(true);
            expect(Buffer.from(b.bytes).equals(Buffer.from(data))).toBe(true);
          }
        }
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it('agree on corrupt, truncated, too-long and short streams', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 3000 }),
        fc.nat(),
        fc.nat({ max: 7 }),
        (data, at, bit) => {
          const deflated = node.deflateBlock(data);
          const flipped = deflated.slice();
          flipped[at % flipped.length] ^= 1 << bit;
          const cases: [Uint8Array, number][] = [
            [flipped, data.byteLength],
            [deflated.subarray(0, at % deflated.length), data.byteLength],
            [deflated, data.byteLength - 1], // declared too small
            [deflated, data.byteLength + 1], // declared too large: comes back short
          ];
          for (const [input, size] of cases) {
            const a = node.inflateBlock(input, size);
            const b = browser.inflateBlock(input, size);
            expect(a.ok, `ok for size ${size}`).toBe(b.ok);
            if (a.ok && b.ok) expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
            if (!a.ok && !b.ok) expect(a.reason).toBe(b.reason);
          }
        },
      ),
      { numRuns: 300, seed: 12 },
    );
  });

  it('ignore bytes after the end of the stream, as zlib.decompress does', () => {
    const data = new TextEncoder().encode('hello hello hello');
    const withTail = new Uint8Array([...node.deflateBlock(data), 1, 2, 3]);
    for (const z of [node, browser]) {
      const out = z.inflateBlock(withTail, data.byteLength);
      expect(out.ok && Buffer.from(out.bytes).toString()).toBe('hello hello hello');
    }
  });

  it('refuse a gzip stream (zlib wrapper only)', () => {
    const gzip = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(node.inflateBlock(gzip, 0).ok).toBe(false);
    expect(browser.inflateBlock(gzip, 0).ok).toBe(false);
  });
});
