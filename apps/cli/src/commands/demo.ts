import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Summary } from '@binscope/core';
import { writeFileAtomic } from '@binscope/core/node';
// The workspace's one tar writer (deterministic USTAR), bundled into dist at build time.
import { tarBytes } from '@binscope/testkit/tar';
import type { CommonOptions, Context } from '../context.js';
import { describeError, EXIT, type ExitCode } from '../errors.js';
import { openInput, withReader } from '../open.js';
import { printJson } from '../render.js';
import { infoDocument, summaryLines } from './info.js';

/** Deterministic numbers, so every demo run writes the same bytes. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPECIES = ['setosa', 'versicolor', 'virginica'];

/** A small table as CSV, with a quoted comma and quote so the CSV dialect shows. */
function measurementsCsv(): string {
  const rand = random(1);
  const lines = ['id,species,sepal_length,petal_width,note'];
  for (let i = 1; i <= 12; i++) {
    const species = SPECIES[(i - 1) % 3];
    const sepal = (4.5 + Math.round(rand() * 30) / 10).toFixed(1);
    const petal = (0.1 + Math.round(rand() * 20) / 10).toFixed(1);
    const note = i === 1 ? '"first, and ""quoted"""' : i === 12 ? 'last' : '';
    lines.push(`${i},${species},${sepal},${petal},${note}`);
  }
  return `${lines.join('\n')}\n`;
}

async function writeScbfSample(dir: string): Promise<string> {
  const { csvToScbf } = await import('@binscope/scbf/node');
  const csv = path.join(dir, 'measurements.csv');
  await writeFileAtomic(csv, new TextEncoder().encode(measurementsCsv()));
  const out = path.join(dir, 'measurements.scbf');
  await csvToScbf(csv, out);
  return out;
}

async function writeUdfSample(dir: string): Promise<string> {
  const { UdfBuilder } = await import('@binscope/udf');
  const { writeUdfFile } = await import('@binscope/udf/node');
  const builder = new UdfBuilder({ id: 'DEMO' });
  const quad = builder
    .dataset({ id: 'MESH' })
    .text('name', 'quad')
    .table('vertices', { prim: 'f32', data: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], shape: [4, 3] })
    .table('triangles', { prim: 'u16', data: [0, 1, 2, 0, 2, 3], shape: [2, 3] });
  const tri = builder
    .dataset({ id: 'MESH' })
    .text('name', 'triangle')
    .table('vertices', { prim: 'f32', data: [0, 0, 0, 1, 0, 0, 0, 1, 0], shape: [3, 3] })
    .table('triangles', { prim: 'u16', data: [0, 1, 2], shape: [1, 3] });
  const root = builder
    .dataset({ id: 'SCNE' })
    .text('title', 'binscope demo scene')
    .json('meta', { author: 'binscope demo', units: 'm', tags: ['sample', 'mesh'] })
    .datasets('meshes', [quad, tri])
    .table('frame_times', { prim: 'f64', data: [0, 0.04, 0.08, 0.12] })
    .table('frame_ids', { prim: 'u64', data: [1n, 2n, 3n, 18446744073709551615n] });
  builder.setRoot(root);
  const out = path.join(dir, 'scene.udf');
  await writeUdfFile(out, builder);
  return out;
}

async function writeMldfSample(dir: string): Promise<string> {
  const { writeMldfFile } = await import('@binscope/mldf/node');
  const rand = random(2);
  const samples = Array.from({ length: 16 }, (_, i) => {
    const pixels = new Uint8Array(8 * 8 * 3);
    for (let p = 0; p < pixels.length; p++) pixels[p] = Math.floor(rand() * 256);
    return {
      label: i % 4,
      score: Math.round(rand() * 1000) / 1000,
      image: { height: 8, width: 8, channels: 3, pixels },
      caption: `sample ${i}: a ${['red', 'green', 'blue', 'grey'][i % 4]} square`,
      embedding: Float32Array.from({ length: 4 }, () => rand()),
      meta: { split: i < 12 ? 'train' : 'val', index: i },
    };
  });
  const out = path.join(dir, 'train.mldf');
  await writeMldfFile(
    out,
    [
      { name: 'label', type: 'INT' },
      { name: 'score', type: 'FLOAT' },
      { name: 'image', type: 'IMAGE_RAW' },
      { name: 'caption', type: 'TEXT_RAW' },
      { name: 'embedding', type: 'NDARRAY', dtype: '<f4', shape: [4] },
      { name: 'meta', type: 'JSON' },
    ],
    samples,
  );
  return out;
}

/** A 6×6 RGB image as binary PPM: a real image payload, tiny. */
function ppm(seed: number): Uint8Array {
  const rand = random(seed);
  const head = new TextEncoder().encode('P6\n6 6\n255\n');
  const out = new Uint8Array(head.byteLength + 6 * 6 * 3);
  out.set(head);
  for (let i = head.byteLength; i < out.length; i++) out[i] = Math.floor(rand() * 256);
  return out;
}

async function writeTarFoldSample(dir: string): Promise<string[]> {
  const { indexFold } = await import('@binscope/taridx/node');
  const shardDir = path.join(dir, 'shards');
  fs.mkdirSync(shardDir, { recursive: true });
  const enc = new TextEncoder();
  const written: string[] = [];
  for (let shard = 0; shard < 2; shard++) {
    const members: Array<{ name: string; data: Uint8Array }> = [];
    for (let k = 0; k < 4; k++) {
      const key = `sample_${String(shard * 4 + k).padStart(6, '0')}`;
      members.push({ name: `${key}.ppm`, data: ppm(shard * 4 + k) });
      members.push({
        name: `${key}.json`,
        data: enc.encode(JSON.stringify({ key, shard, caption: `picture ${shard * 4 + k}` })),
      });
      members.push({ name: `${key}.cls`, data: enc.encode(String((shard * 4 + k) % 3)) });
    }
    const file = path.join(shardDir, `train_${String(shard).padStart(4, '0')}.tar`);
    await writeFileAtomic(file, tarBytes(members));
    written.push(file);
  }
  const index = await indexFold(shardDir, 'train');
  return [...written, index.path];
}

async function writeScdlSample(dir: string): Promise<string> {
  const { writeScdlArchive } = await import('@binscope/scdl/node');
  const rand = random(3);
  const cells = 10;
  const genes = 20;
  const indptr = [0];
  const indices: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < cells; r++) {
    for (let g = 0; g < genes; g++) {
      if (rand() < 0.25) {
        indices.push(g);
        data.push(1 + Math.floor(rand() * 9));
      }
    }
    indptr.push(indices.length);
  }
  const out = path.join(dir, 'cells_scdl');
  await writeScdlArchive(
    out,
    { indptr, indices, data, numCols: genes },
    {
      var: [
        {
          label: 'demo.h5ad',
          rows: cells,
          columns: [
            { name: 'gene_name', values: Array.from({ length: genes }, (_, g) => `GENE${g + 1}`) },
            { name: 'highly_variable', values: Array.from({ length: genes }, (_, g) => g % 4 === 0) },
          ],
        },
      ],
      obs: [
        {
          label: 'demo.h5ad',
          rows: cells,
          columns: [
            {
              name: 'cell_type',
              values: Array.from({ length: cells }, (_, c) => ['T cell', 'B cell', 'NK cell'][c % 3]),
            },
            {
              name: 'n_counts',
              values: Float64Array.from({ length: cells }, (_, c) =>
                data.slice(indptr[c], indptr[c + 1]).reduce((a, b) => a + b, 0),
              ),
            },
          ],
        },
      ],
    },
  );
  return out;
}

const SAMPLES: Array<{ format: string; write: (dir: string) => Promise<string | string[]> }> = [
  { format: 'scbf', write: writeScbfSample },
  { format: 'udf', write: writeUdfSample },
  { format: 'mldf', write: writeMldfSample },
  { format: 'taridx', write: writeTarFoldSample },
  { format: 'scdl', write: writeScdlSample },
];

interface DemoEntry {
  path: string;
  format: string | null;
  title: string;
  info?: ReturnType<typeof infoDocument>;
  error?: string;
}

/**
 * `binscope demo [DIR]`: writes a sample of every format with the format packages' own
 * writers, then runs detect and info on each, as a newcomer's first look.
 */
export async function demoCommand(
  ctx: Context,
  dirArg: string | undefined,
  options: CommonOptions & { force?: boolean },
): Promise<ExitCode> {
  // The samples have fixed names: in a folder that holds files, they could replace the user's.
  if (dirArg !== undefined && !options.force && folderHoldsFiles(dirArg)) {
    ctx.messages.line(
      `binscope: ${dirArg} is not empty; demo writes its samples there: choose a new or empty folder, or pass --force`,
    );
    return EXIT.usage;
  }
  const dir = dirArg ?? fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-demo-'));
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (error) {
    ctx.messages.line(`binscope: ${describeError(error, dir)}`);
    return EXIT.usage;
  }
  let code: ExitCode = EXIT.ok;
  const entries: DemoEntry[] = [];
  if (!options.json) await ctx.out.lines(`binscope demo: sample files in ${dir}\n`);
  for (const sample of SAMPLES) {
    let written: string[];
    try {
      const result = await sample.write(dir);
      written = Array.isArray(result) ? result : [result];
    } catch (error) {
      if (options.debug) ctx.messages.lines(String((error as Error)?.stack ?? error));
      const message = `cannot write the ${sample.format} sample: ${describeError(error)}`;
      ctx.messages.line(`binscope: ${message}`);
      entries.push({
        path: path.join(dir, `(${sample.format})`),
        format: null,
        title: 'not written',
        error: message,
      });
      code = EXIT.usage;
      continue;
    }
    for (const file of written) {
      const { entry, summary } = await describe(file);
      entries.push(entry);
      if (entry.error) {
        ctx.messages.line(`binscope: ${entry.error}`);
        code = EXIT.usage;
      }
      if (!options.json) {
        const best = entry.format ? `${entry.format} (${entry.title})` : 'unknown';
        await ctx.out.line(`${file}: ${best}`);
        if (summary) for (const line of summaryLines(file, summary).slice(1)) await ctx.out.line(line);
        await ctx.out.line('');
      }
    }
  }
  if (options.json) await printJson(ctx.out, { dir, files: entries });
  else {
    const first = entries.find((e) => e.format === 'scbf')?.path;
    await ctx.out.line(
      'Next: binscope inspect FILE, binscope head FILE, binscope validate FILE' +
        (first ? ` (e.g. ${first})` : ''),
    );
  }
  await ctx.out.flush();
  return code;
}

function folderHoldsFiles(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/** detect, then info, exactly as the verbs do. */
async function describe(file: string): Promise<{ entry: DemoEntry; summary?: Summary }> {
  try {
    const input = await openInput(file);
    const { format, title } = input.detection;
    await input.close();
    if (!format || format === 'tar') return { entry: { path: file, format, title } };
    const summary = await withReader(file, {}, (i, reader) => i.plugin.info(reader));
    return { entry: { path: file, format, title, info: infoDocument(file, summary) }, summary };
  } catch (error) {
    return { entry: { path: file, format: null, title: 'unreadable', error: describeError(error, file) } };
  }
}
