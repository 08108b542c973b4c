import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceError } from '../errors.js';
import { describeFsError } from './file.js';
import { trackTemp, untrackTemp } from './temps.js';

/**
 * Replacing a folder takes two renames (old aside, new in); a writer killed between them leaves
 * no folder at the target, only the old one under an "-old-" name. Such copies are never
 * deleted by binscope: the next writer restores one if the target is missing, and otherwise
 * reports it for a person to remove.
 */
const OLD_MARK = '.binscope-old-';
const LOCK_MARK = '.binscope-lock';

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Where the previous folder waits while the new one is renamed in. */
export function asideNameFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}${OLD_MARK}${process.pid}-${Math.random().toString(36).slice(2, 10)}`,
  );
}

/**
 * Restores or reports the previous copies that writers killed mid-replacement left beside
 * `target`. Returns one message per copy found.
 */
export function recoverInterruptedReplace(target: string): string[] {
  const dir = path.dirname(target);
  const prefix = `.${path.basename(target)}${OLD_MARK}`;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
  const messages: string[] = [];
  for (const name of names.sort()) {
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (pid === process.pid || (Number.isInteger(pid) && pidAlive(pid))) continue;
    const copy = path.join(dir, name);
    if (!fs.existsSync(target)) {
      fs.renameSync(copy, target);
      messages.push(
        `${target}: restored the previous copy that an interrupted replacement had moved to ${copy}`,
      );
    } else {
      messages.push(
        `${target}: an interrupted replacement left the previous copy at ${copy}; it is kept, remove it when you no longer need it`,
      );
    }
  }
  return messages;
}

/**
 * One writer per target at a time: a lock file beside it, created exclusively. A lock whose
 * writer is gone is taken over. Returns the function that releases it.
 */
export function lockTarget(target: string): () => void {
  const lock = path.join(path.dirname(target), `.${path.basename(target)}${LOCK_MARK}`);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      trackTemp(lock);
      return () => {
        untrackTemp(lock);
        fs.rmSync(lock, { force: true });
      };
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        throw new SourceError(`cannot create ${target}: ${describeFsError(cause)}`, target, { cause });
      }
    }
    let holder = Number.NaN;
    try {
      holder = Number(fs.readFileSync(lock, 'utf8'));
    } catch {}
    if (Number.isInteger(holder) && holder > 0 && pidAlive(holder)) {
      throw new SourceError(
        `cannot write ${target}: another binscope process (pid ${holder}) is writing it; nothing was changed`,
        target,
      );
    }
    fs.rmSync(lock, { force: true });
  }
}
