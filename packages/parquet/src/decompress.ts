import type { Compressors, FileMetaData } from 'hyparquet';
import { snappyUncompress } from 'hyparquet';

type Decompressor = (input: Uint8Array, outputLength: number) => Uint8Array;

/**
 * The most a codec can expand its input, rounded up (Snappy's longest copy is 64 bytes for a
 * 2-byte tag; deflate's limit is 1032:1; LZ4's about 255:1). Zstd and Brotli frames can repeat
 * a byte run for very little, so their bound is only generous. A page header's size beyond
 * its codec's bound is refused before anything is allocated for it (A4).
 */
const MAX_RATIO: Record<string, number> = {
  SNAPPY: 32,
  GZIP: 1032,
  LZ4: 256,
  LZ4_RAW: 256,
  ZSTD: 1 << 16,
  BROTLI: 1 << 16,
};
const SLACK = 1 << 16;

function guarded(codec: string, decompress: Decompressor): Decompressor {
  const ratio = MAX_RATIO[codec] ?? 1 << 16;
  return (input, outputLength) => {
    if (
      !Number.isSafeInteger(outputLength) ||
      outputLength < 0 ||
      outputLength > input.length * ratio + SLACK
    )
      throw new Error(
        `cannot decompress a ${codec} page of ${input.length} bytes to the ${outputLength} its header states`,
      );
    return decompress(input, outputLength);
  };
}

const snappy: Decompressor = (input, outputLength) => {
  const output = new Uint8Array(outputLength);
  snappyUncompress(input, output);
  return output;
};

const BUILT_IN = new Set(['UNCOMPRESSED', 'SNAPPY']);

/**
 * The decompressors a file needs, each behind the size guard: hyparquet's Snappy, and gzip,
 * zstd, brotli and LZ4 from hyparquet-compressors, loaded only for a file that uses one (it is
 * most of the reader's size).
 */
export async function compressorsFor(metadata: FileMetaData): Promise<Compressors> {
  const out: Compressors = { SNAPPY: guarded('SNAPPY', snappy) };
  const needed = metadata.row_groups.some((g) =>
    g.columns.some((c) => c.meta_data && !BUILT_IN.has(c.meta_data.codec)),
  );
  if (!needed) return out;
  const { compressors } = await import('hyparquet-compressors');
  for (const [codec, decompress] of Object.entries(compressors))
    if (decompress && codec !== 'SNAPPY')
      out[codec as keyof Compressors] = guarded(codec, decompress as Decompressor);
  return out;
}
