import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceError } from '../errors.js';
import { directoryTarget, fileTarget, type Target } from '../plugin.js';
import { NodeDirectory } from './directory.js';
import { describeFsError, NodeFileSource } from './file.js';

/** A path as a plugin target: a folder becomes a directory target, a file gets its folder as siblings. */
export function openPath(p: string): Target {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch (cause) {
    throw new SourceError(`${p}: ${describeFsError(cause)}`, p, { cause });
  }
  if (stat.isDirectory()) return directoryTarget(new NodeDirectory(p));
  return fileTarget(NodeFileSource.open(p, path.basename(p)), new NodeDirectory(path.dirname(p)));
}
