import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ByteSource } from '../bytes.js';
import type { DirectorySource } from '../directory.js';
import { SourceError } from '../errors.js';
import { describeFsError, NodeFileSource } from './file.js';

/** A folder on disk. Files open lazily, one descriptor each, and close with the directory. */
export class NodeDirectory implements DirectorySource {
  private readonly opened = new Map<string, NodeFileSource>();
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
        else if (entry.isFile()) out.push(child);
      }
    };
    visit('');
    return out.sort();
  }

  async has(rel: string): Promise<boolean> {
    try {
      return fs.statSync(this.resolve(rel)).isFile();
    } catch {
      return false;
    }
  }

  async open(rel: string): Promise<ByteSource> {
    const key = rel.replace(/\\/g, '/');
    const existing = this.opened.get(key);
    if (existing) return existing;
    const source = NodeFileSource.open(this.resolve(rel), key);
    this.opened.set(key, source);
    return source;
  }

  /** Closes every file opened through this directory. */
  async close(): Promise<void> {
    for (const source of this.opened.values()) await source.close();
    this.opened.clear();
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
