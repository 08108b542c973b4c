/**
 * The conversion `/magic` declares (taridxToMldfConverter), as a Converter: browser-safe, it
 * reads the index and shards through core's sources, writes the MLDF file to the app's sink
 * and keeps the values in the app's scratch until the metadata rows (written first) are known.
 */
import type {
  ByteSink,
  Converter,
  ConvertInput,
  ConvertOptions,
  ConvertReport,
  JsonValue,
  OptionValues,
  Scratch,
  ScratchFile,
} from '@binscope/core';
import type { DataSpill } from '@binscope/mldf';
import { convertTaridxToMldf } from './convert.js';
import type { ShardsInput } from './input.js';

/** Appends staged this large before they reach the scratch file (a write per value would be slow). */
const STAGING = 1 << 20;
const COPY_CHUNK = 4 << 20;

/** The values' spill as a scratch file: what the app's scratch gives (temp files in Node, memory in a browser). */
export class ScratchSpill implements DataSpill {
  private readonly file: ScratchFile;
  private staging = new Uint8Array(STAGING);
  private used = 0;
  private disposed = false;

  constructor(scratch: Scratch) {
    this.file = scratch.file('mldf values');
  }

  append(bytes: Uint8Array): void {
    if (this.used + bytes.byteLength > this.staging.byteLength) this.flush();
    if (bytes.byteLength >= this.staging.byteLength) this.file.append(bytes);
    else {
      this.staging.set(bytes, this.used);
      this.used += bytes.byteLength;
    }
  }

  async copyTo(sink: ByteSink): Promise<void> {
    this.flush();
    const buffer = new Uint8Array(Math.min(COPY_CHUNK, Math.max(1, this.file.size)));
    const request = { into: buffer };
    for (let at = 0; at < this.file.size; ) {
      const got = this.file.read(at, Math.min(buffer.byteLength, this.file.size - at), request);
      const bytes = got instanceof Promise ? await got : got;
      // The sink may keep nothing of `bytes` once the write resolves: the buffer is reused.
      await sink.write(bytes);
      at += bytes.byteLength;
    }
  }

  /** Removes the scratch file (once: the writer disposes of its spill, and so does the converter). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.staging = new Uint8Array(0);
    this.used = 0;
    this.file.remove();
  }

  private flush(): void {
    if (this.used === 0) return;
    this.file.append(this.staging.subarray(0, this.used));
    this.used = 0;
  }
}

/** What to convert: the index file (shards beside it), or a folder of shards with `fold`. */
function shardsInput(input: ConvertInput, values: OptionValues): ShardsInput {
  const fold = values.fold === undefined || values.fold === '' ? undefined : String(values.fold);
  if (input.kind === 'stream')
    throw new RangeError(`${input.name}: TARIDX → MLDF reads an index or a folder of shards, not a stream`);
  if (input.kind === 'file') {
    if (fold !== undefined)
      throw new RangeError('--fold is for a shard folder input (an index names its fold)');
    return { index: input.source, shards: input.siblings };
  }
  if (fold === undefined)
    throw new RangeError(
      `${input.directory.name} is a folder: say which fold of shards to convert with --fold NAME`,
    );
  if (fold.includes('/') || fold.includes('\\'))
    throw new RangeError(
      `--fold ${JSON.stringify(fold)}: give the fold name only (shards are DIR/NAME_*.tar)`,
    );
  return { directory: input.directory, fold };
}

/** TARIDX (index + shards, or a folder of shards) → MLDF, into the app's sink. */
export const convertTaridxShardsToMldf: Converter = {
  async convert(input, output, options: ConvertOptions): Promise<ConvertReport> {
    if (output.kind !== 'file')
      throw new TypeError('an MLDF file is written to a file sink, not a directory');
    const values = options.values ?? {};
    const spill = new ScratchSpill(options.scratch);
    try {
      const result = await convertTaridxToMldf(shardsInput(input, values), output.sink, {
        keepEncoded: values.keepEncoded === true,
        checksum: values.checksum === true,
        onProgress: options.onProgress,
        signal: options.signal,
        spill,
      });
      return {
        warnings: [],
        details: {
          conversion: 'taridx→mldf',
          samples: result.samples,
          fields: result.fields.map(
            ({ name, type, dtype, shape }): JsonValue =>
              dtype ? { name, type, dtype, shape: [...(shape ?? [])] } : { name, type },
          ),
          mldfBytes: result.bytes,
          checksum: values.checksum === true,
        },
      };
    } finally {
      spill.dispose();
    }
  },
};
