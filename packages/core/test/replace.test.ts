import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBinscopeError } from '../src/errors.js';
import { writeDirectoryAtomic } from '../src/node/index.js';

// Replacing a folder is two renames; these tests kill a real writer between them and run
// two writers at once, through the built package (as the CLI uses it).
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/node/index.js');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-replace-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function archive(target: string, content: string): void {
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(path.join(target, 'data'), content);
}

/** A child that replaces `target` and is SIGKILLed right after moving the old folder aside. */
function killBetweenRenames(target: string): void {
  const script = `
    import fs from 'node:fs';
    import { syncBuiltinESMExports } from 'node:module';
    const rename = fs.renameSync;
    fs.renameSync = (from, to) => {
      rename(from, to);
      if (from === ${JSON.stringify(target)}) process.kill(process.pid, 'SIGKILL');
    };
    syncBuiltinESMExports();
    const { writeDirectoryAtomic } = await import(${JSON.stringify(dist)});
    await writeDirectoryAtomic(${JSON.stringify(target)}, async (tmp) => fs.writeFileSync(tmp + '/data', 'new'));
  `;
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
  } catch (error) {
    expect((error as { signal?: string }).signal).toBe('SIGKILL');
    return;
  }
  throw new Error('the writer was not killed between its renames');
}

describe('replacing a folder', () => {
  it('restores the previous archive that a writer killed between its two renames moved aside', async () => {
    const target = path.join(dir, 'archive');
    archive(target, 'old');
    killBetweenRenames(target);
    expect(fs.existsSync(target)).toBe(false);
    // The next writer fails in its build step: the old archive must be back all the same.
    const warnings: string[] = [];
    await expect(
      writeDirectoryAtomic(
        target,
        async () => {
          throw new Error('build failed');
        },
        { onWarning: (m) => warnings.push(m) },
      ),
    ).rejects.toThrow('build failed');
    expect(fs.readFileSync(path.join(target, 'data'), 'utf8')).toBe('old');
    expect(warnings).toEqual([expect.stringMatching(/restored the previous copy/)]);
    expect(fs.readdirSync(dir)).toEqual(['archive']);
  });

  it('keeps and reports a previous copy when the target exists again, never deleting it', async () => {
    const target = path.join(dir, 'archive');
    archive(target, 'old');
    killBetweenRenames(target);
    archive(target, 'made by hand since');
    const warnings: string[] = [];
    await writeDirectoryAtomic(target, async (tmp) => fs.writeFileSync(path.join(tmp, 'data'), 'newest'), {
      onWarning: (m) => warnings.push(m),
    });
    expect(fs.readFileSync(path.join(target, 'data'), 'utf8')).toBe('newest');
    expect(warnings).toEqual([expect.stringMatching(/left the previous copy at .*it is kept/)]);
    const kept = fs.readdirSync(dir).filter((n) => n !== 'archive');
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, kept[0], 'data'), 'utf8')).toBe('old');
  });

  it('lets one of two concurrent writers win; the other fails clearly and changes nothing', async () => {
    const target = path.join(dir, 'archive');
    archive(target, 'old');
    let release!: () => void;
    const first = writeDirectoryAtomic(target, async (tmp) => {
      fs.writeFileSync(path.join(tmp, 'data'), 'first');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await new Promise((r) => setImmediate(r));
    const second = await writeDirectoryAtomic(target, async (tmp) =>
      fs.writeFileSync(path.join(tmp, 'data'), 'second'),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(second, 'SourceError'), String(second)).toBe(true);
    expect(String((second as Error).message)).toMatch(/another binscope process \(pid \d+\) is writing it/);
    expect(fs.readFileSync(path.join(target, 'data'), 'utf8')).toBe('old');
    release();
    await first;
    expect(fs.readFileSync(path.join(target, 'data'), 'utf8')).toBe('first');
    expect(fs.readdirSync(dir)).toEqual(['archive']);
  });

  it('with replace: false fails at once when the target exists by the time it holds the lock', async () => {
    const target = path.join(dir, 'archive');
    archive(target, 'old');
    let built = false;
    const error = await writeDirectoryAtomic(
      target,
      async () => {
        built = true;
      },
      { replace: false },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'SourceError'), String(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /it exists and replacing it was not asked for; nothing was changed/,
    );
    expect(built).toBe(false);
    expect(fs.readFileSync(path.join(target, 'data'), 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['archive']);
  });

  it('removes its temp folder and lock on SIGTERM', async () => {
    const target = path.join(dir, 'archive');
    const script = `
      const { writeDirectoryAtomic, removeTempsOnSignals } = await import(${JSON.stringify(dist)});
      removeTempsOnSignals();
      await writeDirectoryAtomic(${JSON.stringify(target)}, async () => {
        process.stdout.write('building\\n');
        await new Promise((r) => setTimeout(r, 20000));
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const signal = await new Promise((resolve) => child.once('exit', (_code, s) => resolve(s)));
    expect(signal).toBe('SIGTERM');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('leaves SIGTERM to end at once a process with no temps, however busy its thread', async () => {
    // A read-only verb in a synchronous stretch: were the handlers installed with no temps to
    // remove, they would wait for the event loop, which this loop never gives back.
    const script = `
      const { removeTempsOnSignals, trackTemp, untrackTemp } = await import(${JSON.stringify(dist)});
      removeTempsOnSignals();
      trackTemp('/nonexistent/binscope-temp');
      untrackTemp('/nonexistent/binscope-temp');
      process.stdout.write('busy\\n', () => { for (;;) {} });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill('SIGTERM');
    const limit = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const signal = await new Promise((resolve) => child.once('exit', (_code, s) => resolve(s)));
    clearTimeout(limit);
    expect(signal, 'SIGTERM was held off (killed after 30 s)').toBe('SIGTERM');
  }, 60_000);
});
