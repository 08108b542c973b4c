import { MemoryDirectory } from '@binscope/core';
import { writeMldf } from '@binscope/mldf';
import { encodeScbf } from '@binscope/scbf';
import { writeScdlToMemory } from '@binscope/scdl';
import { indexShards } from '@binscope/taridx';
import { UdfBuilder } from '@binscope/udf';

/**
 * Files of each format at a chosen size, written by the packages' own writers, for tests that
 * need more than the built-in samples (validation long enough to watch its progress).
 */
export interface SampleEntry {
  format: string;
  title: string;
  /** Paths under samples/, all opened together. */
  files: string[];
  /** Set when the sample is a folder (an SCDL archive): the files' common top folder. */
  folder?: string;
}

export interface SampleSet {
  files: Map<string, Uint8Array>;
  manifest: SampleEntry[];
}

const enc = new TextEncoder();

export type SampleFormat = 'scbf' | 'mldf' | 'udf' | 'taridx' | 'scdl';

/** `scales` multiplies each format's size (default 1); 0 leaves the format out. */
export async function makeLargeSamples(
  scales: Partial<Record<SampleFormat, number>> = {},
): Promise<SampleSet> {
  const scaleOf = (format: SampleFormat) => scales[format] ?? 1;
  const files = new Map<string, Uint8Array>();
  const manifest: SampleEntry[] = [];
  const add = (entry: SampleEntry, contents: Record<string, Uint8Array>) => {
    for (const [path, bytes] of Object.entries(contents)) files.set(path, bytes);
    manifest.push(entry);
  };

  const cells = 200 * scaleOf('scbf');
  if (cells > 0)
    add(
      { format: 'scbf', title: `SCBF table, ${cells} rows × 3 columns`, files: ['cells.scbf'] },
      { 'cells.scbf': await encodeScbf(scbfColumns(cells)) },
    );

  const samples = 40 * scaleOf('mldf');
  if (samples > 0)
    add(
      { format: 'mldf', title: `MLDF dataset, ${samples} samples`, files: ['samples.mldf'] },
      { 'samples.mldf': await writeMldf(mldfFields, mldfSamples(samples)) },
    );

  const points = 64 * scaleOf('udf');
  if (points > 0)
    add(
      { format: 'udf', title: `UDF file, a mesh of ${points} points`, files: ['mesh.udf'] },
      { 'mesh.udf': udfMesh(points, scaleOf('udf')) },
    );

  const members = 24 * scaleOf('taridx');
  if (members > 0) await addTaridx(members, add);
  const rows = 30 * scaleOf('scdl');
  if (rows > 0) await addScdl(rows, add);
  return { files, manifest };
}

type Add = (entry: SampleEntry, contents: Record<string, Uint8Array>) => void;

async function addTaridx(members: number, add: Add): Promise<void> {
  const shard = tarFile(taridxMembers(members));
  const { bytes: index } = await indexShards({
    directory: new MemoryDirectory({ 'train_0000.tar': shard }),
    fold: 'train',
  });
  add(
    {
      format: 'taridx',
      title: `TARIDX index of a shard with ${members} members`,
      files: ['train.taridx', 'train_0000.tar'],
    },
    { 'train.taridx': index, 'train_0000.tar': shard },
  );
}

async function addScdl(rows: number, add: Add): Promise<void> {
  const archive = await scdlArchive(rows);
  add(
    {
      format: 'scdl',
      title: `SCDL archive, ${rows} cells × 12 genes`,
      files: [...archive.keys()].map((p) => `archive/${p}`),
      folder: 'archive',
    },
    Object.fromEntries([...archive].map(([p, bytes]) => [`archive/${p}`, bytes])),
  );
}

function scbfColumns(rows: number) {
  const ids = Int32Array.from({ length: rows }, (_, i) => i);
  const scores = Float64Array.from({ length: rows }, (_, i) => Math.round(Math.sin(i) * 1e4) / 100);
  const names = Array.from({ length: rows }, (_, i) => `cell-${String(i).padStart(5, '0')}`);
  return [
    { name: 'id', values: ids },
    { name: 'score', values: scores },
    { name: 'name', values: names },
  ];
}

const mldfFields = [
  { name: 'id', type: 'INT' as const },
  { name: 'weight', type: 'FLOAT' as const },
  { name: 'caption', type: 'TEXT_RAW' as const },
  { name: 'meta', type: 'JSON' as const },
];

function* mldfSamples(count: number) {
  for (let i = 0; i < count; i++) {
    yield {
      id: i,
      weight: i / 8,
      caption: `sample ${i}: ${'·'.repeat(i % 7)}`,
      meta: { split: i % 5 === 0 ? 'test' : 'train', tags: ['demo', `n${i % 3}`] },
    };
  }
}

/** A grid of points, triangles over it and named parts; `scale` adds parts of the same size. */
function udfMesh(points: number, scale: number): Uint8Array {
  const file = new UdfBuilder({ id: 'MESH' });
  const parts = [];
  for (let p = 0; p < scale; p++) {
    const part = file.dataset({ id: 'PART' });
    part.table('values', { prim: 'f32', data: Float32Array.from({ length: 1024 }, (_, i) => i / 1024 + p) });
    part.text('name', `part ${p}`);
    parts.push(part);
  }
  const root = file.dataset({ id: 'ROOT' });
  const side = Math.ceil(Math.sqrt(points));
  const xy = Float32Array.from({ length: points * 2 }, (_, i) =>
    i % 2 === 0 ? (i / 2) % side : Math.floor(i / 2 / side),
  );
  root.table('points', { prim: 'f32', hint: 'coord', shape: [points, 2], data: xy });
  const triangles: number[] = [];
  for (let i = 0; i + side + 1 < points; i++) triangles.push(i, i + 1, i + side);
  root.table('triangles', { prim: 'u32', hint: 'index', indexName: 'points', data: triangles });
  root.text('title', 'a small mesh written by @binscope/udf');
  root.json('meta', { units: 'mm', parts: parts.length });
  root.datasets('parts', parts);
  file.setRoot(root);
  return file.toBytes();
}

function taridxMembers(count: number): Array<{ name: string; data: Uint8Array }> {
  const out = [];
  for (let i = 0; i < count; i++) {
    const stem = `sample-${String(i).padStart(6, '0')}`;
    out.push({ name: `${stem}.txt`, data: enc.encode(`caption of ${stem}\n`) });
    out.push({ name: `${stem}.cls`, data: enc.encode(String(i % 10)) });
  }
  return out;
}

/** A plain ustar archive (names under 100 bytes), as `tar` writes one. */
function tarFile(members: Array<{ name: string; data: Uint8Array }>): Uint8Array {
  const size = members.reduce((n, m) => n + 512 + Math.ceil(m.data.length / 512) * 512, 0) + 1024;
  const out = new Uint8Array(size);
  let at = 0;
  const field = (offset: number, text: string) => out.set(enc.encode(text), at + offset);
  for (const member of members) {
    field(0, member.name);
    field(100, '0000644\0');
    field(108, '0000000\0');
    field(116, '0000000\0');
    field(124, `${member.data.length.toString(8).padStart(11, '0')}\0`);
    field(136, '00000000000\0');
    field(148, '        ');
    field(156, '0');
    field(257, 'ustar\0');
    field(263, '00');
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += out[at + i];
    field(148, `${sum.toString(8).padStart(6, '0')}\0 `);
    out.set(member.data, at + 512);
    at += 512 + Math.ceil(member.data.length / 512) * 512;
  }
  return out;
}

async function scdlArchive(rows: number): Promise<Map<string, Uint8Array>> {
  const genes = 12;
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let g = 0; g < genes; g++) {
      if ((r * 7 + g * 3) % 5 < 2) {
        indices.push(g);
        data.push(((r + 1) * (g + 2)) % 17);
      }
    }
    indptr.push(indices.length);
  }
  const { directory } = await writeScdlToMemory(
    { indptr, indices, data, numCols: genes },
    {
      var: [
        {
          label: 'sample.h5ad',
          rows,
          columns: [{ name: 'gene', values: Array.from({ length: genes }, (_, g) => `GENE${g + 1}`) }],
        },
      ],
      obs: [
        {
          label: 'sample.h5ad',
          rows,
          columns: [{ name: 'cell_type', values: Array.from({ length: rows }, (_, r) => `type ${r % 4}`) }],
        },
      ],
    },
  );
  const out = new Map<string, Uint8Array>();
  for (const path of await directory.list()) {
    const bytes = directory.get(path);
    if (bytes) out.set(path, bytes);
  }
  return out;
}
