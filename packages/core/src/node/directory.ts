import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ByteSource } from '../bytes.js';
import type { DirectorySource } from '../directory.js';
import { SourceError } from '../errors.js';
import { describeFsError, NodeFileSource } from './file.js';

/**
 * A folder on disk. Each `open` opens the file anew (its own descriptor), so whoever opened a
 * source can close it without closing it for anyone else (a reader closes the shards it
 * opened; the folder's owner may still open them again); what is still open closes with the
 * directory.
 *
 * Links (SECURITY.md, "Paths stay inside"): a symbolic link to a regular file is a file of the
 * folder, in `list` and in `open` alike, wherever its target lives (shards and archive files
 * are often links into other disks, and upstream tools follow them). Names stay inside: no
 * `..`, and no path through a linked directory (those are not listed either), so what can be
 * read is exactly what is listed. Links to directories, dangling links and other kinds are
 * not files.
 */
export class NodeDirectory implements DirectorySource {
  private readonly opened = new Set<NodeFileSource>();
  readonly name: string;

  constructor(readonly root: string) {
    this.name = path.basename(path.resolve(root));
  }

  async list(): Promise<string[]> {
    const out: string[] = [];
    const visit = (rel: string) => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(path.join(this.root, rel), { withFileTypes: true });
      } catch (cause) {
        throw new SourceError(`${path.join(this.root, rel)}: ${describeFsError(cause)}`, rel, { cause });
      }
      for (const entry of entries) {
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) visit(child);
        else if (entry.isFile() || (entry.isSymbolicLink() && this.linksToFile(child))) out.push(child);
      }
    };
    visit('');
    return out.sort();
  }

  async has(rel: string): Promise<boolean> {
    try {
      const full = this.resolve(rel);
      return this.throughRealDirectories(rel) && fs.statSync(full).isFile();
    } catch {
      return false;
    }
  }

  async open(rel: string): Promise<ByteSource> {
    const key = rel.replace(/\\/g, '/');
    const full = this.resolve(rel);
    if (!this.throughRealDirectories(key)) {
      throw new SourceError(
        `${rel}: a path through a linked directory of ${this.root} (links are followed to files only)`,
        rel,
      );
    }
    const source = NodeFileSource.open(full, key);
    this.opened.add(source);
    return source;
  }

  /** Closes every file opened through this directory that its opener has not closed (closing twice is harmless). */
  async close(): Promise<void> {
    for (const source of this.opened) await source.close();
    this.opened.clear();
  }

  /** A link whose target (followed to the end) is a regular file. */
  private linksToFile(rel: string): boolean {
    try {
      return fs.statSync(path.join(this.root, rel)).isFile();
    } catch {
      return false;
    }
  }

  /** Every folder on the way to `rel` is a real directory, not a link (as `list` walks them). */
  private throughRealDirectories(rel: string): boolean {
    const parts = path
      .normalize(rel)
      .split(/[\\/]/)
      .filter((p) => p && p !== '.');
    let at = path.resolve(this.root);
    for (const part of parts.slice(0, -1)) {
      at = path.join(at, part);
      try {
        if (!fs.lstatSync(at).isDirectory()) return false;
      } catch {
        return true; // missing: opening reports it with the usual message
      }
    }
    return true;
  }

  private resolve(rel: string): string {
    const full = path.resolve(this.root, rel);
    const root = path.resolve(this.root);
    // Paths come from archives and indexes; never let one escape the folder.
    if (full !== root && !full.startsWith(root + path.sep)) {
      throw new SourceError(`${rel}: path escapes ${this.root}`, rel);
    }
    return full;
  }
}

export function openDirectory(dirPath: string): NodeDirectory {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dirPath);
  } catch (cause) {
    throw new SourceError(`${dirPath}: ${describeFsError(cause)}`, dirPath, { cause });
  }
  if (!stat.isDirectory()) throw new SourceError(`${dirPath}: not a directory`, dirPath);
  return new NodeDirectory(dirPath);
}
