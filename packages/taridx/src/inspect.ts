import { type InspectNode, node, type ReadOptions, readExact, readU64, toHex } from '@binscope/core';
import { FORMAT, H, HEADER_SIZE, R, ROW_SIZE } from './layout.js';
import { splitBlock } from './parse.js';
import type { TaridxReader } from './read.js';

/** Text-block entries beyond this many are listed lazily. */
const EAGER_ENTRIES = 256;

/**
 * The structure tree: header fields, the two text blocks entry by entry, and the rows (lazy,
 * a page at a time, each with its six fields), all as absolute byte ranges of the index.
 */
export async function inspectTaridx(reader: TaridxReader, options: ReadOptions = {}): Promise<InspectNode> {
  const { header, source } = reader;
  const file = source.name;
  const field = (name: string, offset: number, length: number, value: string | number) =>
    node(name, 'field', offset, length, { value });
  const headerNode = node('header', 'header', 0, HEADER_SIZE, {
    value: `TARIDX ${header.major}.${header.minor}`,
    children: [
      field('magic', H.magic, 8, header.magic),
      field('major', H.major, 2, header.major),
      field('minor', H.minor, 2, header.minor),
      field('rec_size', H.recSize, 2, header.recSize),
      field('hdr_size', H.hdrSize, 2, header.hdrSize),
      field('n_stems', H.nStems, 8, header.nStems),
      field('n_rows', H.nRows, 8, header.nRows),
      field('n_ext', H.nExt, 4, header.nExt),
      field('n_crash', H.nCrash, 4, header.nCrash),
      field('off_crash', H.offCrash, 8, header.offCrash),
      field('off_arr', H.offArr, 8, header.offArr),
      field('flags', H.flags, 1, header.flags & 1 ? `${header.flags} (contiguous)` : header.flags),
      field('reserved', H.reserved, 7, toHex(header.reserved)),
    ],
  });

  const textBlock = async (
    name: string,
    kind: string,
    start: number,
    end: number,
    count: number,
    label: (i: number) => string,
  ) => {
    const bytes = await readExact(source, start, end - start, { ...options, format: FORMAT, what: name });
    const parts = splitBlock(bytes, count);
    const entry = (i: number) => {
      const [a, b] = parts[i];
      return node(label(i), kind, start + a, b - a, {
        value: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(a, b)),
      });
    };
    const extra =
      parts.length > EAGER_ENTRIES
        ? {
            lazy: {
              count: parts.length,
              load: async (s: number, e: number) => range(s, Math.min(e, parts.length)).map(entry),
            },
          }
        : { children: parts.map((_, i) => entry(i)) };
    return node(name, 'block', start, end - start, { value: `${parts.length} entries`, ...extra });
  };

  const rowsNode = node('rows', 'array', header.offArr, header.nRows * ROW_SIZE, {
    value: `${header.nRows} rows`,
    lazy: {
      count: header.nRows,
      load: async (start, end) => {
        const s = Math.max(0, start);
        const e = Math.min(end, header.nRows);
        if (e <= s) return [];
        const bytes = await readExact(source, header.offArr + s * ROW_SIZE, (e - s) * ROW_SIZE, {
          ...options,
          format: FORMAT,
          what: 'rows',
        });
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return range(s, e).map((i) => {
          const at = (i - s) * ROW_SIZE;
          const base = header.offArr + i * ROW_SIZE;
          const fid = view.getUint16(at + R.fid, true);
          const offset = readU64(view, at + R.offset);
          const size = readU64(view, at + R.size);
          const extid = view.getUint16(at + R.extid, true);
          const crashid = view.getUint32(at + R.crashid, true);
          const keyhash = view
            .getBigUint64(at + R.keyhash, true)
            .toString(16)
            .padStart(16, '0');
          const ext = reader.extensions[extid];
          return node(`row ${i}`, 'row', base, ROW_SIZE, {
            value: `fid ${fid} · offset ${offset} · ${size} B${ext === undefined ? '' : ` · .${ext}`}${crashid ? ` · crash ${crashid}` : ''}`,
            children: [
              field('fid', base + R.fid, 2, fid),
              field('offset', base + R.offset, 8, offset),
              field('size', base + R.size, 8, size),
              field('extid', base + R.extid, 2, ext === undefined ? extid : `${extid} (${ext})`),
              field('crashid', base + R.crashid, 4, crashid),
              field('keyhash', base + R.keyhash, 8, keyhash),
            ],
          });
        });
      },
    },
  });

  return node(file, 'file', 0, source.size, {
    file,
    value: `TARIDX ${header.nRows} rows`,
    children: [
      headerNode,
      await textBlock(
        'extensions',
        'extension',
        HEADER_SIZE,
        header.offCrash,
        header.nExt,
        (i) => `ext ${i}`,
      ),
      await textBlock(
        'crash stems',
        'crash-stem',
        header.offCrash,
        header.offArr,
        header.nCrash,
        (i) => `crash ${i + 1}`,
      ),
      rowsNode,
    ],
  });
}

function range(start: number, end: number): number[] {
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(i);
  return out;
}
