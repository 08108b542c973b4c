import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type DataRecord,
  fileTarget,
  isBinscopeError,
  type LogicalType,
  MemorySource,
  type Value,
} from '@binscope/core';
import { describeWith, pythonModules, runPython, tempDir } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { arrowPlugin, arrowsPlugin } from '../src/plugin.js';

// Files and streams written by pyarrow (dictionary columns, nulls, several batches, nested
// lists and structs) read back through the plugin; broken files give typed errors, never
// apache-arrow's own exceptions, and a partial tree.

const dir = tempDir('arrow-read-');
afterAll(() => dir.remove());

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** A record value in describe.py's canonical text, by its logical type. */
function canon(value: Value | undefined, type: LogicalType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'int':
      return String(value);
    case 'float': {
      const bits = new Uint8Array(8);
      new DataView(bits.buffer).setFloat64(0, value as number, true);
      return Number.isNaN(value) ? 'nan' : hex(bits);
    }
    case 'bytes':
      return hex(value as Uint8Array);
    case 'list':
      return (value as Value[]).map((v) => canon(v, type.items));
    case 'struct': {
      const object = value as { [key: string]: Value };
      return type.fields.map((f) => [f.name, canon(object[f.name], f.type)]);
    }
    default:
      return value;
  }
}

async function all(plugin: typeof arrowPlugin, bytes: Uint8Array, options = {}) {
  const reader = await plugin.open(fileTarget(new MemorySource(bytes, 'x')));
  const out: DataRecord[] = [];
  for await (const r of plugin.records(reader, options)) out.push(r);
  return { reader, records: out };
}

describeWith(pythonModules(['pyarrow', 'numpy']), 'pyarrow-written IPC', () => {
  const base = path.join(dir.dir, 'py');
  const expected = () => JSON.parse(runPython(path.join(import.meta.dirname, 'py', 'write.py'), [base]));

  it('reads a file and a stream of several batches with dictionaries, nulls and nested types', async () => {
    const rows = expected();
    for (const [plugin, ext] of [
      [arrowPlugin, 'arrow'],
      [arrowsPlugin, 'arrows'],
    ] as const) {
      const bytes = fs.readFileSync(`${base}.${ext}`);
      const { reader, records } = await all(plugin, bytes);
      expect((await plugin.info(reader)).counts).toEqual({ rows: 50, columns: 10, batches: 4 });
      const fields = reader.schema.fields;
      expect(fields.find((f) => f.name === 'name')).toMatchObject({
        type: { kind: 'string' },
        metadata: { type: 'Dictionary<Int32, Utf8>' },
      });
      expect(records.map((r) => fields.map((f) => canon(r.values[f.name], f.type)))).toEqual(rows);
      // offset and limit across a batch boundary, only the columns asked for
      const { records: part } = await all(plugin, bytes, { offset: 14, limit: 4, columns: ['big', 'id'] });
      expect(part.map((r) => [r.index, r.values.id, r.values.big])).toEqual(
        [14, 15, 16, 17].map((i) => [i, i, 2n ** 64n - 1n - BigInt(i)]),
      );
      expect((await plugin.validate(fileTarget(new MemorySource(bytes, 'x')))).valid).toBe(true);
    }
  });

  it('broken files give the taxonomy with offsets, and a tree of what was parsed', async () => {
    expected();
    const good = fs.readFileSync(`${base}.arrow`);
    const cases: [string, Uint8Array, string][] = [
      ['cut short', good.subarray(0, good.length - 100), 'Truncated'],
      ['bad magic', Uint8Array.from([...Buffer.from('ARROW2'), ...good.subarray(6)]), 'BadMagic'],
      ['footer length past the start', withInt32(good, good.length - 10, good.length - 14), 'OutOfBounds'],
    ];
    for (const [what, bytes, code] of cases) {
      const report = await arrowPlugin.validate(fileTarget(new MemorySource(bytes, 'bad.arrow')));
      expect(report.errors[0]?.code, what).toBe(code);
      expect(report.errors[0]?.offset, what).toBeTypeOf('number');
      const error = await arrowPlugin.open(fileTarget(new MemorySource(bytes, 'bad.arrow'))).catch((e) => e);
      expect(isBinscopeError(error, 'FormatError'), what).toBe(true);
    }
    // A stream cut inside a batch: the schema and the batches before the cut stay in the tree.
    const stream = fs.readFileSync(`${base}.arrows`);
    const cut = stream.subarray(0, stream.length - 300);
    const inspected = await arrowsPlugin.inspectTarget(fileTarget(new MemorySource(cut, 'cut.arrows')));
    expect(inspected.errors[0]?.code).toBe('Truncated');
    expect(inspected.root.children?.map((c) => c.name)).toContain('schema');
  });
});

function withInt32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  new DataView(copy.buffer).setInt32(at, value, true);
  return copy;
}
