import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ByteSink } from '../sink.js';
import { SourceError } from '../errors.js';
import { describeFsError, specialKind } from './file.js';
import { asideNameFor, lockTarget, pidAlive, recoverInterruptedReplace } from './replace.js';
import { trackTemp, untrackTemp } from './temps.js';

const TEMP_MARK = '.binscope-tmp-';

/** A temp name beside `target` that `removeStaleTemps(target)` removes once its writer is gone. */
export function tempNameFor(target: string): string {
  const dir = path.dirname(target);
  const base = path.basename(target);
  return path.join(dir, `.${base}${TEMP_MARK}${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
}

/**
 * Removes temp files a killed writer left beside `target` (their pid is gone), so a crash
 * leaves no litter once the next write succeeds.
 */
export function removeStaleTemps(target: string): void {
  const dir = path.dirname(target);
  const prefix = `.${path.basename(target)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && pidAlive(pid)) continue;
    if (pid === process.pid) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Writers replace only what they write: a regular file (or, for an archive, a folder), never
 * a device, FIFO or socket (`-o /dev/null --force` as root would replace /dev/null) nor a
 * symbolic link (renaming over it drops the link, dangling or not). Checked on the path
 * itself (lstat), before the temp file is made and again just before the rename.
 */
export function assertReplaceable(target: string, options: { folder?: boolean } = {}): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw ioError('cannot write', target, cause);
  }
  if (stat.isFile() || (options.folder && stat.isDirectory())) return;
  const what = stat.isDirectory() ? 'a folder' : specialKind(stat);
  const replaced = options.folder ? 'regular files and folders' : 'regular files';
  throw new SourceError(
    `cannot write ${target}: it is ${what}, not a regular file; binscope replaces only ${replaced}${stat.isSymbolicLink() ? ' (give the path the link points to, or remove the link)' : ''}`,
    target,
  );
}

function ioError(what: string, target: string, cause: unknown): SourceError {
  return new SourceError(`${what} ${target}: ${describeFsError(cause)}`, target, { cause });
}

/**
 * A file written beside its target under a temp name and renamed over it on commit, so the
 * target holds either the complete previous file or the complete new one, never a part.
 */
export class AtomicFile implements ByteSink {
  position = 0;
  private fd: number | undefined;
  private done = false;

  private constructor(
    readonly target: string,
    readonly tempPath: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static create(target: string): AtomicFile {
    assertReplaceable(target);
    const tempPath = tempNameFor(target);
    let fd: number;
    try {
      fd = fs.openSync(tempPath, 'wx', 0o644);
    } catch (cause) {
      throw ioError('cannot write', target, cause);
    }
    trackTemp(tempPath);
    return new AtomicFile(target, tempPath, fd);
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.writeSync(bytes);
  }

  writeSync(bytes: Uint8Array): void {
    if (this.fd === undefined) throw new SourceError(`${this.target}: write after close`, this.target);
    try {
      let written = 0;
      while (written < bytes.byteLength) {
        written += fs.writeSync(this.fd, bytes, written, bytes.byteLength - written);
      }
    } catch (cause) {
      this.abort();
      throw ioError('cannot write', this.target, cause);
    }
    this.position += bytes.byteLength;
  }

  /** Writes at an absolute position without moving `position` (patching a header). */
  writeAt(bytes: Uint8Array, offset: number): void {
    if (this.fd === undefined) throw new SourceError(`${this.target}: write after close`, this.target);
    try {
      fs.writeSync(this.fd, bytes, 0, bytes.byteLength, offset);
    } catch (cause) {
      this.abort();
      throw ioError('cannot write', this.target, cause);
    }
  }

  /** Flushes, then renames over the target. */
  async commit(): Promise<void> {
    if (this.done) return;
    if (this.fd === undefined) throw new SourceError(`${this.target}: commit after abort`, this.target);
    try {
      fs.fsyncSync(this.fd);
      fs.closeSync(this.fd);
      this.fd = undefined;
      assertReplaceable(this.target);
      fs.renameSync(this.tempPath, this.target);
      untrackTemp(this.tempPath);
      this.done = true;
    } catch (cause) {
      this.abort();
      throw ioError('cannot write', this.target, cause);
    }
    removeStaleTemps(this.target);
  }

  /** Drops the temp file; the target is untouched. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {}
      this.fd = undefined;
    }
    fs.rmSync(this.tempPath, { force: true });
    untrackTemp(this.tempPath);
  }
}

/** Writes a whole file atomically, from bytes or from a function that streams into the sink. */
export async function writeFileAtomic(
  target: string,
  content: Uint8Array | ((sink: AtomicFile) => Promise<void>),
): Promise<void> {
  const file = AtomicFile.create(target);
  try {
    if (content instanceof Uint8Array) await file.write(content);
    else await content(file);
    await file.commit();
  } catch (error) {
    file.abort();
    throw error;
  }
}

export interface DirectoryWriteOptions {
  /** Told about previous copies that interrupted replacements left (restored or kept). */
  onWarning?: (message: string) => void;
  /**
   * false: fail, changing nothing, when the target exists once the lock is held. A check
   * made before the write (a CLI without --force) cannot see a target that a concurrent
   * writer puts in place meanwhile; this one can. Default true.
   */
  replace?: boolean;
}

/**
 * Builds a directory under a temp name and renames it into place. One writer per target at
 * a time (a second one fails at once, changing nothing). An existing target is moved aside
 * and deleted only once the new one is in place; a copy left aside by a killed writer is
 * restored or reported, never deleted (see replace.ts).
 */
export async function writeDirectoryAtomic(
  target: string,
  build: (tempDir: string) => Promise<void>,
  options: DirectoryWriteOptions = {},
): Promise<void> {
  const unlock = lockTarget(target);
  try {
    for (const message of recoverInterruptedReplace(target)) options.onWarning?.(message);
    if (options.replace === false && fs.existsSync(target)) {
      throw new SourceError(
        `cannot write ${target}: it exists and replacing it was not asked for; nothing was changed`,
        target,
      );
    }
    assertReplaceable(target, { folder: true });
    // Dead writers' half-built folders are temp, unlike a previous copy: they can go now.
    removeStaleTemps(target);
    const tempDir = tempNameFor(target);
    try {
      fs.mkdirSync(tempDir, { recursive: false });
    } catch (cause) {
      throw ioError('cannot create', target, cause);
    }
    trackTemp(tempDir);
    try {
      await build(tempDir);
      swapIn(tempDir, target);
    } catch (error) {
      fs.rmSync(tempDir, { recursive: true, force: true });
      throw error;
    } finally {
      untrackTemp(tempDir);
    }
  } finally {
    unlock();
  }
  removeStaleTemps(target);
}

/** Old target aside, new one in, old one deleted; any failure puts the old one back. */
function swapIn(tempDir: string, target: string): void {
  let aside: string | undefined;
  assertReplaceable(target, { folder: true });
  try {
    if (fs.existsSync(target)) {
      aside = asideNameFor(target);
      fs.renameSync(target, aside);
    }
    fs.renameSync(tempDir, target);
  } catch (cause) {
    if (aside && !fs.existsSync(target)) fs.renameSync(aside, target);
    throw ioError('cannot write', target, cause);
  }
  if (aside) fs.rmSync(aside, { recursive: true, force: true });
}

/** A private scratch folder (spilled columns, staged data), removed by the returned function. */
export function makeScratchDir(near?: string): { dir: string; remove: () => void } {
  const base = near ? path.dirname(path.resolve(near)) : (process.env.TMPDIR ?? '/tmp');
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(base, TEMP_MARK.slice(1)));
  } catch {
    dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', TEMP_MARK.slice(1)));
  }
  trackTemp(dir);
  return {
    dir,
    remove: () => {
      fs.rmSync(dir, { recursive: true, force: true });
      untrackTemp(dir);
    },
  };
}
