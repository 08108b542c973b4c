import type { MldfReader, MldfValue } from '@binscope/mldf';
import type { SerializedError } from '../../protocol';
import { serializeError } from '../session';
import type { Json } from './common';

export interface SampleRead {
  index: number;
  values: Record<string, MldfValue | undefined>;
  /** Why the sample as a whole could not be read (its fields were then read one by one). */
  error?: Json;
  /** Fields that could not be read, with why. */
  fieldErrors: Record<string, Json>;
}

const asJson = (e: SerializedError) => e as unknown as Json;

/**
 * A page of samples. The batched read is tried first (nearby reads coalesced); if any sample
 * in it is bad, each sample is read alone, and a bad sample field by field, so one bad value
 * (a pointer past the end) shows as that value's error instead of blanking the page.
 */
export async function readSamples(
  reader: MldfReader,
  indices: number[],
  signal: AbortSignal,
): Promise<SampleRead[]> {
  try {
    const samples = await reader.samples(indices, { signal });
    return samples.map((values, k) => ({ index: indices[k], values, fieldErrors: {} }));
  } catch (error) {
    if (signal.aborted) throw error;
  }
  const out: SampleRead[] = [];
  for (const index of indices) {
    try {
      const [values] = await reader.samples([index], { signal });
      out.push({ index, values, fieldErrors: {} });
    } catch (error) {
      if (signal.aborted) throw error;
      const read: SampleRead = { index, values: {}, error: asJson(serializeError(error)), fieldErrors: {} };
      for (const field of reader.fields) {
        try {
          read.values[field.name] = await reader.field(index, field.name, { signal });
        } catch (fieldError) {
          if (signal.aborted) throw fieldError;
          read.fieldErrors[field.name] = asJson(serializeError(fieldError));
        }
      }
      out.push(read);
    }
  }
  return out;
}
