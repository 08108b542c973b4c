import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PYTHON } from './python.js';
import { tempDir } from './temp.js';

/**
 * Tar shards written by the real tools, as users make them: GNU tar and Python's `tarfile`.
 * Their extended headers (PAX `x`/`g`, GNU `L`/`K`) are what the readers must see past; the
 * suites that use these check `gnuTar()` / `pythonModules(['tarfile'])` first.
 */

export interface ToolTarEntry {
  /** Member path (UTF-8; may hold non-ASCII characters and `/`). */
  name: string;
  data: Uint8Array | string;
}

/**
 * A shard written by GNU tar from files laid out in a temp folder, in the order given.
 * `format` is GNU tar's `--format` (`posix` writes a PAX `x` header before every member, for
 * its times and non-ASCII names; `gnu` writes `././@LongLink` for names over 100 bytes).
 */
export function gnuTarShard(entries: readonly ToolTarEntry[], format: 'posix' | 'gnu' = 'posix'): Uint8Array {
  const { dir, remove } = tempDir('binscope-gnutar-');
  try {
    const src = path.join(dir, 'src');
    for (const e of entries) {
      const file = path.join(src, e.name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, e.data);
    }
    const out = path.join(dir, 'shard.tar');
    execFileSync('tar', [
      `--format=${format}`,
      '-cf',
      out,
      '-C',
      src,
      '--no-recursion',
      ...entries.map((e) => e.name),
    ]);
    return new Uint8Array(fs.readFileSync(out));
  } finally {
    remove();
  }
}

/**
 * A shard written by Python's `tarfile` in PAX format: non-ASCII or long names get a
 * `././@PaxHeader` (`x`) header and a `?`-for-non-ASCII name field; `globalHeaders` adds a
 * global (`g`) header first, as `pax_headers=` does.
 */
export function pythonTarShard(
  entries: readonly ToolTarEntry[],
  globalHeaders: Record<string, string> = {},
): Uint8Array {
  const script = `
import io, json, sys, tarfile
spec = json.loads(sys.stdin.read())
out = io.BytesIO()
with tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT, pax_headers=spec['global']) as tar:
    for name, data in spec['entries']:
        info = tarfile.TarInfo(name)
        payload = bytes.fromhex(data)
        info.size = len(payload)
        info.mtime = 1700000000
        tar.addfile(info, io.BytesIO(payload))
sys.stdout.buffer.write(out.getvalue())
`;
  const spec = {
    global: globalHeaders,
    entries: entries.map((e) => [e.name, Buffer.from(e.data).toString('hex')]),
  };
  return new Uint8Array(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(spec) }));
}
