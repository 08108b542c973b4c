import * as fs from 'node:fs';
import type { ByteSink } from '@binscope/core';
import { AtomicFile, openFile } from '@binscope/core/node';
import { openMldf } from './plugin.js';
import type { MldfReader } from './read.js';
import type { MldfOpenOptions } from './values.js';
import {
  type DataSpill,
  type FieldSpec,
  MldfWriter,
  type MldfWriterOptions,
  type SampleInput,
} from './write.js';

const STAGING = 1 << 20;
const COPY_CHUNK = 4 << 20;

/**
 * Spills the data region to a scratch file beside the target. The scratch is itself an
 * uncommitted AtomicFile, so a writer killed mid-way leaves only a temp file that the next
 * successful write to the same target removes.
 */
class FileSpill implements DataSpill {
  private staging = new Uint8Array(STAGING);
  private used = 0;

  constructor(private readonly scratch: AtomicFile) {}

  append(bytes: Uint8Array): void {
    if (this.used + bytes.byteLength > this.staging.byteLength) this.flush();
    if (bytes.byteLength >= this.staging.byteLength) {
      this.scratch.writeSync(bytes);
      return;
    }
    this.staging.set(bytes, this.used);
    this.used += bytes.byteLength;
  }

  async copyTo(sink: ByteSink): Promise<void> {
    this.flush();
    const fd = fs.openSync(this.scratch.tempPath, 'r');
    try {
      const buffer = new Uint8Array(COPY_CHUNK);
      for (let pos = 0; ; ) {
        const n = fs.readSync(fd, buffer, 0, buffer.byteLength, pos);
        if (n === 0) break;
        await sink.write(buffer.subarray(0, n));
        pos += n;
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  dispose(): void {
    this.staging = new Uint8Array(0);
    this.used = 0;
    this.scratch.abort();
  }

  private flush(): void {
    if (this.used === 0) return;
    this.scratch.writeSync(this.staging.subarray(0, this.used));
    this.used = 0;
  }
}

/**
 * Streams samples into an MLDF file at `path`. Values are spilled to disk as they arrive
 * (memory holds only the metadata rows); `finish` assembles the file under a temp name and
 * renames it over `path`, so `path` holds the old file or the complete new one, never a part.
 */
export class MldfFileWriter {
  private readonly writer: MldfWriter;
  private closed = false;

  private constructor(
    readonly path: string,
    fields: readonly FieldSpec[],
    options: MldfWriterOptions,
  ) {
    const scratch = AtomicFile.create(path);
    try {
      this.writer = new MldfWriter(fields, options, new FileSpill(scratch));
    } catch (error) {
      scratch.abort();
      throw error;
    }
  }

  static create(path: string, fields: readonly FieldSpec[], options: MldfWriterOptions = {}): MldfFileWriter {
    return new MldfFileWriter(path, fields, options);
  }

  get samples(): number {
    return this.writer.samples;
  }

  add(sample: SampleInput): void {
    this.writer.add(sample);
  }

  async finish(): Promise<void> {
    if (this.closed) throw new Error('MLDF writer: finish() after finish() or abort()');
    this.closed = true;
    let out: AtomicFile | undefined;
    try {
      out = AtomicFile.create(this.path);
      await this.writer.finish(out);
      await out.commit();
    } catch (error) {
      out?.abort();
      throw error;
    } finally {
      this.writer.dispose();
    }
  }

  /** Drops everything written so far; `path` is untouched. */
  abort(): void {
    this.closed = true;
    this.writer.dispose();
  }
}

/** Writes all samples to `path` atomically (see MldfFileWriter). */
export async function writeMldfFile(
  path: string,
  fields: readonly FieldSpec[],
  samples: Iterable<SampleInput> | AsyncIterable<SampleInput>,
  options: MldfWriterOptions = {},
): Promise<void> {
  const writer = MldfFileWriter.create(path, fields, options);
  try {
    for await (const sample of samples) writer.add(sample);
  } catch (error) {
    writer.abort();
    throw error;
  }
  await writer.finish();
}

/**
 * Opens a local MLDF file (positional reads; nothing beyond the header is read up front). The
 * reader owns the file it opened: `close()` closes it.
 */
export async function openMldfFile(path: string, options?: MldfOpenOptions): Promise<MldfReader> {
  const source = openFile(path);
  try {
    return (await openMldf(source, options)).ownSource();
  } catch (error) {
    await source.close();
    throw error;
  }
}
