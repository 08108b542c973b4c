import {
  type ByteSource,
  ProblemList,
  percentProgress,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { verifyMldfChecksums } from './checksum.js';
import { FORMAT_ID } from './layout.js';
import { MldfReader } from './read.js';

const MAX_ERRORS = 100;
const PAYLOAD_BATCH = 64;

/**
 * Every M-rule, in A2 order, never throwing for bad input: header, descriptors and layout
 * (open), then every value's struct and range, then the allocation table (sorted, inside the
 * data region, agreeing with the metadata), then the CRC-32s of a checksummed file (each
 * corrupted region named), then payloads (UTF-8, JSON). A later phase runs only when the earlier ones found nothing, so errors[0] is the first defect, not an echo.
 */
export async function validateMldf(
  source: ByteSource,
  options: ValidateOptions = {},
): Promise<ValidationReport> {
  const problems = new ProblemList(FORMAT_ID);
  let reader: MldfReader;
  try {
    reader = await MldfReader.open(source, options);
  } catch (error) {
    problems.capture(error);
    return problems.report();
  }
  for (const w of reader.warnings) problems.warn(w.code, w.message, { offset: w.offset, file: w.file });
  const full = () => problems.errors.length >= MAX_ERRORS;
  // Two passes over the samples when some field holds text to decode: structure, then payloads.
  const passes = payloadFields(reader).length > 0 ? 2 : 1;
  const progress = percentProgress(options.onProgress, reader.numSamples * passes);

  for (let i = 0; i < reader.numSamples && !full(); i++) {
    try {
      await reader.checkSample(i, options);
    } catch (error) {
      problems.capture(error);
    }
    progress(i + 1);
  }
  if (problems.errors.length === 0) {
    try {
      await reader.checkAllocations(options);
    } catch (error) {
      problems.capture(error);
    }
  }
  if (problems.errors.length === 0) {
    try {
      for (const corrupted of await verifyMldfChecksums(reader.source, reader.header, reader.layout, options))
        problems.capture(corrupted);
    } catch (error) {
      problems.capture(error);
    }
  }
  if (problems.errors.length === 0)
    await checkPayloads(reader, problems, options, (done) => progress(reader.numSamples + done));
  progress(reader.numSamples * passes);
  if (full()) problems.warn('TooManyErrors', `stopped after ${MAX_ERRORS} errors`);
  return problems.report();
}

/** Decodes the fields whose bytes can be malformed (JSON, TEXT_RAW), batch by batch. */
async function checkPayloads(
  reader: MldfReader,
  problems: ProblemList,
  options: ValidateOptions,
  progress: (done: number) => void,
): Promise<void> {
  const fields = payloadFields(reader);
  if (fields.length === 0) return;
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
      for (let i = done; i < end; i++) {
        try {
          await reader.sample(i, { fields, signal: options.signal });
        } catch (inner) {
          problems.capture(inner);
        }
      }
      if (problems.errors.length === before) problems.capture(error);
      start = end;
      progress(end);
    }
  }
}

function payloadFields(reader: MldfReader): string[] {
  return reader.fields.filter((f) => f.type === 'JSON' || f.type === 'TEXT_RAW').map((f) => f.name);
}
