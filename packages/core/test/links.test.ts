import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBinscopeError } from '../src/index.js';
import { NodeDirectory } from '../src/node/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-links-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// archive/           the folder binscope is pointed at
//   data.bin         a file
//   inner.lnk        → data.bin (a link inside)
//   outer.lnk        → ../elsewhere/payload.bin (a link to a file outside the folder)
//   dir.lnk          → ../elsewhere (a link to a directory)
//   dangling.lnk     → nothing
//   sub/nested.lnk   → ../data.bin
const archive = path.join(root, 'archive');
const elsewhere = path.join(root, 'elsewhere');
fs.mkdirSync(path.join(archive, 'sub'), { recursive: true });
fs.mkdirSync(elsewhere);
fs.writeFileSync(path.join(archive, 'data.bin'), 'inside');
fs.writeFileSync(path.join(elsewhere, 'payload.bin'), 'outside');
fs.symlinkSync('data.bin', path.join(archive, 'inner.lnk'));
fs.symlinkSync(path.join(elsewhere, 'payload.bin'), path.join(archive, 'outer.lnk'));
fs.symlinkSync(elsewhere, path.join(archive, 'dir.lnk'));
fs.symlinkSync(path.join(root, 'missing'), path.join(archive, 'dangling.lnk'));
fs.symlinkSync('../data.bin', path.join(archive, 'sub', 'nested.lnk'));

async function text(dir: NodeDirectory, rel: string): Promise<string> {
  const source = await dir.open(rel);
  return new TextDecoder().decode(await source.read(0, source.size));
}

describe('NodeDirectory and symbolic links (SECURITY.md: one rule for listing and reading)', () => {
  const dir = new NodeDirectory(archive);

  it('lists links to regular files, inside or outside the folder, as files', async () => {
    expect(await dir.list()).toEqual(['data.bin', 'inner.lnk', 'outer.lnk', 'sub/nested.lnk']);
  });

  it('reads every listed link as its target, and has() agrees with the listing', async () => {
    expect(await text(dir, 'inner.lnk')).toBe('inside');
    expect(await text(dir, 'outer.lnk')).toBe('outside');
    expect(await text(dir, 'sub/nested.lnk')).toBe('inside');
    for (const rel of await dir.list()) expect(await dir.has(rel), rel).toBe(true);
  });

  it('neither lists nor reads through a linked directory, nor dangling links', async () => {
    expect(await dir.has('dir.lnk/payload.bin')).toBe(false);
    const through = await dir.open('dir.lnk/payload.bin').catch((e: unknown) => e);
    expect(isBinscopeError(through, 'SourceError'), String(through)).toBe(true);
    expect(await dir.has('dir.lnk')).toBe(false);
    expect(await dir.has('dangling.lnk')).toBe(false);
  });

  it('names still cannot leave the folder', async () => {
    const escaped = await dir.open('../elsewhere/payload.bin').catch((e: unknown) => e);
    expect(isBinscopeError(escaped, 'SourceError')).toBe(true);
    expect(await dir.has('../elsewhere/payload.bin')).toBe(false);
  });
});
