import { describe, expect, it } from 'vitest';
import {
  type CsvShapeError,
  csvField,
  isBinscopeError,
  printableJson,
  RECORD_TEXT_FORMATS,
  recordJsonText,
  recordTextLines,
  withJsonSource,
} from '../src/index.js';

describe('record text: the one CSV and JSON Lines encoding of records', () => {
  it('lists CSV and JSON Lines with their file extension', () => {
    expect(RECORD_TEXT_FORMATS.map((f) => [f.id, f.extension])).toEqual([
      ['csv', 'csv'],
      ['jsonl', 'jsonl'],
    ]);
  });

  it('JSON Lines: -0 as -0.0, stored JSON text spliced, DEL and C1 escaped', () => {
    const meta = withJsonSource(JSON.parse('{"x": 1.0}'), '{"x": 1.0}');
    const line = recordTextLines('jsonl')({ id: 1, w: -0, meta, s: 'a\u007fb\u009bc\n' });
    expect(line).toBe('{"id":1,"w":-0.0,"meta":{"x":1.0},"s":"a\\u007fb\\u009bc\\n"}\n');
    expect(JSON.parse(line).s).toBe('a\u007fb\u009bc\n');
    expect(recordJsonText([1, 'é'])).toBe('[1,"é"]');
    expect(printableJson('"\u0080"')).toBe('"\\u0080"');
  });

  it('CSV: header from the first record, RFC 4180 quoting, nulls empty, -0 kept', () => {
    const lines = recordTextLines('csv');
    expect(lines({ id: 1, name: 'a,"b"', score: -0, note: null })).toBe(
      'id,name,score,note\n1,"a,""b""",-0,\n',
    );
    // Later records take the first record's columns, in its order.
    expect(lines({ note: 'x\ny', id: 2, name: 'c', score: 1.5 })).toBe('2,c,1.5,"x\ny"\n');
    expect(csvField(undefined)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it('CSV refuses records holding lists or objects, naming the fields', () => {
    const lines = recordTextLines('csv');
    let error: unknown;
    try {
      lines({ id: 1, values: [1, 2], meta: { a: 1 } });
    } catch (e) {
      error = e;
    }
    expect(isBinscopeError(error, 'CsvShapeError')).toBe(true);
    expect((error as CsvShapeError).columns).toEqual(['values', 'meta']);
    expect((error as Error).message).toMatch(/"values", "meta" hold lists or objects/);
  });
});
