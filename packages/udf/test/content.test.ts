import { type ContentField, fileTarget, type JsonRecord, MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { UdfBuilder, udfPlugin } from '../src/index.js';

async function open(bytes: Uint8Array) {
  return udfPlugin.open(fileTarget(new MemorySource(bytes, 'x.udf')));
}

async function fields(bytes: Uint8Array, layout: boolean): Promise<Record<string, unknown>> {
  const all: ContentField[] = await udfPlugin.contentFields(await open(bytes));
  return Object.fromEntries(all.filter((f) => Boolean(f.layout) === layout).map((f) => [f.path, f.value]));
}

/** Records as `diff` compares them by default: without the plugin's layout fields. */
async function contentRecords(bytes: Uint8Array): Promise<JsonRecord[]> {
  const out: JsonRecord[] = [];
  const layout = new Set(udfPlugin.layoutFields);
  for await (const r of udfPlugin.records(await open(bytes)))
    out.push(Object.fromEntries(Object.entries(r).filter(([k]) => !layout.has(k))));
  return out;
}

function file(refs: (0 | null)[], compress = false): Uint8Array {
  const udf = new UdfBuilder({ id: 'CONT' });
  const kid = udf.dataset({ id: 'KID' }).table('v', {
    prim: 'u32',
    data: [1, 2, 3, 4, 5, 6, 7, 8],
    compress: compress ? 'simple-u32' : undefined,
  });
  const root = udf.dataset({ id: 'ROOT' }).datasets(
    'kids',
    refs.map((r) => (r === null ? null : kid)),
  );
  udf.setRoot(root);
  return udf.toBytes();
}

describe('udfPlugin.contentFields: content apart from layout', () => {
  it("a DATASET table's content is the walk positions it points at, not the offsets", async () => {
    const [a, b] = [file([0, null]), file([null, 0])];
    // Same walk, same records once the offsets (layout) are set aside: only refs tell them apart.
    expect(await contentRecords(a)).toEqual(await contentRecords(b));
    const [fa, fb] = [await fields(a, false), await fields(b, false)];
    expect(fa['datasets[0].tables[0].refs']).toEqual([1, null]);
    expect(fb['datasets[0].tables[0].refs']).toEqual([null, 1]);
    expect(Object.keys(fa).filter((k) => JSON.stringify(fa[k]) !== JSON.stringify(fb[k]))).toEqual([
      'datasets[0].tables[0].refs',
    ]);
  });

  it('a table stored compressed is equal in content and differs in the fields marked layout', async () => {
    const [plain, packed] = [file([0]), file([0], true)];
    expect(await fields(packed, false)).toEqual(await fields(plain, false));
    expect(await contentRecords(packed)).toEqual(await contentRecords(plain));
    const [la, lb] = [await fields(plain, true), await fields(packed, true)];
    const differing = Object.keys(la).filter((k) => JSON.stringify(la[k]) !== JSON.stringify(lb[k]));
    expect(differing).toEqual(
      expect.arrayContaining(['header.root', 'datasets[1].at', 'datasets[1].tables[0].storage']),
    );
    expect(lb['datasets[1].tables[0].storage']).toMatchObject({ compress_info: expect.any(Number) });
    expect((lb['datasets[1].tables[0].storage'] as { compress_info: number }).compress_info).not.toBe(0);
  });
});
