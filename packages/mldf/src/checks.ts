import { type ProblemList, percentProgress, type ValidateOptions } from '@binscope/core';
import { verifyMldfChecksums } from './checksum.js';
import type { MldfReader } from './read.js';

export const MAX_ERRORS = 100;
const PAYLOAD_BATCH = 64;

export interface ContentCheckOptions extends ValidateOptions {
  /** Decode every JSON and TEXT_RAW value too (validate's deep check; inspect leaves it out). */
  payloads?: boolean;
}

/**
 * The checks past the structure (M5–M7), recording into `problems`: the CRC-32s of a
 * checksummed file (each corrupted region named), every value's struct and range, then the
 * allocation table against the metadata, then, when asked, the payloads (UTF-8, JSON). The sample pass runs only over a clean
 * checksum and the last two only over clean samples, so the first error is the first defect,
 * not an echo of it. Sample problems are recorded in sample order.
 */
export async function checkContent(
  reader: MldfReader,
  problems: ProblemList,
  options: ContentCheckOptions = {},
): Promise<void> {
  const full = () => problems.errors.length >= MAX_ERRORS;
  const payloads = options.payloads ? payloadFields(reader) : [];
  // Two passes over the samples when some field holds text to decode: structure, then payloads.
  const passes = payloads.length > 0 ? 2 : 1;
  const progress = percentProgress(options.onProgress, reader.numSamples * passes);
  // A corrupted region first: whatever else is wrong in it is an echo of the corruption, and
  // `open(…, {verify: true})` stops at the same error.
  await problems.attempt(async () => {
    for (const corrupted of await verifyMldfChecksums(reader.source, reader.header, reader.layout, options))
      problems.capture(corrupted);
  });
  const corrupted = problems.hasErrors();
  for (let i = 0; i < reader.numSamples && !full() && !corrupted; i++) {
    await problems.attempt(() => reader.checkSample(i, options));
    progress(i + 1);
  }
  const structural = problems.hasErrors();
  if (!structural) await problems.attempt(() => reader.checkAllocations(options));
  // Payloads are read through the value pointers the sample pass checked, not through the
  // allocation table: a defect there hides none here, and the strict reader (which decodes
  // before it compares allocations) reports this one first.
  if (!structural && payloads.length > 0)
    await checkPayloads(reader, payloads, problems, options, (done) => progress(reader.numSamples + done));
  progress(reader.numSamples * passes);
  if (full()) problems.warn('TooManyErrors', `stopped after ${MAX_ERRORS} errors`);
}

/** Decodes the fields whose bytes can be malformed (JSON, TEXT_RAW), batch by batch. */
async function checkPayloads(
  reader: MldfReader,
  fields: string[],
  problems: ProblemList,
  options: ValidateOptions,
  progress: (done: number) => void,
): Promise<void> {
  let start = 0;
  while (start < reader.numSamples && problems.errors.length < MAX_ERRORS) {
    let done = start;
    try {
      for await (const batch of reader.batches({
        fields,
        start,
        batchSize: PAYLOAD_BATCH,
        signal: options.signal,
      })) {
        done += batch.length;
        progress(done);
      }
      return;
    } catch (error) {
      // Pin the failure down sample by sample inside the failing batch, then carry on after it.
      const end = Math.min(reader.numSamples, done + PAYLOAD_BATCH);
      const before = problems.errors.length;
      for (let i = done; i < end; i++)
        await problems.attempt(() => reader.sample(i, { fields, signal: options.signal }));
      if (problems.errors.length === before) problems.capture(error);
      start = end;
      progress(end);
    }
  }
}

function payloadFields(reader: MldfReader): string[] {
  return reader.fields.filter((f) => f.type === 'JSON' || f.type === 'TEXT_RAW').map((f) => f.name);
}
