import { describe, expect, it } from 'vitest';
import { cellText, jsonLine, jsonSourceOf, recordToJson, type Schema, withJsonSource } from '../src/index.js';

describe('jsonLine: one line of JSON per value', () => {
  it('writes what JSON.stringify writes, but a float -0 as -0.0', () => {
    expect(jsonLine({ a: 1, b: [0.5, 'x', null, true] })).toBe('{"a":1,"b":[0.5,"x",null,true]}');
    expect(jsonLine({ score: -0, n: [0, -0] })).toBe('{"score":-0.0,"n":[0,-0.0]}');
    expect(jsonLine(-0)).toBe('-0.0');
    expect(JSON.parse(jsonLine({ score: -0 })).score).toBe(-0);
  });

  it('splices a value that keeps its source text as stored: big integers, -0.0, spellings, escapes, repeated keys', () => {
    const text =
      '{"id": 12345678901234567890,\n "w": -0.0, "x": 1.0, "e": 1e5, "s": "caf\\u00e9 \\"q\\" : ,", "k": 1, "k": 2}';
    const parsed = withJsonSource(JSON.parse(text), text);
    expect(jsonSourceOf(parsed)).toBe(text);
    expect(jsonLine({ sample: 0, meta: parsed })).toBe(
      '{"sample":0,"meta":{"id":12345678901234567890,"w":-0.0,"x":1.0,"e":1e5,"s":"caf\\u00e9 \\"q\\" : ,","k":1,"k":2}}',
    );
    // Everything else sees the parsed value: the source is not an enumerable property.
    expect(Object.keys(parsed)).toEqual(['id', 'w', 'x', 'e', 's', 'k']);
    expect(JSON.stringify(parsed)).toBe(
      '{"id":12345678901234567000,"w":0,"x":1,"e":100000,"s":"café \\"q\\" : ,","k":2}',
    );
    expect(jsonSourceOf(structuredClone(parsed))).toBeUndefined();
  });

  it('keeps a source through recordToJson and shows it in table cells', async () => {
    const schema: Schema = { fields: [{ name: 'meta', type: { kind: 'json' } }] };
    const text = '[1, 9007199254740993]';
    const record = { index: 0, values: { meta: withJsonSource(JSON.parse(text), text) } };
    expect(jsonLine(await recordToJson(schema, record))).toBe('{"meta":[1,9007199254740993]}');
    expect(cellText(schema.fields[0].type, record.values.meta)).toBe('[1,9007199254740993]');
  });

  it('scalars carry no source', () => {
    expect(withJsonSource(5, '5.0')).toBe(5);
    expect(jsonSourceOf(5)).toBeUndefined();
    expect(jsonSourceOf(null)).toBeUndefined();
  });
});
