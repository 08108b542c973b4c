import { describe, expect, it } from 'vitest';
import { type Field, type LogicalType, tabularField, tabularType, tabularValue } from '../src/index.js';

// The one mapping every columnar export uses: a change here changes what pyarrow and DuckDB see.
describe('tabular mapping', () => {
  it('keeps numeric widths and signedness, and maps bytes, text and JSON to their own kinds', () => {
    const u64: LogicalType = { kind: 'int', bits: 64, signed: false };
    expect(tabularType(u64)).toEqual(u64);
    expect(tabularType({ kind: 'float', bits: 16 })).toEqual({ kind: 'float', bits: 16 });
    expect(tabularType({ kind: 'json' })).toEqual({ kind: 'json' });
    expect(tabularType({ kind: 'bytes', mediaType: 'image/jpeg' }).kind).toBe('bytes');
  });

  it('passes 64-bit integers through exactly, never through a double', () => {
    const big = 2n ** 63n + 5n;
    expect(tabularValue(big, { kind: 'int', bits: 64, signed: false })).toBe(big);
  });

  it('writes an image as a struct of its dimensions and pixels, or as the bytes an encoder gives', () => {
    const image = { height: 2, width: 1, channels: 3, pixels: new Uint8Array(6).fill(7) };
    const type = tabularType({ kind: 'image' });
    expect(type.kind === 'struct' && type.fields.map((f) => f.name)).toEqual([
      'height',
      'width',
      'channels',
      'pixels',
    ]);
    expect(tabularValue(image, { kind: 'image' })).toEqual({
      height: 2,
      width: 1,
      channels: 3,
      pixels: image.pixels,
    });
    const encodeImage = () => new Uint8Array([1, 2]);
    expect(tabularType({ kind: 'image' }, { encodeImage })).toEqual({ kind: 'bytes' });
    expect(tabularValue(image, { kind: 'image' }, { encodeImage })).toEqual(new Uint8Array([1, 2]));
  });

  it('writes an ndarray of a known shape as a fixed-size list with the shape in the metadata', () => {
    const field: Field = { name: 'emb', type: { kind: 'ndarray', dtype: 'f32', shape: [2, 3] } };
    const out = tabularField(field);
    expect(out.type).toEqual({
      kind: 'list',
      size: 6,
      items: expect.objectContaining({ type: { kind: 'float', bits: 32 } }),
    });
    expect(out.metadata).toEqual({ 'binscope.dtype': 'f32', 'binscope.shape': '[2,3]' });
    const data = new Float32Array(6);
    expect(tabularValue({ dtype: 'f32', shape: [2, 3], data }, field.type)).toBe(data);
    expect(() => tabularValue({ dtype: 'f32', shape: [5], data: new Float32Array(5) }, field.type)).toThrow(
      /shape \[5\] where the field's shape is \[2, 3\]/,
    );
  });

  it('writes an ndarray of varying shape as a struct of shape and data', () => {
    const type: LogicalType = { kind: 'ndarray', dtype: 'i64' };
    const t = tabularType(type);
    expect(t.kind === 'struct' && t.fields.map((f) => f.name)).toEqual(['shape', 'data']);
    const data = new BigInt64Array([1n, 2n]);
    expect(tabularValue({ dtype: 'i64', shape: [2], data }, type)).toEqual({ shape: [2], data });
  });

  it('writes JSON as its stored text, nulls as null, and maps inside lists and structs', () => {
    expect(tabularValue({ a: [1, -0] }, { kind: 'json' })).toBe('{"a":[1,-0.0]}');
    expect(tabularValue(null, { kind: 'string' })).toBeNull();
    const struct: LogicalType = {
      kind: 'struct',
      fields: [
        { name: 'meta', type: { kind: 'json' } },
        { name: 'n', type: { kind: 'int', bits: 8, signed: true } },
      ],
    };
    expect(tabularValue({ meta: { x: 1 } }, struct)).toEqual({ meta: '{"x":1}', n: null });
    expect(tabularValue([{ x: 1 }], { kind: 'list', items: { kind: 'json' } })).toEqual(['{"x":1}']);
  });
});
