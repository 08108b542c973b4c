import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../src/binary.js';

describe('crc32', () => {
  it('matches the standard check value and the empty input', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('agrees with zlib and is incremental over any split', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % bytes.length;
        const whole = crc32(bytes);
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(whole);
        // zlib.crc32 exists from Node 20.15; fall back to a gzip trailer otherwise.
        const reference =
          typeof (zlib as { crc32?: (b: Uint8Array) => number }).crc32 === 'function'
            ? (zlib as unknown as { crc32: (b: Uint8Array) => number }).crc32(bytes)
            : Buffer.from(zlib.gzipSync(bytes)).readUInt32LE(zlib.gzipSync(bytes).length - 8);
        expect(whole).toBe(reference);
      }),
    );
  });
});
