import { createRegistry, fileTarget, MemorySource, nodesAt, toPlainTree, walk } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { scbfPlugin } from '../src/plugin.js';
import { openScbf } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';
import { columnSpans } from '../src/schema-spans.js';

async function sample() {
  return encodeScbf([
    { name: 'id', values: Int32Array.of(1, 2) },
    { name: '名前', values: ['a', 'b'] },
  ]);
}

describe('inspect', () => {
  it('covers header, schema, metadata entries and every block with exact byte ranges', async () => {
    const bytes = await sample();
    const reader = await openScbf(new MemorySource(bytes, 'x.scbf'));
    const tree = await scbfPlugin.inspect(reader as never);
    expect(tree.length).toBe(bytes.byteLength);
    expect(tree.children!.map((c) => c.name)).toEqual(['header', 'column metadata', 'column data']);
    // Leaves tile the file without gaps: header fields, entry fields, blocks.
    const leaves: [number, number][] = [];
    walk(tree, (n) => {
      if (n.kind === 'field' || n.kind === 'block') leaves.push([n.offset, n.length]);
      return n.kind !== 'field' || undefined;
    });
    leaves.sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [offset, length] of leaves) {
      expect(offset).toBe(at);
      at += length;
    }
    expect(at).toBe(bytes.byteLength);
    const strings = reader.column('名前').blocks[1];
    const path = nodesAt(tree, strings.offset + 1).map((n) => n.name);
    expect(path).toEqual(['x.scbf', 'column data', '名前', 'strings block']);
    const entry = nodesAt(tree, reader.column('名前').entryOffset + 3).map((n) => n.name);
    expect(entry).toEqual(['x.scbf', 'column metadata', 'column 1: 名前', 'col_name']);
    expect(JSON.parse(JSON.stringify(toPlainTree(tree))).name).toBe('x.scbf');
  });

  it('info gives rows and columns; detection finds SCBF by magic, even a broken one', async () => {
    const bytes = await sample();
    const reader = await scbfPlugin.open(fileTarget(new MemorySource(bytes, 'x.scbf')));
    const info = await scbfPlugin.info(reader);
    expect(info.counts).toEqual({ rows: 2, columns: 2 });
    const registry = createRegistry([scbfPlugin]);
    expect((await registry.detect(fileTarget(new MemorySource(bytes, 'x.bin')))).format).toBe('scbf');
    const wrongCase = bytes.slice();
    wrongCase[4] = 0x56;
    const detection = await registry.detect(fileTarget(new MemorySource(wrongCase, 'bad.scbf')));
    expect(detection.format).toBe('scbf');
    const report = await scbfPlugin.validate(fileTarget(new MemorySource(wrongCase, 'bad.scbf')));
    expect(report.errors[0].code).toBe('BadMagic');
    expect((await registry.detect(fileTarget(new MemorySource(new Uint8Array(20), 'z')))).format).toBeNull();
  });
});

describe('schema_json column spans', () => {
  const spans = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return columnSpans(bytes).map((s) => new TextDecoder().decode(bytes.subarray(s.start, s.end)));
  };

  it('gives each column its own object, whatever its strings hold', () => {
    const a = '{"name": "a]}{", "type": "utf8"}';
    const b = '{"name": "q\\"{[", "type": "int32", "x": {"y": [1, {}]}}';
    const c = '{"name": "é—名", "type": "float64"}';
    expect(spans(`{"meta": {"columns": [0]}, "columns": [${a}, ${b},${c}], "z": "columns"}`)).toEqual([
      a,
      b,
      c,
    ]);
  });

  it('takes the last "columns" key, as JSON.parse does', () => {
    const last = '{"name": "b", "type": "int8"}';
    expect(spans(`{"columns": [{"name": "a", "type": "int8"}], "columns": [${last}]}`)).toEqual([last]);
    expect(spans('{"columns": []}')).toEqual([]);
  });
});
