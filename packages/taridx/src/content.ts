import type { ByteLocation, ContentField } from '@binscope/core';
import { H, HEADER_SIZE, R, ROW_SIZE } from './layout.js';
import type { TaridxReader } from './read.js';

const encoder = new TextEncoder();

/** Each entry of a `\n`-joined text block (extensions, crash stems) with its byte range. */
function textEntries(entries: readonly string[], start: number, file: string) {
  let offset = start;
  return entries.map((value) => {
    const length = encoder.encode(value).byteLength;
    const location: ByteLocation = { offset, length, file };
    offset += length + 1;
    return { value, location };
  });
}

/**
 * What `binscope diff` compares in a .taridx: version, flags, n_stems, the counts, the
 * extension table and the crash-stem table, located at their bytes. rec_size, hdr_size
 * and the block offsets are left out: they follow from the layout, not the content. Rows
 * are compared as samples (records).
 */
export async function taridxContentFields(reader: TaridxReader): Promise<ContentField[]> {
  const h = reader.header;
  const file = reader.source.name;
  const at = (offset: number, length: number): ByteLocation => ({ offset, length, file });
  const fields: ContentField[] = [
    { path: 'header.version', value: `${h.major}.${h.minor}`, location: at(H.major, 4) },
    { path: 'header.flags', value: h.flags, location: at(H.flags, 1) },
    { path: 'header.n_stems', value: h.nStems, location: at(H.nStems, 8) },
    { path: 'counts.rows', value: h.nRows, location: at(H.nRows, 8) },
    { path: 'counts.extensions', value: h.nExt, location: at(H.nExt, 4) },
    { path: 'counts.crash_stems', value: h.nCrash, location: at(H.nCrash, 4) },
    {
      // Samples are not stored as such: they are the row array's (keyhash, crashid) groups.
      path: 'counts.samples',
      value: await reader.sampleCount(),
      location: at(h.offArr, h.nRows * ROW_SIZE),
    },
  ];
  textEntries(reader.extensions, HEADER_SIZE, file).forEach(({ value, location }, i) => {
    fields.push({ path: `extensions[${i}]`, value, location });
  });
  textEntries(reader.crashStems, h.offCrash, file).forEach(({ value, location }, i) => {
    fields.push({ path: `crash_stems[${i + 1}]`, value, location });
  });
  return fields;
}

/**
 * Where sample `index` is stored: its rows (runs of adjacent rows as one range), then
 * where its key is (the crash stem, or the keyhash the row stores) and its crash id.
 */
export async function taridxLocateSample(reader: TaridxReader, index: number): Promise<ByteLocation[]> {
  if (!Number.isSafeInteger(index) || index < 0 || index >= (await reader.sampleCount())) return [];
  const sample = await reader.sample(index);
  const file = reader.source.name;
  const rowAt = (row: number) => reader.header.offArr + row * ROW_SIZE;
  const out: ByteLocation[] = [];
  let last: ByteLocation | undefined;
  let lastRow = -2;
  for (const { row } of sample.members) {
    if (last && row === lastRow + 1) last.length = (last.length ?? 0) + ROW_SIZE;
    else {
      last = { offset: rowAt(row), length: ROW_SIZE, file };
      out.push(last);
    }
    lastRow = row;
  }
  const first = sample.members[0]?.row;
  if (first === undefined) return out;
  if (sample.crashid > 0) {
    const stems = textEntries(reader.crashStems, reader.header.offCrash, file);
    const stem = stems[sample.crashid - 1];
    if (stem) out.push({ ...stem.location, field: 'key' });
  } else {
    out.push({ offset: rowAt(first) + R.keyhash, length: 8, file, field: 'key' });
  }
  out.push({ offset: rowAt(first) + R.crashid, length: 4, file, field: 'crashid' });
  return out;
}
