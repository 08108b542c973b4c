import { describe, expect, it } from 'vitest';
import { type AnyFormatPlugin, compareContent, fileTarget, MemorySource } from '../src/index.js';
import { toyBytes, toyPlugin } from './toy.js';

const plugin = toyPlugin as unknown as AnyFormatPlugin;

async function opened(values: number[], name = 'x.toy') {
  const reader = await plugin.open(fileTarget(new MemorySource(toyBytes(values.length, values), name)));
  return { plugin, reader };
}

describe('compareContent', () => {
  it('names the one differing record by its bytes in both files; copies are equal', async () => {
    const a = await opened([1, 2, 3, 4]);
    const b = await opened([1, 2, 30, 4]);
    const result = await compareContent(a, b);
    expect(result.equal).toBe(false);
    expect(result.differences).toEqual([
      {
        kind: 'record',
        path: 'records[2].v',
        a: { value: 3, present: true, location: { record: 2, offset: 16, length: 4 } },
        b: { value: 30, present: true, location: { record: 2, offset: 16, length: 4 } },
      },
    ]);
    const same = await compareContent(a, await opened([1, 2, 3, 4]));
    expect(same).toMatchObject({ equal: true, differences: [], recordsCompared: 4, truncated: false });
  });

  it('files of two formats differ in their format and are compared no further', async () => {
    const a = await opened([1]);
    const other = { ...plugin, id: 'other' } as AnyFormatPlugin;
    const result = await compareContent(a, { plugin: other, reader: a.reader });
    expect(result.differences.map((d) => [d.kind, d.a.value, d.b.value])).toEqual([
      ['format', 'toy', 'other'],
    ]);
    expect(result.recordsCompared).toBe(0);
  });

  it('an abort stops a long comparison, even when every read is answered from memory', async () => {
    const values = Array.from({ length: 200_000 }, (_, i) => i);
    const [a, b] = await Promise.all([opened(values), opened(values)]);
    const controller = new AbortController();
    let seen = 0;
    const run = compareContent(a, b, {
      signal: controller.signal,
      onProgress: ({ done }) => {
        seen = done;
        if (done === 1_000) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/abort/);
    expect(seen).toBeLessThan(values.length);
  });
});

describe('compareContent on stored values JSON cannot tell apart', () => {
  it('-0 and 0 are different values (cat prints them apart), found at their record', async () => {
    const a = await opened([1, 0]);
    const b = await opened([1, 0]);
    // The toy stores unsigned integers: the second file hands out -0 where the first hands out 0.
    const negative: AnyFormatPlugin = {
      ...plugin,
      async *records(reader, options) {
        for await (const r of plugin.records(reader, options)) {
          const record = r as { index: number; values: { v: number } };
          yield record.values.v === 0 ? { ...record, values: { v: -0 } } : record;
        }
      },
    };
    const result = await compareContent(a, { plugin: negative, reader: b.reader });
    expect(
      result.differences.map((d) => [d.path, Object.is(d.a.value, 0), Object.is(d.b.value, -0)]),
    ).toEqual([['records[1].v', true, true]]);
  });
});
