import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceError } from '@binscope/core';
import { describeFsError, openDirectory, writeDirectoryAtomic } from '@binscope/core/node';
import { openScdl, type ScdlOpenOptions, type ScdlReader } from './read.js';
import {
  type ArchiveSink,
  type ArchiveStream,
  type CsrMatrix,
  type FeatureIndices,
  ScdlWriter,
  type ScdlWriteOptions,
  type ScdlWriteResult,
} from './write.js';

export * from './index.js';

function ioError(what: string, file: string, cause: unknown): SourceError {
  return new SourceError(`cannot ${what} ${file}: ${describeFsError(cause)}`, file, { cause });
}

/** Writes an archive's files into a folder on disk (the temp folder of an atomic write). */
export class NodeArchiveSink implements ArchiveSink {
  constructor(readonly root: string) {}

  private full(rel: string): string {
    const full = path.join(this.root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    return full;
  }

  async writeFile(rel: string, bytes: Uint8Array): Promise<void> {
    const full = this.full(rel);
    try {
      fs.writeFileSync(full, bytes);
    } catch (cause) {
      throw ioError('write', full, cause);
    }
  }

  async createStream(rel: string): Promise<ArchiveStream> {
    const full = this.full(rel);
    let fd: number | undefined;
    try {
      fd = fs.openSync(full, 'w', 0o644);
    } catch (cause) {
      throw ioError('write', full, cause);
    }
    return {
      write: async (bytes) => {
        if (fd === undefined) throw new SourceError(`${full}: write after close`, full);
        try {
          let done = 0;
          while (done < bytes.byteLength) done += fs.writeSync(fd, bytes, done, bytes.byteLength - done);
        } catch (cause) {
          throw ioError('write', full, cause);
        }
      },
      close: async () => {
        if (fd === undefined) return;
        const closing = fd;
        fd = undefined;
        try {
          fs.closeSync(closing);
        } catch (cause) {
          throw ioError('close', full, cause);
        }
      },
    };
  }

  async readBack(rel: string, offset: number, length: number): Promise<Uint8Array> {
    const full = path.join(this.root, rel);
    const fd = fs.openSync(full, 'r');
    try {
      const out = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const n = fs.readSync(fd, out, filled, length - filled, offset + filled);
        if (n === 0) break;
        filled += n;
      }
      return out.subarray(0, filled);
    } finally {
      fs.closeSync(fd);
    }
  }

  async remove(rel: string): Promise<void> {
    fs.rmSync(path.join(this.root, rel), { force: true });
  }
}

/**
 * A streaming writer whose archive appears at `target` only when `finish` succeeds: it
 * writes into a temp folder beside the target and renames it into place (an existing
 * archive is replaced only then). `abort`, an error or a killed process leave the target
 * untouched; the next successful write removes a killed writer's temp folder.
 */
export interface ScdlArchiveWriter {
  readonly target: string;
  readonly rows: number;
  readonly nnz: number;
  appendRows: ScdlWriter['appendRows'];
  appendDenseRows: ScdlWriter['appendDenseRows'];
  finish(features?: FeatureIndices): Promise<ScdlWriteResult>;
  abort(): Promise<void>;
}

export interface ScdlArchiveWriteOptions extends ScdlWriteOptions {
  /** false: fail, changing nothing, if `target` exists when writing starts. Default true. */
  replace?: boolean;
  /** Told about previous copies that interrupted replacements left (restored or kept). */
  onWarning?: (message: string) => void;
}

export async function createScdlArchiveWriter(
  target: string,
  options: ScdlArchiveWriteOptions = {},
): Promise<ScdlArchiveWriter> {
  let release!: () => void;
  let fail!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  let ready!: (sink: NodeArchiveSink) => void;
  let notReady!: (error: unknown) => void;
  const sinkReady = new Promise<NodeArchiveSink>((resolve, reject) => {
    ready = resolve;
    notReady = reject;
  });
  // core's writeDirectoryAtomic owns the temp-folder-and-rename dance; the build step
  // stays open until finish() or abort() settles it.
  const done = writeDirectoryAtomic(
    target,
    async (tempDir) => {
      ready(new NodeArchiveSink(tempDir));
      await finished;
    },
    { replace: options.replace, onWarning: options.onWarning },
  );
  done.catch((error) => notReady(error));
  const sink = await sinkReady;
  const writer = new ScdlWriter(sink, options);
  let settled = false;
  const abort = async (reason: unknown = new Error('aborted')) => {
    if (settled) return;
    settled = true;
    await writer.abort();
    fail(reason);
    await done.catch(() => {});
  };
  return {
    target,
    get rows() {
      return writer.rows;
    },
    get nnz() {
      return writer.nnz;
    },
    appendRows: (chunk) =>
      writer.appendRows(chunk).catch(async (error) => {
        await abort(error);
        throw error;
      }),
    appendDenseRows: (rows) =>
      writer.appendDenseRows(rows).catch(async (error) => {
        await abort(error);
        throw error;
      }),
    async finish(features) {
      if (settled) throw new SourceError(`${target}: finish after abort`, target);
      let result: ScdlWriteResult;
      try {
        result = await writer.finish(features);
      } catch (error) {
        await abort(error);
        throw error;
      }
      settled = true;
      release();
      await done;
      return result;
    },
    abort: () => abort(),
  };
}

/** Writes a whole CSR matrix (and feature indices) to `target` atomically. */
export async function writeScdlArchive(
  target: string,
  matrix: CsrMatrix,
  options: ScdlArchiveWriteOptions = {},
): Promise<ScdlWriteResult> {
  const nnzFromIndptr =
    matrix.indptr.length > 0
      ? Number(matrix.indptr[matrix.indptr.length - 1]) - Number(matrix.indptr[0])
      : undefined;
  const writer = await createScdlArchiveWriter(target, {
    ...options,
    numCols: options.numCols ?? matrix.numCols,
    nnz: options.nnz ?? nnzFromIndptr,
  });
  if (matrix.indptr.length > 0) await writer.appendRows(matrix);
  return writer.finish();
}

/** Opens an archive folder on disk. Close the reader to release its file descriptors. */
export async function openScdlArchive(dir: string, options: ScdlOpenOptions = {}): Promise<ScdlReader> {
  const directory = openDirectory(dir);
  try {
    return await openScdl(directory, options);
  } catch (error) {
    await directory.close();
    throw error;
  }
}
