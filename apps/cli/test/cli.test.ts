import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, STACK_LINE } from './helpers.js';

const VERBS = [
  'detect',
  'info',
  'inspect',
  'validate',
  'head',
  'cat',
  'convert',
  'index',
  'diff',
  'get',
  'demo',
];

const scratch = tempDir('binscope-cli-');
afterAll(() => scratch.remove());

function write(name: string, bytes: Uint8Array | string): string {
  const p = path.join(scratch.dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

/** A minimal POSIX ustar member header + payload + end blocks: what `tar` writes. */
function tiny_tar(): Uint8Array {
  const out = new Uint8Array(512 * 4);
  const enc = new TextEncoder();
  out.set(enc.encode('a.txt'), 0);
  out.set(enc.encode('0000644\0'), 100);
  out.set(enc.encode('00000000005\0'), 124);
  out.set(enc.encode('ustar\u000000'), 257);
  out.set(enc.encode('hello'), 512);
  return out;
}

describe('help', () => {
  it('the root help lists every verb, the exit codes and examples', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    for (const verb of VERBS) expect(r.stdout).toMatch(new RegExp(`^\\s+${verb}\\b`, 'm'));
    expect(r.stdout).toContain('Exit codes:');
    expect(r.stdout).toContain('$ binscope');
  });

  for (const verb of VERBS) {
    it(`${verb} --help is complete and shows an example`, () => {
      const r = cli([verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: binscope ${verb}`);
      expect(r.stdout).toMatch(/Examples:\n\s+\$ binscope /);
      expect(r.stdout).toMatch(new RegExp(`\\$ binscope ${verb}\\b`));
      expect(r.stdout).toContain('--json');
      expect(r.stdout).toContain('Exit codes:');
      expect(r.stderr).toBe('');
      // `help VERB` prints the same text.
      expect(cli(['help', verb]).stdout).toBe(r.stdout);
    });
  }

  it('--version prints the version', () => {
    const r = cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('usage errors exit 2 with one line and no stack', () => {
  const cases: Array<[string, string[]]> = [
    ['no arguments', []],
    ['an unknown verb', ['frobnicate']],
    ['a missing argument', ['info']],
    ['an unknown option', ['detect', '--nope', 'x']],
    ['a bad number', ['head', 'x', '-n', 'ten']],
    ['a bad --format', ['cat', 'x', '--format', 'xml']],
    ['a missing file', ['info', '/definitely/not/here.scbf']],
    ['an unknown --as', ['info', '--as', 'zip', __filename]],
  ];
  for (const [what, args] of cases) {
    it(what, () => {
      const r = cli(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(STACK_LINE);
      if (args.length > 0)
        expect(
          r.stderr
            .trim()
            .split('\n')
            .filter((l) => l.startsWith('binscope:') && !l.includes('warning:')),
        ).toHaveLength(1);
    });
  }

  it('--debug adds the stack trace', () => {
    const r = cli(['info', '/definitely/not/here.scbf', '--debug']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(STACK_LINE);
  });
});

describe('detect', () => {
  it('reports an unknown file with its first bytes in hex, exit 1', () => {
    const p = write('mystery.bin', 'hello world, not a format');
    const r = cli(['detect', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${p}: unknown (first bytes: 68 65 6c 6c 6f 20 77 6f`);
    const j = cli(['detect', '--json', p]);
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.stdout);
    expect(doc).toEqual([
      expect.objectContaining({ path: p, format: null, head: expect.stringMatching(/^68656c6c6f/) }),
    ]);
  });

  it('reports an empty file as unknown', () => {
    const p = write('empty.dat', '');
    const doc = JSON.parse(cli(['detect', '--json', p]).stdout);
    expect(doc[0]).toMatchObject({ path: p, format: null, head: '' });
  });

  it('reports a plain tar file as a tar shard ("tar")', () => {
    const p = write('train_0000.tar', tiny_tar());
    const r = cli(['detect', p]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tar shard');
    expect(JSON.parse(cli(['detect', '--json', p]).stdout)).toEqual([
      expect.objectContaining({ path: p, format: 'tar' }),
    ]);
  });

  it('keeps argument order in --json and exits 2 when a path is missing', () => {
    const a = write('a.bin', 'xx');
    const r = cli(['detect', '--json', a, '/no/such/file', a]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc.map((d: { path: string }) => d.path)).toEqual([a, '/no/such/file', a]);
    expect(doc[1].format).toBeNull();
  });

  it('reports an unrecognised directory as unknown', () => {
    const d = path.join(scratch.dir, 'plain-folder');
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'notes.txt'), 'hi');
    const r = cli(['detect', '--json', d]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ path: d, format: null, kind: 'directory' });
  });
});

describe('verbs on files no format reads', () => {
  it('info/inspect/head on an unknown file: exit 1, one line naming the path', () => {
    const p = write('junk.bin', new Uint8Array(100).fill(7));
    for (const verb of ['info', 'inspect', 'head', 'cat']) {
      const r = cli([verb, p]);
      expect(r.code, verb).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${p}: unknown format (first bytes: 07 07`);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
  });

  it("a file with most of a format's magic is named as that format with a damaged signature", () => {
    // The 8-byte SCBF magic with one byte changed: detect, info and validate all say so.
    const bytes = new Uint8Array(64);
    bytes.set(new TextEncoder().encode('SCAFv1'), 0);
    const p = write('damaged.dat', bytes);
    const d = cli(['detect', p]);
    expect(d.code).toBe(1);
    expect(d.stdout).toContain(
      'BadMagic for SCBF: byte 2 is 0x41, expected 0x42 (7 of 8 signature bytes match)',
    );
    const i = cli(['info', p]);
    expect(i.code).toBe(1);
    expect(i.stderr).toContain(`${p}: BadMagic for SCBF: byte 2 is 0x41, expected 0x42`);
    const v = cli(['validate', '--json', p]);
    expect(v.code).toBe(1);
    // validate checks a near miss with the format it nearly is: that reader names the damage.
    const report = JSON.parse(v.stdout)[0];
    expect(report.format).toBe('scbf');
    expect(report.errors[0]).toMatchObject({ code: 'BadMagic', file: 'damaged.dat' });
    expect(report.errors[0].offset).toBeLessThan(8);
  });

  it('info on a tar shard points at the index', () => {
    const p = write('val_0000.tar', tiny_tar());
    const r = cli(['info', p]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tar shard');
    expect(r.stderr).toContain('binscope index');
  });

  it('validate --json on an unknown file: valid false with BadMagic, exit 1', () => {
    const p = write('junk2.bin', 'not anything');
    const r = cli(['validate', '--json', p]);
    expect(r.code).toBe(1);
    const [entry] = JSON.parse(r.stdout);
    expect(entry).toMatchObject({ path: p, format: null, valid: false, warnings: [] });
    expect(entry.errors[0]).toMatchObject({ code: 'BadMagic', offset: 0, file: 'junk2.bin' });
    expect(typeof entry.errors[0].message).toBe('string');
  });

  it('validate goes on past a missing path and exits 2', () => {
    const p = write('junk3.bin', 'zzz');
    const r = cli(['validate', '--json', '/no/such', p]);
    expect(r.code).toBe(2);
    // The missing path stays in the array (issue 21: --json errors are JSON too).
    const doc = JSON.parse(r.stdout) as Array<{ path: string; valid: boolean; errors: { code: string }[] }>;
    expect(doc.map((d) => [d.path, d.valid])).toEqual([
      ['/no/such', false],
      [p, false],
    ]);
    expect(doc[0].errors[0]).toMatchObject({ code: 'SourceError' });
    expect(r.stderr).toContain('/no/such');
  });
});
