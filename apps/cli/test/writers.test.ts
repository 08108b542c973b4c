import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWith, VECTORS, vectorsFolder } from '@binscope/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cli } from './helpers.js';

// SECURITY.md "Writers never destroy input": every verb that writes refuses an output that
// is one of its inputs (any path to the same file) and an existing output without --force.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-writers-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const at = (name: string) => path.join(dir, name);
const bytesOf = (p: string) => fs.readFileSync(p);

/** demo's samples: a CSV, an SCBF file, a fold of shards with its index. */
function samples(): { csv: string; scbf: string; shards: string; index: string; shard: string } {
  expect(cli(['demo', at('s'), '--json']).code).toBe(0);
  const shards = at('s/shards');
  return {
    csv: at('s/measurements.csv'),
    scbf: at('s/measurements.scbf'),
    shards,
    index: path.join(shards, 'train.taridx'),
    shard: path.join(shards, 'train_0000.tar'),
  };
}

describe('writers never destroy input', () => {
  it('convert replaces an existing output only with --force', () => {
    const s = samples();
    fs.writeFileSync(at('out.scbf'), 'precious');
    const refused = cli(['convert', s.csv, at('out.scbf')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/out\.scbf exists; pass --force/);
    expect(fs.readFileSync(at('out.scbf'), 'utf8')).toBe('precious');
    expect(cli(['convert', s.csv, at('out.scbf'), '--force']).code).toBe(0);
    expect(bytesOf(at('out.scbf'))).toEqual(bytesOf(s.scbf));
  });

  it('convert refuses an output that is its input through a symlink or a hard link, even with --force', () => {
    const s = samples();
    const before = bytesOf(s.scbf);
    fs.symlinkSync(s.scbf, at('link.csv'));
    fs.linkSync(s.scbf, at('hard.csv'));
    for (const out of [at('link.csv'), at('hard.csv')]) {
      const r = cli(['convert', s.scbf, out, '--force']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/refusing to write .*: it is the input/);
    }
    expect(bytesOf(s.scbf)).toEqual(before);
  });

  it('index -o refuses one of its own shards, and an existing index without --force', () => {
    const s = samples();
    const shard = bytesOf(s.shard);
    const r = cli(['index', s.shards, '--fold', 'train', '-o', s.shard, '--force']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/it is the input .*train_0000\.tar/);
    expect(bytesOf(s.shard)).toEqual(shard);
    const again = cli(['index', s.shards, '--fold', 'train']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/train\.taridx exists; pass --force/);
    expect(cli(['index', s.shards, '--fold', 'train', '--force']).code).toBe(0);
  });

  it('get -o refuses the index and the shard it reads, and an existing file without --force', () => {
    const s = samples();
    const index = bytesOf(s.index);
    const shard = bytesOf(s.shard);
    for (const out of [s.index, s.shard]) {
      const r = cli(['get', s.index, 'sample_000000', '--ext', 'json', '-o', out, '--force']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/refusing to write .*: it is the input/);
    }
    expect(bytesOf(s.index)).toEqual(index);
    expect(bytesOf(s.shard)).toEqual(shard);
    fs.writeFileSync(at('member.json'), 'mine');
    const r = cli(['get', s.index, 'sample_000000', '--ext', 'json', '-o', at('member.json')]);
    expect(r.code).toBe(2);
    expect(fs.readFileSync(at('member.json'), 'utf8')).toBe('mine');
  });

  it('demo refuses a folder that already holds files without --force', () => {
    fs.mkdirSync(at('mine'));
    fs.writeFileSync(at('mine/measurements.csv'), 'my own data');
    const r = cli(['demo', at('mine')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not empty/);
    expect(fs.readFileSync(at('mine/measurements.csv'), 'utf8')).toBe('my own data');
  });
});

describe('an interrupted convert', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`removes its temp file and spill folder on ${signal}`, async () => {
      const csv = at('big.csv');
      const fd = fs.openSync(csv, 'w');
      fs.writeSync(fd, 'id,name,value\n');
      for (let block = 0; block < 40; block++) {
        let text = '';
        for (let i = block * 25_000; i < (block + 1) * 25_000; i++) text += `${i},"name ${i}",${i}.5\n`;
        fs.writeSync(fd, text);
      }
      fs.closeSync(fd);
      const child = spawn(process.execPath, [BIN, 'convert', csv, at('big.scbf')], { stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_c, s) => resolve(s)),
      );
      // Wait (bounded) for the scratch folder the spills go to: the conversion is then under way.
      const spilling = () => fs.readdirSync(dir).some((n) => n.endsWith('-scratch'));
      const deadline = Date.now() + 20_000;
      while (!spilling() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(spilling()).toBe(true);
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(fs.readdirSync(dir)).toEqual(['big.csv']);
    });
  }
});

const h5adVector = path.join(VECTORS, 'scdl/uint16_counts_from_X/source/input.h5ad');

describeWith(vectorsFolder(path.dirname(h5adVector)), 'two converts to one SCDL target', () => {
  it("one wins; the other, without --force, fails clearly and leaves the winner's archive", async () => {
    // A folder of many inputs keeps the first convert writing for seconds.
    fs.mkdirSync(at('many'));
    for (let i = 0; i < 150; i++) fs.copyFileSync(h5adVector, at(`many/f${String(i).padStart(3, '0')}.h5ad`));
    const target = at('archive');
    const first = spawn(process.execPath, [BIN, 'convert', at('many'), target, '--json'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let firstOut = '';
    first.stdout.on('data', (b: Buffer) => {
      firstOut += b.toString('utf8');
    });
    const firstCode = new Promise<number | null>((resolve) => first.once('exit', (c) => resolve(c)));
    // Wait (bounded) until the first convert is writing: its lock or temp folder is there.
    const writing = () => fs.readdirSync(dir).some((n) => n.startsWith('.archive.binscope-'));
    const deadline = Date.now() + 20_000;
    while (!writing() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(writing(), 'the first convert never started writing').toBe(true);

    // Without --force: the lock stops it, or the archive the first one put there meanwhile
    // (seen at its start or once it holds the lock). Each way it changes nothing.
    const second = cli(['convert', h5adVector, target]);
    expect(second.code).not.toBe(0);
    const errors = second.stderr.split('\n').filter((l) => l && !l.startsWith('binscope: warning:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `(cannot write .*archive: (another binscope process \\(pid ${first.pid}\\) is writing it|it exists and replacing it was not asked for); nothing was changed|archive exists; pass --force to replace it)$`,
      ),
    );

    expect(await firstCode).toBe(0);
    const written = JSON.parse(firstOut) as { output: string; rows: number };
    expect(written).toMatchObject({ output: target, rows: 150 * 10 });
    const info = cli(['info', target, '--json']);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ format: 'scdl', rows: written.rows });
    expect(fs.readdirSync(dir).sort()).toEqual(['archive', 'many']);
  });
});

describe('a full disk during CSV → SCBF', () => {
  it('names the output, not the input, and leaves nothing behind', () => {
    const csv = at('in.csv');
    let text = 'id,name\n';
    for (let i = 0; i < 5000; i++) text += `${i},n${i}\n`;
    fs.writeFileSync(csv, text);
    const preload = path.resolve(__dirname, 'fixtures/disk-full.mjs');
    const r = cli(['convert', csv, at('out.scbf')], {
      nodeArgs: ['--import', preload],
      env: { BINSCOPE_FULL: 'out.scbf' },
    });
    expect(r.code).toBe(2);
    // The output, or the scratch file beside it (spills go to the output's disk), is named.
    expect(r.stderr).toMatch(
      new RegExp(`^binscope: cannot write (scratch file )?${dir}/\\.?out\\.scbf.*no space left on device`),
    );
    expect(r.stderr).not.toContain(`${csv}:`);
    expect(fs.readdirSync(dir)).toEqual(['in.csv']);
  });
});
