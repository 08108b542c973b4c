import type {
  ByteLocation,
  ByteSource,
  DataRecord,
  ReadOptions,
  RecordOptions,
  Schema,
  Value,
} from '@binscope/core';
import { taridxLocateSample } from './content.js';
import { MemberSource } from './member-stream.js';
import type { TaridxReader } from './read.js';
import type { TaridxMember, TaridxSample } from './reader-types.js';
import { SAMPLES_TABLE } from './schema.js';

/**
 * The reader's records as DataRecords: the main table (the index's samples, members without
 * payloads, as the CLI has always printed them) and `samples` (each member's payload, read
 * from the shards). Both number records by the index's samples: `index` is the sample's
 * position, `offset` counts the index's samples, and a group of rows that are only tar
 * extended headers (`@PaxHeader`) is no record of either (with the shards at hand).
 */

type TableOptions = ReadOptions & { table?: string };

/** Whether `table` names the samples table; the main records otherwise (a name neither: RangeError). */
function isSamplesTable(reader: TaridxReader, table: string | undefined): boolean {
  if (table === undefined) return false;
  if (table === SAMPLES_TABLE) return true;
  throw new RangeError(
    `${reader.name}: a TARIDX index has its main records and the table "${SAMPLES_TABLE}", not "${table}"`,
  );
}

/** The columns asked for, each a field of `schema` (RangeError naming the fields otherwise), or all. */
function columnsOf(reader: TaridxReader, schema: Schema, columns: readonly string[] | undefined): string[] {
  const names = schema.fields.map((f) => f.name);
  if (columns === undefined) return names;
  for (const c of columns)
    if (!names.includes(c))
      throw new RangeError(
        `${reader.name}: no field ${JSON.stringify(c)}; fields: ${names.map((n) => JSON.stringify(n)).join(', ')}`,
      );
  return [...columns];
}

/** The shards, or the typed error naming what is missing (the samples table reads payloads). */
async function requireShards(reader: TaridxReader): Promise<void> {
  const set = await reader.shards();
  if (!set || set.count === 0) throw reader.missingShards();
}

export async function* taridxRecords(
  reader: TaridxReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  const samples = isSamplesTable(reader, options.table);
  const schema = samples ? reader.tables[0].schema : reader.schema;
  const columns = columnsOf(reader, schema, options.columns);
  if (samples) await requireShards(reader);
  const set = await reader.shards();
  // Without shards the headers that say which rows are extended headers are out of reach.
  const headersAtHand = set !== undefined && set.count > 0;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  for await (const sample of reader.samples({ offset: options.offset, signal: options.signal })) {
    const members = headersAtHand
      ? await reader.listMembers(sample, { signal: options.signal })
      : sample.members;
    if (members.length === 0) continue;
    const record = samples
      ? await sampleRecord(reader, sample, members, columns, options)
      : await indexRecord(reader, sample, members, columns, options);
    yield record;
    if (--left <= 0) return;
  }
}

async function indexRecord(
  reader: TaridxReader,
  sample: TaridxSample,
  members: readonly TaridxMember[],
  columns: readonly string[],
  options: RecordOptions,
): Promise<DataRecord> {
  const values: Record<string, Value> = {};
  for (const name of columns) {
    if (name === 'key') values.key = (await reader.key(sample)) ?? null;
    else if (name === 'crashid') values.crashid = sample.crashid;
    else values.members = members.map((m) => ({ ext: m.ext, fid: m.fid, offset: m.offset, size: m.size }));
  }
  if (!options.locations) return { index: sample.index, values };
  const where = await taridxLocateSample(reader, sample.index);
  const locations: Record<string, ByteLocation[]> = {};
  for (const name of columns)
    locations[name] = where.filter((l) => (l.field ?? 'members') === name).map(({ field: _, ...l }) => l);
  return { index: sample.index, values, locations };
}

/** The first member of each extension (as WebDataset loaders take them), extended headers left out. */
function firstByExt(
  members: readonly TaridxMember[],
  wanted: ReadonlySet<string>,
): Map<string, TaridxMember> {
  const first = new Map<string, TaridxMember>();
  for (const m of members) if (wanted.has(m.ext) && !first.has(m.ext)) first.set(m.ext, m);
  return first;
}

async function sampleRecord(
  reader: TaridxReader,
  sample: TaridxSample,
  members: readonly TaridxMember[],
  columns: readonly string[],
  options: RecordOptions,
): Promise<DataRecord> {
  const exts = columns.filter((c) => c !== 'key');
  const picked = firstByExt(members, new Set(exts));
  // One coalesced, verified read of the sample's members of those extensions.
  const data = exts.length
    ? await reader.readSample(sample, { ext: [...picked.keys()], signal: options.signal })
    : [];
  const byRow = new Map(data.map((d) => [d.row, d.data]));
  const values: Record<string, Value> = {};
  for (const name of columns) {
    if (name === 'key') values.key = (await reader.key(sample)) ?? null;
    else {
      const m = picked.get(name);
      values[name] = m ? (byRow.get(m.row) ?? null) : null;
    }
  }
  if (!options.locations) return { index: sample.index, values };
  const where = await locateSamplePayloads(reader, sample, members, exts);
  const locations: Record<string, ByteLocation[]> = {};
  for (const name of columns)
    locations[name] = where.filter((l) => l.field === name).map(({ field: _, ...l }) => l);
  return { index: sample.index, values, locations };
}

/** Where the samples table's record is: its key (as the main record's), then each payload in its shard. */
async function locateSamplePayloads(
  reader: TaridxReader,
  sample: TaridxSample,
  members: readonly TaridxMember[],
  exts: readonly string[],
): Promise<ByteLocation[]> {
  const set = await reader.shards();
  const out = (await taridxLocateSample(reader, sample.index)).filter((l) => l.field === 'key');
  for (const [ext, m] of firstByExt(members, new Set(exts)))
    out.push({
      offset: m.offset + 512,
      length: m.size,
      file: set?.names[m.fid] ?? `shard ${m.fid}`,
      field: ext,
    });
  return out;
}

/** locateRecord: the main record's rows, key and crash id; or a samples record's key and payloads. */
export async function taridxLocate(
  reader: TaridxReader,
  index: number,
  options: TableOptions = {},
): Promise<ByteLocation[]> {
  if (!isSamplesTable(reader, options.table)) return taridxLocateSample(reader, index);
  await requireShards(reader);
  if (!Number.isSafeInteger(index) || index < 0 || index >= (await reader.sampleCount())) return [];
  const sample = await reader.sample(index);
  const members = await reader.listMembers(sample, options);
  return locateSamplePayloads(reader, sample, members, [...new Set(reader.extensions)]);
}

/**
 * capabilities.lookup: the sample whose key is `key`, by hash (no scan). With the shards at
 * hand the key is checked against the stem its first member's header names (a key that only
 * shares a hash with an indexed stem is no record), and a group of rows that are only tar
 * extended headers (`@PaxHeader`) is none; without them the hash alone answers (the main
 * records only: the samples table needs the shards).
 */
export async function taridxLookup(
  reader: TaridxReader,
  key: string,
  options: TableOptions = {},
): Promise<number | undefined> {
  if (isSamplesTable(reader, options.table)) await requireShards(reader);
  const sample = await reader.find(key);
  if (!sample) return undefined;
  const set = await reader.shards();
  if (!set || set.count === 0) return sample.index;
  if ((await reader.listMembers(sample, options)).length === 0) return undefined;
  // A crash stem is the key itself; a canonical stem is read back from the shard.
  if (sample.crashid === 0 && (await reader.key({ ...sample, key: undefined })) !== key) return undefined;
  return sample.index;
}

/** The extension a field names: as given, or written as `.JPG` (a leading dot, any case). */
function extensionOf(reader: TaridxReader, field: string): string | undefined {
  if (field !== 'key' && reader.extensions.includes(field)) return field;
  const ext = field.replace(/^\./, '').toLowerCase();
  return ext !== 'key' && reader.extensions.includes(ext) ? ext : undefined;
}

/**
 * capabilities.valueSource: the payload of sample `index`'s first member with the extension
 * `field` names (a field of the samples table), as a source read in pieces (members of any
 * size, nothing held), after its tar header was checked against the row and the sample's key
 * (a shard changed after indexing is an InvalidValue, not another sample's bytes). Extended
 * headers are never the value. Undefined when the sample has no such member or the field is
 * no extension of the index; the main records have no bytes fields.
 */
export async function taridxValueSource(
  reader: TaridxReader,
  index: number,
  field: string,
  options: TableOptions = {},
): Promise<ByteSource | undefined> {
  if (!isSamplesTable(reader, options.table)) return undefined;
  await requireShards(reader);
  const ext = extensionOf(reader, field);
  if (ext === undefined) return undefined;
  const sample = await reader.sample(index);
  const [member] = await reader.listMembers(sample, { ext, signal: options.signal });
  if (!member) return undefined;
  // Every member's stem must be the key itself, not only hash like it.
  sample.key ??= await reader.key(sample);
  const shard = await reader.shard(member.fid);
  await reader.verifyMember(member, shard, { sample, signal: options.signal });
  return new MemberSource(shard, member, `${shard.name}#${sample.key}.${ext}`);
}
