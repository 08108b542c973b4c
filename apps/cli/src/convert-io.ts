import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ByteSource } from '@binscope/core';
import { CliError, EXIT } from './errors.js';
import type { Output } from './io.js';
import { inputKind, openRemote, randomAccessPipe } from './remote.js';
import { scratchFolder, sourceChunks, spool, stdinChunks } from './streams.js';

/**
 * Where `convert` reads from and writes to when an end is not a local path: a URL or `-`
 * on the input side, `-` (stdout) on the output side. Local paths pass through unchanged,
 * so the converters keep their own file handling.
 */
export class ConvertEnds {
  private scratch: { dir: string; remove(): void } | undefined;
  private remote: ByteSource | undefined;

  constructor(
    readonly input: string,
    readonly output: string,
    private readonly out: Output,
  ) {}

  get toStdout(): boolean {
    return this.output === '-';
  }

  private scratchDir(): string {
    this.scratch ??= scratchFolder('binscope-convert-');
    return this.scratch.dir;
  }

  /** The input's remote bytes, opened once. */
  async remoteSource(): Promise<ByteSource | undefined> {
    if (this.remote || (inputKind(this.input) !== 's3' && inputKind(this.input) !== 'http'))
      return this.remote;
    const target = await openRemote(this.input);
    if (target?.kind !== 'file')
      throw new CliError(`${this.input}: a folder; convert reads one file`, EXIT.usage);
    this.remote = target.source;
    return this.remote;
  }

  /** CSV is read in one forward pass: a path, standard input, or a URL streamed in large chunks. */
  async csvInput(): Promise<string | AsyncIterable<Uint8Array>> {
    if (this.input === '-') return refuseBinaryStdin(stdinChunks());
    const remote = await this.remoteSource();
    return remote ? sourceChunks(remote) : this.input;
  }

  /** A local file holding the input, for converters that need one (HDF5 through h5wasm). */
  async localInput(): Promise<string> {
    if (inputKind(this.input) === 'path') return this.input;
    if (this.input === '-')
      throw new CliError(
        '-: .h5ad needs random access and standard input is a stream; give a path or URL',
        EXIT.usage,
      );
    const remote = (await this.remoteSource())!;
    const file = path.join(this.scratchDir(), path.basename(urlPath(this.input)) || 'input.h5ad');
    await spool(sourceChunks(remote), file);
    return file;
  }

  /** Where the converter writes: the output path, or a staged file later copied to stdout. */
  outputPath(extension: string): string {
    return this.toStdout ? path.join(this.scratchDir(), `output.${extension}`) : this.output;
  }

  /**
   * Sends a staged output to stdout; nothing for a path output. Through `Output`, so a reader
   * that went away (`| head`) stops the copy quietly and a failed stdout (a full disk) is an
   * error, never a wait for a 'drain' that cannot come.
   */
  async deliver(staged: string): Promise<void> {
    if (!this.toStdout) return;
    for await (const chunk of fs.createReadStream(staged, { highWaterMark: 1 << 20 })) {
      await this.out.bytes(chunk as Buffer);
      if (this.out.closed) break;
    }
    await this.out.flush();
    this.out.throwIfFailed();
  }

  cleanup(): void {
    this.scratch?.remove();
  }
}

/** The path part of a URL (no query, no fragment), or the string itself for paths. */
export function urlPath(location: string): string {
  const kind = inputKind(location);
  if (kind === 'http') return new URL(location).pathname;
  if (kind === 's3') return location.replace(/[?#].*$/, '');
  return location;
}

const SCBF_MAGIC = 'SCBFv1';

/** SCBF piped in where CSV is expected: say that SCBF needs random access, not "bad CSV". */
async function* refuseBinaryStdin(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let first = true;
  for await (const chunk of chunks) {
    if (first && new TextDecoder('latin1').decode(chunk.subarray(0, SCBF_MAGIC.length)) === SCBF_MAGIC)
      throw randomAccessPipe('reading SCBF');
    first = false;
    yield chunk;
  }
}
