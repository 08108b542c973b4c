import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isFormatError, toHex } from '@binscope/core';
import { NodeDirectory, openPath } from '@binscope/core/node';
import { expect } from 'vitest';
import { indexShards, TaridxReader, taridxPlugin } from '@binscope/taridx';
import type { ValidCase } from '../vectors.js';
import type { FormatConformance } from './types.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** Typeflags of tar extended headers: PAX records, GNU long names. */
const EXTENDED = ['x', 'g', 'L', 'K'];

interface ExpectedRow {
  i: number;
  fid: number;
  offset: number;
  size: number;
  extid: number;
  crashid: number;
  keyhash: string;
  keyhash_hex: string;
  typeflag: string;
  hdr_name: string;
  stem: string;
  ext: string;
  member_name: string | null;
  payload_sha256: string;
}

interface ExpectedSample {
  stem: string;
  keyhash: string;
  crashid: number;
  members: Array<{ row: number; ext: string; size: number; sha256: string }>;
}

interface ExpectedCase {
  file_size: number;
  file_sha256: string;
  taridx_size?: number;
  taridx_sha256?: string;
  fold?: string;
  header: Record<string, unknown>;
  extensions: string[];
  crash_stems: string[];
  shards: Array<{ fid: number; file: string; size: number; sha256: string }>;
  rows: ExpectedRow[];
  samples: ExpectedSample[];
  upstream_load?: unknown;
}

function indexPath(testCase: ValidCase): string {
  const e = testCase.expected as { taridx_file?: string; file?: string };
  return path.join(testCase.dir, e.taridx_file ?? e.file ?? `${testCase.name}.taridx`);
}

async function openReader(file: string): Promise<TaridxReader> {
  const reader = await taridxPlugin.open(openPath(file));
  expect(reader).toBeInstanceOf(TaridxReader);
  return reader as TaridxReader;
}

const conformance: FormatConformance = {
  plugin: taridxPlugin,
  targetPath: indexPath,

  async checkValid(testCase) {
    const e = testCase.expected as unknown as ExpectedCase;
    const file = indexPath(testCase);
    const bytes = new Uint8Array(fs.readFileSync(file));
    expect(bytes.byteLength).toBe(e.file_size);
    expect(sha256(bytes)).toBe(e.file_sha256);
    if (e.taridx_size !== undefined) expect(bytes.byteLength).toBe(e.taridx_size);
    if (e.taridx_sha256 !== undefined) expect(sha256(bytes)).toBe(e.taridx_sha256);

    const reader = await openReader(file);
    if (e.fold !== undefined) expect(reader.fold).toBe(e.fold);
    const h = reader.header;
    expect({
      magic: h.magic,
      major: h.major,
      minor: h.minor,
      rec_size: h.recSize,
      hdr_size: h.hdrSize,
      n_stems: h.nStems,
      n_rows: h.nRows,
      n_ext: h.nExt,
      n_crash: h.nCrash,
      off_crash: h.offCrash,
      off_arr: h.offArr,
      flags: h.flags,
      reserved: toHex(h.reserved),
    }).toEqual(e.header);
    expect([...reader.extensions]).toEqual(e.extensions);
    expect([...reader.crashStems]).toEqual(e.crash_stems);

    // Shards in fid order, found beside the index.
    const shards = await reader.shards();
    expect(shards).toBeDefined();
    expect([...shards!.names]).toEqual(e.shards.map((s: { file: string }) => s.file));
    for (const s of e.shards as Array<{ fid: number; file: string; size: number; sha256: string }>) {
      const source = await shards!.open(s.fid);
      expect(source.size).toBe(s.size);
      expect(sha256(await source.read(0, source.size))).toBe(s.sha256);
    }

    // Every row: stored fields, what its tar header says, and its payload.
    expect(reader.rowCount).toBe(e.rows.length);
    for (const r of e.rows as ExpectedRow[]) {
      const row = await reader.row(r.i);
      expect({
        fid: row.fid,
        offset: row.offset,
        size: row.size,
        extid: row.extid,
        crashid: row.crashid,
        keyhash: row.keyhash.toString(),
        keyhash_hex: row.keyhash.toString(16).padStart(16, '0'),
      }).toEqual({
        fid: r.fid,
        offset: r.offset,
        size: r.size,
        extid: r.extid,
        crashid: r.crashid,
        keyhash: r.keyhash,
        keyhash_hex: r.keyhash_hex,
      });
      const info = await reader.memberHeader(r.i);
      expect({
        typeflag: info.typeflag,
        hdr_name: info.headerName,
        stem: info.stem,
        ext: info.ext,
        member_name: info.path,
      }).toEqual({
        typeflag: r.typeflag,
        hdr_name: r.hdr_name,
        stem: r.stem,
        ext: r.ext,
        member_name: r.member_name,
      });
      const member = {
        row: r.i,
        ext: reader.extensions[row.extid],
        extid: row.extid,
        fid: row.fid,
        offset: row.offset,
        size: row.size,
      };
      // The index records extended headers (L, K, x, g) as rows; their payloads are read only
      // when asked for, and are never a member otherwise.
      expect(sha256(await reader.readMember(member, { extendedHeaders: true }))).toBe(r.payload_sha256);
      if (EXTENDED.includes(r.typeflag)) {
        const refused = await reader.readMember(member).catch((error: unknown) => error);
        expect(isFormatError(refused, 'InvalidValue'), String(refused)).toBe(true);
      }
    }
    const extendedRow = new Set(
      (e.rows as ExpectedRow[]).filter((r) => EXTENDED.includes(r.typeflag)).map((r) => r.i),
    );
    const realMembers = (s: ExpectedSample) => s.members.filter((m) => !extendedRow.has(m.row));

    // Samples (the index's row groups) in order of first appearance, with keys, rows and
    // payload hashes; without `extendedHeaders`, the members that are no extended headers.
    const samples: ExpectedSample[] = [];
    for await (const sample of reader.samples()) {
      const data = await reader.readSample(sample, { extendedHeaders: true });
      const members = await reader.readSample(sample);
      expect(members.map((m) => m.row)).toEqual(
        data.map((m) => m.row).filter((row) => !extendedRow.has(row)),
      );
      expect((await reader.listMembers(sample)).map((m) => m.row)).toEqual(members.map((m) => m.row));
      samples.push({
        stem: (await reader.key(sample))!,
        keyhash: sample.keyhash.toString(),
        crashid: sample.crashid,
        members: data.map((m) => ({ row: m.row, ext: m.ext, size: m.size, sha256: sha256(m.data) })),
      });
    }
    expect(samples).toEqual(e.samples);
    expect(await reader.sampleCount()).toBe(e.samples.length);

    // Lookup by key finds each sample, with its members; a key that only extended headers
    // have (`@LongLink`) names no sample.
    for (const s of e.samples as ExpectedSample[]) {
      const found = await reader.get(s.stem);
      const real = realMembers(s);
      expect(found?.map((m) => ({ row: m.row, ext: m.ext, size: m.size, sha256: sha256(m.data) }))).toEqual(
        real.length > 0 ? real : undefined,
      );
    }

    // T9: rebuilding from the tars gives the same bytes.
    const rebuilt = await indexShards({ directory: new NodeDirectory(testCase.dir), fold: reader.fold! });
    expect(sha256(rebuilt.bytes)).toBe(e.file_sha256);

    // What upstream's loader made of it, where it could load it at all.
    const up = e.upstream_load as
      | {
          ok: boolean;
          extensions?: string[];
          crash_stems?: string[];
          n_rows?: number;
          is_contiguous?: boolean;
        }
      | undefined;
    if (up?.ok) {
      expect([...reader.extensions]).toEqual(up.extensions);
      expect([...reader.crashStems]).toEqual(up.crash_stems);
      expect(reader.rowCount).toBe(up.n_rows);
      expect(reader.contiguous).toBe(up.is_contiguous);
    }
    await reader.close();
  },

  async readAll(target) {
    const reader = await taridxPlugin.open(target);
    for await (const _record of taridxPlugin.records(reader)) {
      // consumed for its checks
    }
    await taridxPlugin.inspect(reader);
    await reader.close?.();
  },
};

export default conformance;
