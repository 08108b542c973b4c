import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemorySource } from '@binscope/core';
import { writeMldf } from '@binscope/mldf';
import { encodeScbf, openScbf } from '@binscope/scbf';
import { tempDir } from '@binscope/testkit';
import { UdfBuilder } from '@binscope/udf';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';
import { VECTORS_PRESENT, validVectors } from './vectors.js';

const scratch = tempDir('binscope-cli-upstream-');
afterAll(() => scratch.remove());

function file(name: string, bytes: Uint8Array): string {
  const p = path.join(scratch.dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

/** The upstream SCBF writer's quirk (S4) by a byte patch: str_uncomp_size = the offsets block offset. */
async function withUpstreamStrUncomp(bytes: Uint8Array): Promise<Uint8Array> {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const reader = await openScbf(new MemorySource(bytes));
  for (const column of reader.columns) {
    if (column.type !== 'utf8') continue;
    view.setBigUint64(column.blocks[1].fieldOffset, BigInt(column.blocks[0].offset), true);
  }
  return out;
}

const CSV =
  'id,name,score,city\n1,Alice,91.5,Oslo\n2,Bob,88.0,"Sao, Paulo"\n3,,-0.0,Zürich\n4,"Q ""x""",1.5e+20,\n';

describe('SCBF files as the upstream writer makes them (S4)', () => {
  it('convert --zlib python writes the upstream bytes; the S4-patched file opens, validates, cats and converts', async () => {
    const csv = file('people.csv', new TextEncoder().encode(CSV));
    const ours = path.join(scratch.dir, 'people.scbf');
    const made = cli(['convert', csv, ours, '--zlib', 'python']);
    expect(made.code, made.stderr).toBe(0);
    const upstream = file(
      'people.up.scbf',
      await withUpstreamStrUncomp(new Uint8Array(fs.readFileSync(ours))),
    );

    const v = cli(['validate', '--json', upstream]);
    expect(v.code, v.stderr).toBe(0);
    const [report] = JSON.parse(v.stdout);
    expect(report.valid).toBe(true);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w: { code: string }) => w.code)).toEqual(['S4']);

    const cat = cli(['cat', '--format', 'jsonl', upstream]);
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout.trim().split('\n')).toHaveLength(4);
    expect(cat.stderr).toContain('warning: S4');

    const back = path.join(scratch.dir, 'people.back.csv');
    const conv = cli(['convert', upstream, back]);
    expect(conv.code, conv.stderr).toBe(0);
    expect(conv.stderr).toContain('warning: S4');
    expect(fs.readFileSync(back, 'utf8')).toBe(CSV);
  });

  it.skipIf(!VECTORS_PRESENT)('convert --zlib python reproduces every vector SCBF file byte for byte', () => {
    const cases = validVectors('scbf').filter((c) => typeof c.expected.source_csv === 'string');
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const out = path.join(scratch.dir, `${c.name}.py.scbf`);
      const r = cli(['convert', path.join(c.dir, c.expected.source_csv as string), out, '--zlib', 'python']);
      expect(r.code, r.stderr).toBe(0);
      expect(Buffer.compare(fs.readFileSync(out), fs.readFileSync(c.target)), c.name).toBe(0);
    }
  });

  it('--zlib is refused for other conversions', () => {
    const r = cli([
      'convert',
      path.join(scratch.dir, 'people.scbf'),
      path.join(scratch.dir, 'x.csv'),
      '--zlib',
      'python',
    ]);
    expect(r.code).toBe(2);
  });
});

describe('cat keeps -0.0 and writes SCBF CSV in the S8 dialect', () => {
  it('SCBF: cat --format csv is byte for byte what convert writes (6.0, nan, 1.5e+20, -0.0)', async () => {
    const scbf = file(
      'floats.scbf',
      await encodeScbf([
        { name: 'x', values: Float64Array.of(6, Number.NaN, 1.5e20, -0, 0.1, 1e-5) },
        { name: 's', values: ['a', 'b,c', '', 'd"e', 'f', 'g'] },
      ]),
    );
    const out = path.join(scratch.dir, 'floats.csv');
    expect(cli(['convert', scbf, out]).code).toBe(0);
    const converted = fs.readFileSync(out, 'utf8');
    expect(converted).toBe('x,s\n6.0,a\nnan,"b,c"\n1.5e+20,\n-0.0,"d""e"\n0.1,f\n1e-05,g\n');
    const cat = cli(['cat', '--format', 'csv', scbf]);
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout).toBe(converted);
    const window = cli(['cat', '--format', 'csv', '--offset', '2', '-n', '2', '--columns', 'x', scbf]);
    expect(window.stdout).toBe('x\n1.5e+20\n-0.0\n');
  });

  it('SCBF: cat --json and jsonl write -0.0, which parses back to -0', async () => {
    const scbf = file('zero.scbf', await encodeScbf([{ name: 'x', values: Float64Array.of(-0, 0, 2.5) }]));
    const jsonl = cli(['cat', '--format', 'jsonl', scbf]);
    expect(jsonl.stdout).toBe('{"x":-0.0}\n{"x":0}\n{"x":2.5}\n');
    expect(Object.is(JSON.parse(jsonl.stdout.split('\n')[0]).x, -0)).toBe(true);
    const json = cli(['cat', '--json', scbf]);
    expect(Object.is(JSON.parse(json.stdout)[0].x, -0)).toBe(true);
  });

  it('UDF and MLDF: cat --json, jsonl and csv keep the sign of zero', async () => {
    const udf = new UdfBuilder({ id: 'ZERO' });
    udf.setRoot(udf.dataset({ id: 'D' }).table('f', { prim: 'f64', data: [-0, 1] }));
    const udfPath = file('zero.udf', udf.toBytes());
    const mldfPath = file(
      'zero.mldf',
      await writeMldf([{ name: 'v', type: 'FLOAT' }], [{ v: -0 }, { v: 0.5 }]),
    );
    for (const p of [udfPath, mldfPath]) {
      const jsonl = cli(['cat', '--format', 'jsonl', p]);
      expect(jsonl.code, jsonl.stderr).toBe(0);
      expect(jsonl.stdout, p).toContain('-0.0');
      const json = cli(['cat', '--json', p]);
      expect(json.stdout, p).toContain('-0.0');
      JSON.parse(json.stdout);
    }
    const csv = cli(['cat', '--format', 'csv', mldfPath]);
    expect(csv.stdout.split('\n')[1]).toContain('-0');
  });
});

describe('index: T4 shard order and linked shards', () => {
  it('x_5.tar, x_5-b.tar, x_10.tar get fids in upstream order, also when they are links', async () => {
    const { tarBytes } = await import('@binscope/testkit');
    const store = path.join(scratch.dir, 'store');
    const dir = path.join(scratch.dir, 'fold');
    fs.mkdirSync(store);
    fs.mkdirSync(dir);
    for (const name of ['x_5.tar', 'x_5-b.tar', 'x_10.tar']) {
      const key = `k-${name.slice(0, -4)}`;
      fs.writeFileSync(
        path.join(store, name),
        tarBytes([{ name: `${key}.txt`, data: new TextEncoder().encode(name) }]),
      );
      fs.symlinkSync(path.join(store, name), path.join(dir, name));
    }
    const r = cli(['index', dir, '--fold', 'x', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).shards).toEqual(['x_10.tar', 'x_5.tar', 'x_5-b.tar']);
    const got = cli(['get', path.join(dir, 'x.taridx'), 'k-x_5-b', '--ext', 'txt']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe('x_5-b.tar');
  });
});

describe('folders whose files are symbolic links (SECURITY.md)', () => {
  it.skipIf(!VECTORS_PRESENT)('an SCDL archive made of links to its files validates and reads', () => {
    const v = validVectors('scdl').find((c) => fs.statSync(c.target).isDirectory());
    expect(v).toBeDefined();
    const linked = path.join(scratch.dir, 'linked-archive');
    const walk = (rel: string) => {
      fs.mkdirSync(path.join(linked, rel), { recursive: true });
      for (const entry of fs.readdirSync(path.join(v!.target, rel), { withFileTypes: true })) {
        const child = path.join(rel, entry.name);
        if (entry.isDirectory()) walk(child);
        else fs.symlinkSync(path.join(v!.target, child), path.join(linked, child));
      }
    };
    walk('');
    const r = cli(['validate', '--json', linked]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ format: 'scdl', valid: true });
    const original = cli(['cat', '--format', 'jsonl', v!.target]);
    expect(cli(['cat', '--format', 'jsonl', linked]).stdout).toBe(original.stdout);
  });
});

describe('cat on a UDF file with one bad table (U15)', () => {
  it('prints every table, the bad one as an error record, names it on stderr and exits 1', async () => {
    const builder = new UdfBuilder({ id: 'BAD' });
    const root = builder.dataset({ id: 'ROOT' });
    root.table('first', { prim: 'u8', data: [1, 2] });
    root.table('middle', { prim: 'u8', data: [3, 4] });
    root.text('last', 'ok');
    builder.setRoot(root);
    const bytes = builder.toBytes();
    const { openUdf } = await import('@binscope/udf');
    const intact = (await (await openUdf(new MemorySource(bytes))).root())!;
    bytes[intact.table('middle')!.descriptorOffset + 4] |= 0x40; // a reserved type_info bit
    const p = file('one-bad-table.udf', bytes);

    const r = cli(['cat', '--format', 'jsonl', p]);
    expect(r.code).toBe(1);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((x) => x.table)).toEqual(['first', 'middle', 'last']);
    expect(records[1].error.code).toBe('ReservedNonZero');
    expect(r.stderr).toContain(`${p}: record 1: ReservedNonZero:`);

    const good = cli(['cat', '--format', 'jsonl', file('good.udf', builder.toBytes())]);
    expect(good.code, good.stderr).toBe(0);
  });
});
