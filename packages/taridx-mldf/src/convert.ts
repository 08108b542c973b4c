import { type ByteSink, pacer, type ProgressCallback, readExact } from '@binscope/core';
import {
  type DataSpill,
  type FieldSpec,
  MldfWriter,
  type MldfWriterOptions,
  type SampleInput,
} from '@binscope/mldf';
import type { TaridxMember, TaridxReader, TaridxSample } from '@binscope/taridx';
import { type FieldPlan, memberValue, planField } from './fields.js';
import { openInput, type ShardsInput } from './input.js';
import { kindOf, type MemberPlace } from './member.js';
import { layoutKey, type NpyLayout, npyLayout } from './npy.js';

export interface TaridxToMldfOptions {
  /** Store .jpg/.png members as BYTES instead of decoding them to IMAGE_RAW. */
  keepEncoded?: boolean;
  /** Write FLAG_CHECKSUMMED (CRC-32s of the data and metadata regions). */
  checksum?: boolean;
  /** MLDF page size (the data region's alignment); default 4096. */
  pageSize?: number;
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

export interface TaridxToMldfSinkOptions extends TaridxToMldfOptions {
  /**
   * Where values wait until the file is assembled (they follow the metadata rows, whose
   * size is known only at the end). Default: 1 MiB blocks in memory; the `/node` entry
   * spills to a scratch file beside the output instead.
   */
  spill?: DataSpill;
}

export interface TaridxToMldfResult {
  samples: number;
  fields: FieldSpec[];
  /** Bytes of the MLDF file. */
  bytes: number;
}

/** The field holding each sample's key, as WebDataset names it. */
export const KEY_FIELD = '__key__';

/** The writer a conversion feeds: in-memory spill + sink here, an atomic file in `/node`. */
export interface SampleWriter {
  add(sample: SampleInput): void;
  finish(): Promise<void>;
  abort(): void;
  readonly samples: number;
}

/**
 * A fold of tar shards → one MLDF file written into `sink`: one sample per key, a `__key__`
 * text field, then one field per member extension. A sample without some member gets an
 * empty value there (M6). Samples are read, decoded and written one at a time, so memory
 * holds one sample, the metadata rows and what `spill` keeps.
 */
export async function convertTaridxToMldf(
  input: ShardsInput,
  sink: ByteSink,
  options: TaridxToMldfSinkOptions = {},
): Promise<TaridxToMldfResult> {
  const start = sink.position;
  const result = await convertInto(
    input,
    (fields, writerOptions) => {
      const writer = new MldfWriter(fields, writerOptions, options.spill);
      return {
        add: (sample) => writer.add(sample),
        finish: () => writer.finish(sink),
        abort: () => writer.dispose(),
        get samples() {
          return writer.samples;
        },
      };
    },
    options,
  );
  return { ...result, bytes: sink.position - start };
}

/** The conversion with the writer left open: the one code path of both entries. */
export async function convertInto(
  input: ShardsInput,
  createWriter: (fields: readonly FieldSpec[], options: MldfWriterOptions) => SampleWriter,
  options: TaridxToMldfOptions,
): Promise<Omit<TaridxToMldfResult, 'bytes'>> {
  const { signal } = options;
  const reader = await openInput(input, signal);
  try {
    return await convertFrom(reader, createWriter, options);
  } finally {
    // A reader opened here is closed here (its shards with it); a reader given is the caller's.
    if (reader !== input) await reader.close();
  }
}

async function convertFrom(
  reader: TaridxReader,
  createWriter: (fields: readonly FieldSpec[], options: MldfWriterOptions) => SampleWriter,
  options: TaridxToMldfOptions,
): Promise<Omit<TaridxToMldfResult, 'bytes'>> {
  const { signal, onProgress } = options;
  const total = await reader.sampleCount();
  onProgress?.({ phase: 'surveying fields', done: 0, total, unit: 'items' });
  const { exts, npy } = await surveyFold(reader, signal);
  const plans: FieldPlan[] = exts.map((ext) => {
    const layout = npy.get(ext);
    return planField(ext, { keepEncoded: options.keepEncoded, npy: layout === 'mixed' ? undefined : layout });
  });
  const fields: FieldSpec[] = [{ name: KEY_FIELD, type: 'TEXT_RAW' }, ...plans.map((p) => p.spec)];
  const writer = createWriter(fields, { checksum: options.checksum, pageSize: options.pageSize });
  const byExt = new Map(plans.map((p) => [p.spec.name, p]));
  try {
    let done = 0;
    // Local reads are synchronous: the pacer gives the event loop turns (an abort, SIGTERM).
    const pace = pacer(signal);
    for await (const sample of reader.samples({ signal })) {
      // Sources that need no I/O (memory, a page's files) never look at the signal themselves.
      await pace();
      const input = await sampleInput(reader, sample, byExt, signal);
      // A group of rows that are only tar extended headers (`@PaxHeader`) is no sample.
      if (input) writer.add(input);
      if (++done % 256 === 0 || done === total)
        onProgress?.({ phase: 'converting', done, total, unit: 'items' });
    }
    await writer.finish();
  } catch (error) {
    writer.abort();
    throw error;
  }
  return { samples: writer.samples, fields };
}

/**
 * Every member extension of the fold in order of first appearance, and for .npy fields the
 * array layout if every value shares it. Reads only .npy payloads, and tar headers until each
 * extension is seen on a member: rows that are tar extended headers (PAX, GNU long names;
 * `././@PaxHeader` has extension "") make no field, so an extension only they have is none.
 */
async function surveyFold(reader: TaridxReader, signal?: AbortSignal) {
  const exts: string[] = [];
  const npy = new Map<string, NpyLayout | undefined | 'mixed'>();
  const pace = pacer(signal);
  for await (const sample of reader.samples({ signal })) {
    await pace();
    for (const member of sample.members) {
      if (exts.includes(member.ext)) continue;
      if ((await reader.listMembers(sample, { ext: member.ext, signal })).length > 0) exts.push(member.ext);
    }
    for (const data of await reader.readSample(sample, {
      ext: exts.filter((e) => kindOf(e) === 'npy'),
      signal,
    })) {
      const layout = npyLayout(data.data);
      const seen = npy.get(data.ext);
      if (!npy.has(data.ext)) npy.set(data.ext, layout);
      else if (seen !== 'mixed' && layoutKey(seen) !== layoutKey(layout)) npy.set(data.ext, 'mixed');
    }
  }
  return { exts, npy };
}

async function sampleInput(
  reader: TaridxReader,
  sample: TaridxSample,
  byExt: ReadonlyMap<string, FieldPlan>,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const shards = await reader.shards();
  // Tar extended headers are left out here: their header comes in the same read.
  const members = await reader.readSample(sample, { signal });
  if (members.length === 0) return undefined;
  const key = await keyOf(reader, sample, members[0], shards);
  const input: Record<string, unknown> = { [KEY_FIELD]: key };
  for (const member of members) {
    // A repeated extension within one sample keeps its first member, as WebDataset loaders do.
    if (member.ext in input) continue;
    const place: MemberPlace = {
      file: shards?.names[member.fid] ?? `shard ${member.fid}`,
      offset: member.offset,
      key,
      ext: member.ext,
    };
    input[member.ext] = await memberValue(byExt.get(member.ext)!, member.data, place);
  }
  return input;
}

const nameDecoder = new TextDecoder('utf-8');

/**
 * The sample's key: the stem in its first member's 100-byte tar name (T2). `reader.key()`
 * says the same but also resolves the member's full path, reading the members before it;
 * here only the name matters, and `readSample` (verify on) has already checked every
 * member's stem against the sample's key hash.
 */
async function keyOf(
  reader: TaridxReader,
  sample: TaridxSample,
  first: TaridxMember,
  shards: Awaited<ReturnType<TaridxReader['shards']>>,
): Promise<string> {
  if (sample.key !== undefined) return sample.key;
  if (!shards) return (await reader.key(sample)) ?? '';
  const source = await shards.open(first.fid);
  const block = await readExact(source, first.offset, 512, { format: 'taridx', what: 'tar header' });
  let end = block.subarray(0, 100).indexOf(0);
  if (end < 0) end = 100;
  const name = nameDecoder.decode(block.subarray(0, end));
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return dot < 0 ? base : base.slice(0, dot);
}
