import type { Field, LogicalType, Schema, TableInfo } from '@binscope/core';

/**
 * The two record tables of a TARIDX reader. The main records are the index's samples as the
 * CLI has always printed them (`{key, crashid, members: [{ext, fid, offset, size}]}`);
 * `samples` holds each sample's member payloads, one bytes field per extension of the index,
 * read from the shards.
 */

/** The table of member payloads (`RecordOptions.table`). */
export const SAMPLES_TABLE = 'samples';

const u16: LogicalType = { kind: 'int', bits: 16, signed: false };
const u64: LogicalType = { kind: 'int', bits: 64, signed: false };

const member: LogicalType = {
  kind: 'struct',
  fields: [
    { name: 'ext', type: { kind: 'string' }, description: 'the extension, lower-cased (T2)' },
    {
      name: 'fid',
      type: u16,
      description: "the shard's position in the fold (T4)",
      metadata: { type: 'u16' },
    },
    {
      name: 'offset',
      type: u64,
      description: "the member's tar header in its shard; the payload follows 512 bytes on",
      metadata: { type: 'u64' },
    },
    { name: 'size', type: u64, description: 'payload bytes', metadata: { type: 'u64' } },
  ],
};

/** The main records: a sample's key, its crash id and its members (no payloads). */
export const indexSchema: Schema = {
  fields: [
    {
      name: 'key',
      type: { kind: 'string' },
      nullable: true,
      description:
        "the sample's key (stem): a crash stem, or read from its first member's tar header; null when no shards are at hand (the index stores only the key's hash)",
    },
    {
      name: 'crashid',
      type: { kind: 'int', bits: 32, signed: false },
      description: '0, or the entry of the crash-stem table for a stem whose hash an earlier stem has',
      metadata: { type: 'u32' },
    },
    { name: 'members', type: { kind: 'list', items: member } },
  ],
  key: 'key',
};

/** What a member with this extension holds, by its last dot-suffix (`seg.png` is a PNG). */
export function mediaTypeOf(ext: string): string | undefined {
  switch (ext.slice(ext.lastIndexOf('.') + 1)) {
    case 'jpg':
    case 'jpeg':
      return 'image/jpeg';
    case 'png':
      return 'image/png';
    case 'webp':
      return 'image/webp';
    case 'gif':
      return 'image/gif';
    case 'json':
      return 'application/json';
    case 'txt':
    case 'cls':
      return 'text/plain';
    case 'npy':
      return 'application/x-npy';
    default:
      return undefined;
  }
}

/**
 * The `samples` table: the key, then one nullable bytes field per extension in the index's
 * extension table (each once, in table order), null where a sample has no such member.
 */
export function samplesSchema(extensions: readonly string[]): Schema {
  const fields: Field[] = [{ name: 'key', type: { kind: 'string' }, description: "the sample's key (stem)" }];
  for (const ext of new Set(extensions)) {
    // An extension named like the key field would shadow it: such members stay in the main records.
    if (ext === 'key') continue;
    const mediaType = mediaTypeOf(ext);
    fields.push({
      name: ext,
      type: mediaType ? { kind: 'bytes', mediaType } : { kind: 'bytes' },
      nullable: true,
      description:
        ext === ''
          ? 'the payload of the member without an extension'
          : `the payload of the sample's .${ext} member (the first, when it has several)`,
    });
  }
  return { fields, key: 'key' };
}

export function samplesTable(extensions: readonly string[], count?: number): TableInfo {
  return {
    name: SAMPLES_TABLE,
    title: 'member payloads, read from the shards',
    schema: samplesSchema(extensions),
    // The data the index points at: what an export (Parquet, Arrow) writes unless asked for the index.
    primary: true,
    ...(count === undefined ? {} : { count }),
  };
}
