import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Awaitable, ReadRequest } from '../bytes.js';
import { SourceError } from '../errors.js';
import type { Scratch, ScratchFile } from '../scratch.js';
import type { DirectorySink } from '../sink.js';
import { tempNameFor, writeFileAtomic } from './atomic.js';
import { describeFsError } from './file.js';
import { trackTemp, untrackTemp } from './temps.js';

/**
 * A folder on disk as a DirectorySink: each file is written atomically (temp name, rename),
 * its folders made as needed; paths never leave `root`. For a whole folder that must appear
 * at once, write into the temp folder of `writeDirectoryAtomic`.
 */
export function folderSink(root: string): DirectorySink {
  const base = path.resolve(root);
  return {
    async write(rel, content) {
      const full = path.resolve(base, rel);
      if (full === base || !full.startsWith(base + path.sep))
        throw new SourceError(`${rel}: path escapes ${root}`, rel);
      try {
        fs.mkdirSync(path.dirname(full), { recursive: true });
      } catch (cause) {
        throw new SourceError(`cannot create ${path.dirname(full)}: ${describeFsError(cause)}`, full, {
          cause,
        });
      }
      await writeFileAtomic(full, content);
    },
  };
}

/**
 * Scratch files in a private folder beside `near` (the output, so spills land on the disk the
 * output goes to; named like its temp files, so the next successful write to it removes what
 * a killed writer left) or in the system temp folder. Removed on `close`, or by the signal
 * handlers of `removeTempsOnSignals` if the process is interrupted.
 */
export function fileScratch(near?: string): Scratch {
  const unique = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const dir = near
    ? `${tempNameFor(path.resolve(near))}-scratch`
    : path.join(process.env.TMPDIR ?? '/tmp', `.binscope-scratch-${unique}`);
  try {
    fs.mkdirSync(dir);
  } catch (cause) {
    throw new SourceError(`cannot create a scratch folder ${dir}: ${describeFsError(cause)}`, dir, { cause });
  }
  trackTemp(dir);
  // A failure beside an output (a full disk) names the output the user asked for, not a
  // temp file they never named.
  const owner = near ? path.resolve(near) : undefined;
  const files = new Set<NodeScratchFile>();
  let count = 0;
  return {
    file(name) {
      const file = new NodeScratchFile(
        path.join(dir, `${count++}-${name.replace(/[^\w.-]/g, '_')}`),
        name,
        owner,
      );
      files.add(file);
      return file;
    },
    close() {
      for (const file of files) file.remove();
      files.clear();
      fs.rmSync(dir, { recursive: true, force: true });
      untrackTemp(dir);
    },
  };
}

/** An append-only temp file read back with positional reads. */
class NodeScratchFile implements ScratchFile {
  size = 0;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    readonly name: string,
    /** The output this scratch serves, named in failures. */
    private readonly owner?: string,
  ) {
    try {
      this.fd = fs.openSync(this.path, 'w+');
    } catch (cause) {
      throw this.failure('create', cause);
    }
  }

  private failure(what: string, cause: unknown): SourceError {
    const where = this.owner ? `${this.owner} (scratch space beside it)` : `scratch file ${this.path}`;
    return new SourceError(`cannot ${what} ${where}: ${describeFsError(cause)}`, this.owner ?? this.path, {
      cause,
    });
  }

  append(bytes: Uint8Array): void {
    const fd = this.open();
    try {
      for (let written = 0; written < bytes.byteLength; ) {
        written += fs.writeSync(fd, bytes, written, bytes.byteLength - written, this.size + written);
      }
    } catch (cause) {
      throw this.failure('write', cause);
    }
    this.size += bytes.byteLength;
  }

  read(offset: number, length: number, request?: ReadRequest): Awaitable<Uint8Array> {
    const fd = this.open();
    const start = Math.min(Math.max(0, offset), this.size);
    const want = Math.max(0, Math.min(length, this.size - start));
    const target = request?.into ?? Buffer.allocUnsafe(want);
    let filled = 0;
    while (filled < want) {
      const n = fs.readSync(fd, target, filled, want - filled, start + filled);
      if (n === 0) throw new SourceError(`${this.path}: scratch file shrank`, this.path);
      filled += n;
    }
    return filled === target.byteLength ? target : target.subarray(0, filled);
  }

  private open(): number {
    if (this.fd === undefined)
      throw new SourceError(`${this.path}: scratch file used after remove`, this.path);
    return this.fd;
  }

  remove(): void {
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {}
      this.fd = undefined;
    }
    fs.rmSync(this.path, { force: true });
  }

  async close(): Promise<void> {}
}
