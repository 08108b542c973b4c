import { maxOf, minOf, toHex } from '@binscope/core/binary';
import type { TaridxReader } from '@binscope/taridx';
import type { ViewResult } from '../../protocol';
import type { ViewProvider } from '../views';
import { type Json, pageOf } from './common';
import { serializeError } from '../session';

/** Every index row is 32 bytes (TARIDX spec, rows array). */
const ROW_BYTES = 32;

/** Payloads larger than this are previewed from their first bytes only. */
const MAX_PREVIEW = 16 << 20;

/** TARIDX samples (grouped rows) with their members, and one member's payload from its shard. */
export const taridxView: ViewProvider = async (session, query, signal): Promise<ViewResult> => {
  const reader = session.reader as TaridxReader;
  const shards = !!(await reader.shards());
  if (query.op === 'samples') {
    const total = await reader.sampleCount();
    const { start, end } = pageOf(query, total, 200);
    const samples: Json[] = [];
    for await (const sample of reader.samples({ offset: start, limit: end - start, signal })) {
      // With the shards open, tar extended headers (PAX, GNU long names) are left out: they
      // are rows of the index, never members; a group of only such rows is no sample.
      const members = shards ? await reader.listMembers(sample, { signal }) : sample.members;
      if (members.length === 0) continue;
      let key: string | null = sample.key ?? null;
      let keyError: string | null = null;
      if (key === null && shards) {
        try {
          key = (await reader.key(sample)) ?? null;
        } catch (error) {
          keyError = serializeError(error).message;
        }
      }
      samples.push({
        index: sample.index,
        key,
        keyError,
        keyhash: sample.keyhash.toString(16).padStart(16, '0'),
        crashid: sample.crashid,
        // The sample's rows in the index: its members are consecutive rows.
        rowsAt: rowsAt(reader, sample.members),
        members: members.map((m) => ({
          row: m.row,
          ext: m.ext,
          fid: m.fid,
          offset: m.offset,
          size: m.size,
        })),
      });
    }
    return { json: { total, shards, samples } };
  }
  if (query.op === 'member') {
    const sample = await reader.sample(Number(query.sample));
    if (!shards) throw new Error('the shards are not open: drop the .taridx together with its .tar shards');
    const member = (await reader.listMembers(sample, { signal }))[Number(query.member)];
    if (!member) throw new Error(`sample ${query.sample} has no member ${query.member}`);
    if (member.size > MAX_PREVIEW) {
      const header = await reader.memberHeader(member);
      return {
        json: { ext: member.ext, size: member.size, truncated: true, path: header.path ?? null, head: null },
      };
    }
    const data = await reader.readMember(member, { signal });
    return {
      json: { ext: member.ext, size: member.size, truncated: false, head: toHex(data.subarray(0, 16), ' ') },
      buffers: { payload: data.slice() },
    };
  }
  throw new Error(`unknown TARIDX view query ${query.op}`);
};

function rowsAt(reader: TaridxReader, members: ReadonlyArray<{ row: number }>): Json {
  if (members.length === 0) return null;
  const first = minOf(members, (m) => m.row);
  const last = maxOf(members, (m) => m.row);
  return { offset: reader.header.offArr + first * ROW_BYTES, length: (last - first + 1) * ROW_BYTES };
}
