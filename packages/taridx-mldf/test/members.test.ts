import { isBinscopeError } from '@binscope/core';
import { encode as encodePng } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { decodeImage, memberValue, npyLayout, planField } from '../src/index.js';
import { npyBytes } from '@binscope/testkit';

const place = { file: 's_0.tar', offset: 1536, key: 'k', ext: 'png' };
const enc = new TextEncoder();

function errorOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('member values', () => {
  it('1-, 2- and 4-bit grey PNGs are scaled to 0–255, rows byte-aligned', () => {
    // 3 pixels per row: 3 bits of a 1-bit row pad to one byte, so row 2 starts on a fresh byte.
    const oneBit = encodePng({
      width: 3,
      height: 2,
      data: new Uint8Array([0b101_00000, 0b010_00000]),
      channels: 1,
      depth: 1,
    });
    expect(Array.from(decodeImage(oneBit, place).pixels)).toEqual([255, 0, 255, 0, 255, 0]);
    const twoBit = encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([0b11_01_0000]),
      channels: 1,
      depth: 2,
    });
    expect(Array.from(decodeImage(twoBit, place).pixels)).toEqual([255, 85]);
    const fourBit = encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([0x0f, 0]).subarray(0, 1),
      channels: 1,
      depth: 4,
    });
    expect(Array.from(decodeImage(fourBit, place).pixels)).toEqual([0, 255]);
  });

  it('a PNG whose header declares more than 65535 pixels a side is refused before decoding', () => {
    const png = encodePng({ width: 1, height: 1, data: new Uint8Array(3), channels: 3, depth: 8 });
    new DataView(png.buffer, png.byteOffset).setUint32(16, 70_000);
    const error = errorOf(() => decodeImage(png, place));
    expect(isBinscopeError(error, 'FormatError') && error.code).toBe('InvalidValue');
    expect((error as Error).message).toMatch(/PNG of 70000×1 pixels is larger than an MLDF image can be/);
    expect(error).toMatchObject({ file: 's_0.tar', offset: 1536 });
  });

  it('a decoder failure is an InvalidValue naming sample, member and shard', () => {
    const png = encodePng({ width: 4, height: 4, data: new Uint8Array(48), channels: 3, depth: 8 });
    const error = errorOf(() => decodeImage(png.subarray(0, 40), place));
    expect(error).toMatchObject({ name: 'FormatError', code: 'InvalidValue', file: 's_0.tar', offset: 1536 });
    expect((error as Error).message).toMatch(/sample "k" member \.png: cannot decode the image/);
  });

  it('.cls must be a 64-bit decimal integer; .txt and .json must be UTF-8', () => {
    const cls = planField('cls', {});
    expect(memberValue(cls, enc.encode(' -9223372036854775808\n'), place)).toBe(-(2n ** 63n));
    expect(() => memberValue(cls, enc.encode('9223372036854775808'), place)).toThrow(
      /does not fit in 64 bits/,
    );
    expect(() => memberValue(cls, enc.encode('1e3'), place)).toThrow(/is not an integer class/);
    const txt = planField('txt', {});
    expect(() => memberValue(txt, new Uint8Array([0x61, 0xff]), place)).toThrow(/is not valid UTF-8/);
    const json = planField('meta.json', {});
    expect(memberValue(json, enc.encode('{"a":[1,null]}'), place)).toEqual({ a: [1, null] });
    expect(() => memberValue(json, enc.encode('{'), place)).toThrow(/is not JSON/);
  });

  it('.npy: an NDARRAY only for a C-order array of an MLDF dtype whose data fills the member', () => {
    const data = new Uint8Array(new Int16Array([1, -2, 3, -4, 5, -6]).buffer);
    const member = npyBytes('<i2', [2, 3], data);
    const layout = npyLayout(member);
    expect(layout).toMatchObject({ dtype: '<i2', shape: [2, 3] });
    const value = memberValue(planField('npy', { npy: layout }), member, place) as { data: Int16Array };
    expect(Array.from(value.data)).toEqual([1, -2, 3, -4, 5, -6]);
    expect(npyLayout(npyBytes('>u1', [6], new Uint8Array(6)))).toMatchObject({ dtype: '|u1' });
    expect(npyLayout(npyBytes('<c8', [1], new Uint8Array(8)))).toBeUndefined();
    expect(npyLayout(npyBytes('<i2', [2, 3], data.subarray(0, 10)))).toBeUndefined();
    expect(planField('npy', {}).spec).toEqual({ name: 'npy', type: 'BYTES' });
  });
});
