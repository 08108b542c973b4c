import { isFormatError } from '@binscope/core';
import type { MldfLazyText } from '@binscope/mldf';
import { encode as encodePng } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { decodeImage, memberValue, npyLayout, planField } from '../src/index.js';
import { jpegBytes, npyBytes } from '@binscope/testkit';

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

  it('JPEGs this decoder cannot match Pillow on, or that would keep it busy, are refused before decoding', async () => {
    const jpeg = { ...place, ext: 'jpg' };
    const segment = (marker: number, body: number[]) => [0xff, marker, 0, body.length + 2, ...body];
    const frame = (marker: number, precision: number, components: number) =>
      segment(marker, [precision, 0, 8, 0, 8, components, ...Array(components * 3).fill(1)]);
    const file = (...parts: number[][]) => Uint8Array.from([0xff, 0xd8, ...parts.flat()]);
    const refused = async (bytes: Uint8Array, why: RegExp) => {
      const error = await errorOf(() => decodeImage(bytes, jpeg));
      expect(isFormatError(error) && error.code, String(error)).toBe('InvalidValue');
      expect((error as Error).message).toMatch(why);
    };
    await refused(file(frame(0xc0, 8, 4)), /CMYK\/YCCK JPEG/);
    await refused(file(frame(0xc9, 8, 3)), /arithmetic-coded JPEG/);
    await refused(file(frame(0xc3, 8, 3)), /lossless or hierarchical JPEG/);
    await refused(file(frame(0xc1, 12, 3)), /12-bit JPEG/);
    await refused(file(frame(0xc0, 8, 2)), /2 components/);
    await refused(file(segment(0xe0, [0x4a, 0x46]), segment(0xda, [1])), /no frame header/);
    const manyScans = Array.from({ length: 501 }, () => segment(0xda, [1, 1, 0, 0, 63, 0]));
    await refused(file(frame(0xc2, 8, 1), ...manyScans), /501 scans/);
    // A big frame is refused from its header, before the decoder allocates it.
    const huge = file(segment(0xc0, [8, 0xff, 0xff, 0xff, 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]));
    await refused(huge, /65535×65535 pixels is larger than this converter decodes/);
  });

  it('a damaged or cut JPEG is an InvalidValue with the reason libjpeg-turbo gives; the next JPEG decodes', async () => {
    const jpeg = { ...place, ext: 'jpg' };
    const rgba = new Uint8Array(64 * 48 * 4).map((_, i) => (i * 37) & 0xff);
    const good = await jpegBytes({ width: 64, height: 48, rgba }, { quality: 90 });
    // Cut inside the scan: libjpeg would pad the rest grey; Pillow calls it truncated.
    const cut = await errorOf(() => decodeImage(good.subarray(0, good.length - 200), jpeg));
    expect((cut as Error).message).toMatch(
      /JPEG data ends early \(libjpeg-turbo: Premature end of JPEG file\)/,
    );
    // A Huffman table that libjpeg rejects: its error exits the wasm program.
    const dht = good.findIndex((b, i) => b === 0xff && good[i + 1] === 0xc4);
    const bad = good.slice();
    bad.fill(0xff, dht + 5, dht + 21);
    const broken = await errorOf(() => decodeImage(bad, jpeg));
    expect(isFormatError(broken) && broken.code).toBe('InvalidValue');
    expect((broken as Error).message).toMatch(/cannot decode the JPEG \(libjpeg-turbo: .+\)/);
    expect(await decodeImage(good, jpeg)).toMatchObject({ width: 64, height: 48, channels: 3 });
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
