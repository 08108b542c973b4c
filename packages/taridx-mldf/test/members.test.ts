import { isFormatError } from '@binscope/core';
import type { MldfLazyText } from '@binscope/mldf';
import { encode as encodePng } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { decodeImage, memberValue, npyLayout, planField } from '../src/index.js';
import { npyBytes } from '@binscope/testkit';

const place = { file: 's_0.tar', offset: 1536, key: 'k', ext: 'png' };
const enc = new TextEncoder();

async function errorOf(fn: () => unknown) {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('member values', () => {
  it('1-, 2- and 4-bit grey PNGs are scaled to 0–255, rows byte-aligned', async () => {
    // 3 pixels per row: 3 bits of a 1-bit row pad to one byte, so row 2 starts on a fresh byte.
    const oneBit = encodePng({
      width: 3,
      height: 2,
      data: new Uint8Array([0b101_00000, 0b010_00000]),
      channels: 1,
      depth: 1,
    });
    expect(Array.from((await decodeImage(oneBit, place)).pixels)).toEqual([255, 0, 255, 0, 255, 0]);
    const twoBit = encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([0b11_01_0000]),
      channels: 1,
      depth: 2,
    });
    expect(Array.from((await decodeImage(twoBit, place)).pixels)).toEqual([255, 85]);
    const fourBit = encodePng({
      width: 2,
      height: 1,
      data: new Uint8Array([0x0f, 0]).subarray(0, 1),
      channels: 1,
      depth: 4,
    });
    expect(Array.from((await decodeImage(fourBit, place)).pixels)).toEqual([0, 255]);
  });

  it('a PNG whose header declares more than 65535 pixels a side is refused before decoding', async () => {
    const png = encodePng({ width: 1, height: 1, data: new Uint8Array(3), channels: 3, depth: 8 });
    new DataView(png.buffer, png.byteOffset).setUint32(16, 70_000);
    const error = await errorOf(() => decodeImage(png, place));
    expect(isFormatError(error) && error.code).toBe('InvalidValue');
    expect((error as Error).message).toMatch(/PNG of 70000×1 pixels is larger than an MLDF image can be/);
    expect(error).toMatchObject({ file: 's_0.tar', offset: 1536 });
  });

  it('a decoder failure is an InvalidValue naming sample, member and shard', async () => {
    const png = encodePng({ width: 4, height: 4, data: new Uint8Array(48), channels: 3, depth: 8 });
    const error = await errorOf(() => decodeImage(png.subarray(0, 40), place));
    expect(error).toMatchObject({ name: 'FormatError', code: 'InvalidValue', file: 's_0.tar', offset: 1536 });
    expect((error as Error).message).toMatch(/sample "k" member \.png: cannot decode the image/);
  });

  it('.cls must be a 64-bit decimal integer; .txt and .json must be UTF-8', async () => {
    const cls = planField('cls', {});
    expect(await memberValue(cls, enc.encode(' -9223372036854775808\n'), place)).toBe(-(2n ** 63n));
    await expect(memberValue(cls, enc.encode('9223372036854775808'), place)).rejects.toThrow(
      /does not fit in 64 bits/,
    );
    await expect(memberValue(cls, enc.encode('1e3'), place)).rejects.toThrow(/is not an integer class/);
    const txt = planField('txt', {});
    await expect(memberValue(txt, new Uint8Array([0x61, 0xff]), place)).rejects.toThrow(/is not valid UTF-8/);
    const json = planField('meta.json', {});
    const value = (await memberValue(json, enc.encode('{"a":[1,null]}'), place)) as MldfLazyText;
    expect(value.value()).toEqual({ a: [1, null] });
    await expect(memberValue(json, enc.encode('{'), place)).rejects.toThrow(/is not JSON/);
    await expect(memberValue(json, new Uint8Array([0x22, 0xff, 0x22]), place)).rejects.toThrow(
      /is not valid UTF-8/,
    );
  });

  it('.json is kept as its own bytes: big integers, -0.0 and repeated keys survive, a BOM is left out', async () => {
    const json = planField('json', {});
    const text = '{"id": 12345678901234567890, "x": -0.0, "k": 1, "k": 2, "f": 1.50}';
    const value = (await memberValue(json, enc.encode(text), place)) as MldfLazyText;
    expect(new TextDecoder().decode(value.bytes)).toBe(text);
    const bom = (await memberValue(
      json,
      Uint8Array.of(0xef, 0xbb, 0xbf, ...enc.encode('[1]')),
      place,
    )) as MldfLazyText;
    expect(new TextDecoder().decode(bom.bytes)).toBe('[1]');
  });

  it('.npy: an NDARRAY only for a C-order array of an MLDF dtype whose data fills the member', async () => {
    const data = new Uint8Array(new Int16Array([1, -2, 3, -4, 5, -6]).buffer);
    const member = npyBytes('<i2', [2, 3], data);
    const layout = npyLayout(member);
    expect(layout).toMatchObject({ dtype: '<i2', shape: [2, 3] });
    const value = (await memberValue(planField('npy', { npy: layout }), member, place)) as {
      data: Int16Array;
    };
    expect(Array.from(value.data)).toEqual([1, -2, 3, -4, 5, -6]);
    expect(npyLayout(npyBytes('>u1', [6], new Uint8Array(6)))).toMatchObject({ dtype: '|u1' });
    expect(npyLayout(npyBytes('<c8', [1], new Uint8Array(8)))).toBeUndefined();
    expect(npyLayout(npyBytes('<i2', [2, 3], data.subarray(0, 10)))).toBeUndefined();
    expect(planField('npy', {}).spec).toEqual({ name: 'npy', type: 'BYTES' });
  });
});
