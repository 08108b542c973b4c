import {
  type ByteSource,
  definePlugin,
  type FormatReader,
  type InspectNode,
  node,
  Phase,
  type ProblemList,
  type TargetOf,
} from '../src/index.js';

/**
 * A format small enough to read in a test: "TOY1", a u32 count, then `count` u32 values. One
 * parser in three modes, as every format has it: read mode stops at the first error, the
 * others record every problem and keep what they found for the tree.
 */
export interface ToyParse {
  source: ByteSource;
  head: Uint8Array;
  count?: number;
  values: number[];
}

export interface ToyReader extends FormatReader {
  values: number[];
}

export const TOY_MAGIC = 'TOY1';

async function parseToy(input: TargetOf<'file'>, problems: ProblemList): Promise<ToyParse> {
  const { source } = input;
  const head = await source.read(0, Math.min(8, source.size));
  const parsed: ToyParse = { source, head, values: [] };
  if (String.fromCharCode(...head.subarray(0, 4)) !== TOY_MAGIC)
    problems.error('BadMagic', 'not TOY1', { offset: 0, phase: Phase.magic });
  if (head.byteLength < 8)
    throw problems.error('Truncated', 'the header needs 8 bytes', {
      offset: head.byteLength,
      phase: Phase.header,
    });
  const count = new DataView(head.buffer, head.byteOffset, 8).getUint32(4, true);
  parsed.count = count;
  const room = Math.floor((source.size - 8) / 4);
  if (count > room)
    problems.error('Truncated', `${count} values need ${count * 4} bytes`, {
      offset: source.size,
      phase: Phase.bounds,
    });
  problems.checkpoint();
  const bytes = await source.read(8, Math.min(count, room) * 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < bytes.byteLength / 4; i++) parsed.values.push(view.getUint32(i * 4, true));
  return parsed;
}

function toyTree(parsed: ToyParse): InspectNode {
  const { source, count, values } = parsed;
  const header = node('header', 'header', 0, Math.min(8, source.size), {
    children: [node('magic', 'field', 0, Math.min(4, source.size))],
  });
  const children = [header];
  if (count !== undefined)
    children.push(
      node('values', 'table', 8, values.length * 4, {
        children: values.map((v, i) => node(`value ${i}`, 'field', 8 + 4 * i, 4, { value: v })),
      }),
    );
  return node(source.name, 'file', 0, source.size, { children });
}

export const toyPlugin = definePlugin<ToyParse, ToyReader, 'file'>({
  specificationVersion: 2,
  id: 'toy',
  title: 'Toy',
  kind: 'file',
  extensions: ['toy'],
  magic: [{ offset: 0, bytes: TOY_MAGIC }],
  parse: (input, problems) => parseToy(input, problems),
  reader: (parsed) => ({
    format: 'toy',
    schema: { fields: [{ name: 'v', type: { kind: 'int', bits: 32, signed: false } }] },
    warnings: [],
    values: parsed.values,
  }),
  tree: (parsed) => toyTree(parsed),
  inspect: async (reader) => node('toy', 'file', 0, reader.values.length * 4 + 8),
  info: async (reader) => ({
    format: 'toy',
    title: 'Toy',
    counts: { values: reader.values.length },
    properties: [],
  }),
  records: async function* (reader) {
    for (const [index, v] of reader.values.entries()) yield { index, values: { v } };
  },
  contentFields: async () => [],
  locateRecord: async (_reader, index) => [{ offset: 8 + 4 * index, length: 4 }],
});

/** A toy file with `declared` as its count and `values` after it. */
export function toyBytes(declared: number, values: number[], magic = TOY_MAGIC): Uint8Array {
  const out = new Uint8Array(8 + 4 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = magic.charCodeAt(i);
  view.setUint32(4, declared, true);
  for (const [i, v] of values.entries()) view.setUint32(8 + 4 * i, v, true);
  return out;
}
