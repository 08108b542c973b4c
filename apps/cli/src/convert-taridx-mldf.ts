import { type ProgressCallback, readExact } from '@binscope/core';
import type { FieldSpec } from '@binscope/mldf';
import type { TaridxReader, TaridxSample } from '@binscope/taridx';
import {
  type FieldPlan,
  kindOf,
  layoutKey,
  type MemberPlace,
  memberValue,
  type NpyLayout,
  npyLayout,
  planField,
} from './taridx-fields.js';

export interface TaridxToMldfOptions {
  /** Store .jpg/.png members as BYTES instead of decoding them to IMAGE_RAW. */
  keepEncoded?: boolean;
  /** Write FLAG_CHECKSUMMED (CRC-32s of the data and metadata regions). */
  checksum?: boolean;
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

export interface TaridxToMldfResult {
  samples: number;
  fields: FieldSpec[];
  bytes: number;
}

/** The field holding each sample's key, as WebDataset names it. */
export const KEY_FIELD = '__key__';

/**
 * Every member extension of the fold in order of first appearance, and for .npy fields the
 * array layout if every value shares it. Reads only .npy payloads (the others need no look).
 */
async function surveyFold(reader: TaridxReader, signal?: AbortSignal) {
  const exts: string[] = [];
  const npy = new Map<string, NpyLayout | undefined | 'mixed'>();
  for await (const sample of reader.samples({ signal })) {
    for (const member of sample.members) if (!exts.includes(member.ext)) exts.push(member.ext);
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

/**
 * A fold of tar shards (through its index) → one MLDF file: one sample per key, a `__key__`
 * text field, then one field per member extension (taridx-fields.ts says which type). A
 * sample without some member gets an empty value there (M6). Samples are read, decoded and
 * handed to the writer one at a time and values spill to disk, so memory holds one sample
 * plus the metadata rows whatever the fold's size; the output appears atomically at `finish`.
 */
export async function convertTaridxToMldf(
  reader: TaridxReader,
  output: string,
  options: TaridxToMldfOptions = {},
): Promise<TaridxToMldfResult> {
  const { MldfFileWriter } = await import('@binscope/mldf/node');
  const total = await reader.sampleCount();
  options.onProgress?.({ phase: 'surveying fields', done: 0, total, unit: 'items' });
  const { exts, npy } = await surveyFold(reader, options.signal);
  const plans: FieldPlan[] = exts.map((ext) => {
    const layout = npy.get(ext);
    return planField(ext, { keepEncoded: options.keepEncoded, npy: layout === 'mixed' ? undefined : layout });
  });
  const fields: FieldSpec[] = [{ name: KEY_FIELD, type: 'TEXT_RAW' }, ...plans.map((p) => p.spec)];
  const writer = MldfFileWriter.create(output, fields, { checksum: options.checksum });
  const byExt = new Map(plans.map((p) => [p.spec.name, p]));
  try {
    let done = 0;
    for await (const sample of reader.samples({ signal: options.signal })) {
      writer.add(await sampleInput(reader, sample, byExt, options.signal));
      if (++done % 256 === 0 || done === total)
        options.onProgress?.({ phase: 'converting', done, total, unit: 'items' });
    }
    await writer.finish();
  } catch (error) {
    writer.abort();
    throw error;
  }
  const { statSync } = await import('node:fs');
  return { samples: writer.samples, fields, bytes: statSync(output).size };
}

async function sampleInput(
  reader: TaridxReader,
  sample: TaridxSample,
  byExt: ReadonlyMap<string, FieldPlan>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const shards = await reader.shards();
  const members = await reader.readSample(sample, { signal });
  const key = await keyOf(reader, sample, shards);
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
    input[member.ext] = memberValue(byExt.get(member.ext)!, member.data, place);
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
  shards: Awaited<ReturnType<TaridxReader['shards']>>,
): Promise<string> {
  if (sample.key !== undefined) return sample.key;
  const first = sample.members[0];
  if (!shards || !first) return (await reader.key(sample)) ?? '';
  const source = await shards.open(first.fid);
  const block = await readExact(source, first.offset, 512, { format: 'taridx', what: 'tar header' });
  let end = block.subarray(0, 100).indexOf(0);
  if (end < 0) end = 100;
  const name = nameDecoder.decode(block.subarray(0, end));
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return dot < 0 ? base : base.slice(0, dot);
}
