/**
 * A format that exists only for a test: a third party's plugin, written against
 * `@binscope/core` alone and bundled into one module (`bundleToyPlugin`), which the page
 * loads with `?plugin=` or its plugin picker. Nothing in the app knows it.
 *
 * TOYF layout, little-endian: "TOYF" magic, u32 record count, then per record 16 bytes:
 * u32 id, f32 score, an 8-byte name (ASCII, NUL-padded).
 */
import {
  type DataRecord,
  definePlugin,
  type FormatReader,
  type InspectNode,
  node,
  type RecordOptions,
  readExact,
  type Schema,
  type TargetOf,
} from '@binscope/core';

const MAGIC = 'TOYF';
const HEAD = 8;
const RECORD = 16;

export interface ToyRecord {
  id: number;
  score: number;
  name: string;
}

/** A TOYF file of these records. */
export function toyFile(records: ToyRecord[]): Uint8Array {
  const out = new Uint8Array(HEAD + RECORD * records.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC));
  view.setUint32(4, records.length, true);
  records.forEach((r, i) => {
    const at = HEAD + i * RECORD;
    view.setUint32(at, r.id, true);
    view.setFloat32(at + 4, r.score, true);
    out.set(new TextEncoder().encode(r.name.slice(0, 8)), at + 8);
  });
  return out;
}

interface ToyParse {
  count?: number;
  size: number;
}

class ToyReader implements FormatReader {
  readonly format = 'toy';
  readonly warnings = [];
  readonly schema: Schema = {
    fields: [
      { name: 'id', type: { kind: 'int', bits: 32, signed: false } },
      { name: 'score', type: { kind: 'float', bits: 32 } },
      { name: 'name', type: { kind: 'string' } },
    ],
  };
  readonly tables = [
    {
      name: 'header',
      title: 'header',
      count: 1,
      schema: {
        fields: [
          { name: 'magic', type: { kind: 'bytes' as const } },
          { name: 'count', type: { kind: 'int' as const, bits: 32 as const, signed: false } },
        ],
      },
    },
  ];
  constructor(
    readonly input: TargetOf<'file'>,
    readonly count: number,
  ) {}
}

const FIELDS = [
  { name: 'id', at: 0, size: 4 },
  { name: 'score', at: 4, size: 4 },
  { name: 'name', at: 8, size: 8 },
] as const;

async function* records(reader: ToyReader, options: RecordOptions = {}): AsyncGenerator<DataRecord> {
  const { source } = reader.input;
  const file = source.name;
  if (options.table === 'header') {
    const head = await readExact(source, 0, HEAD);
    yield {
      index: 0,
      values: { magic: head.slice(0, 4), count: reader.count },
      locations: options.locations
        ? { magic: [{ file, offset: 0, length: 4 }], count: [{ file, offset: 4, length: 4 }] }
        : undefined,
    };
    return;
  }
  const start = Math.max(0, options.offset ?? 0);
  const end = Math.min(reader.count, start + (options.limit ?? reader.count));
  for (let index = start; index < end; index++) {
    const at = HEAD + index * RECORD;
    const bytes = await readExact(source, at, RECORD, options);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const all = {
      id: view.getUint32(0, true),
      score: view.getFloat32(4, true),
      name: new TextDecoder().decode(bytes.subarray(8, 16)).replace(/\0+$/, ''),
    };
    const wanted = options.columns ?? FIELDS.map((f) => f.name);
    const values = Object.fromEntries(wanted.map((name) => [name, all[name as keyof typeof all]]));
    const locations = options.locations
      ? Object.fromEntries(
          FIELDS.filter((f) => wanted.includes(f.name)).map((f) => [
            f.name,
            [{ file, offset: at + f.at, length: f.size }],
          ]),
        )
      : undefined;
    yield { index, values, locations };
  }
}

function tree(parsed: ToyParse): InspectNode {
  const count = parsed.count ?? 0;
  const children: InspectNode[] = [
    node('header', 'struct', 0, HEAD, {
      children: [
        node('magic', 'bytes', 0, 4, { value: MAGIC }),
        node('count', 'u32', 4, 4, { value: count }),
      ],
    }),
  ];
  if (count > 0)
    children.push(
      node('records', 'array', HEAD, count * RECORD, {
        children: Array.from({ length: count }, (_, i) =>
          node(`record ${i}`, 'struct', HEAD + i * RECORD, RECORD, {
            children: FIELDS.map((f) =>
              node(
                f.name,
                f.name === 'name' ? 'char[8]' : f.name === 'score' ? 'f32' : 'u32',
                HEAD + i * RECORD + f.at,
                f.size,
              ),
            ),
          }),
        ),
      }),
    );
  return node('toy file', 'file', 0, parsed.size, { children });
}

export const toyPlugin = definePlugin<ToyParse, ToyReader, 'file'>({
  specificationVersion: 2,
  id: 'toy',
  title: 'Toy records (a test-only format)',
  kind: 'file',
  extensions: ['toy'],
  magic: [{ offset: 0, bytes: MAGIC }],
  async parse(input, problems) {
    const { source } = input;
    const head = await readExact(source, 0, HEAD);
    const parsed: ToyParse = { size: source.size };
    if (new TextDecoder().decode(head.subarray(0, 4)) !== MAGIC) {
      problems.error('BadMagic', 'not a TOYF file', { offset: 0 });
      return parsed;
    }
    const count = new DataView(head.buffer, head.byteOffset, 8).getUint32(4, true);
    if (HEAD + count * RECORD > source.size)
      problems.error('Truncated', `${count} records need ${HEAD + count * RECORD} bytes`, {
        offset: source.size,
      });
    else parsed.count = count;
    return parsed;
  },
  reader: (parsed, input) => new ToyReader(input, parsed.count ?? 0),
  tree,
  inspect: async (reader) => tree({ count: reader.count, size: reader.input.source.size }),
  info: async (reader) => ({
    format: 'toy',
    title: 'Toy records',
    counts: { records: reader.count },
    properties: [['records', reader.count]],
  }),
  records,
  contentFields: async (reader) => [{ path: 'count', value: reader.count }],
  locateRecord: async (_reader, index) => [{ offset: HEAD + index * RECORD, length: RECORD }],
});

/** What the page imports: the module's `formats`. */
export const formats = [toyPlugin];
