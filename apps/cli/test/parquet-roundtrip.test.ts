/**
 * Data in and out through the built CLI, checked by pyarrow: a table pyarrow writes (nulls
 * where SCBF holds them: int32/float64, dictionary pages, several row groups, each codec) comes back from SCBF or MLDF equal to
 * itself, and an SCBF file that goes out to Parquet comes back byte for byte.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWith, pythonModules, runPython, tempDir, VECTORS } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { cli } from './helpers.js';

const scratch = tempDir('binscope-cli-roundtrip-');
afterAll(() => scratch.remove());
const out = (name: string) => path.join(scratch.dir, name);

function ok(args: string[]) {
  const run = cli(args);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

/** Writes the test tables with pyarrow and compares tables pyarrow reads back (as JSON rows). */
const SCRIPT = `
import io, json, sys
import pyarrow as pa, pyarrow.parquet as pq
from PIL import Image

def plain(v):
    if isinstance(v, bytes): return v.hex()
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    return v

def rows(path):
    return [plain(r) for r in pq.read_table(path).to_pylist()]

cmd = sys.argv[1]
if cmd == 'write':
    d = sys.argv[2]
    table = pa.table({
        'id': pa.array([1, None, 3, 4, 5, None, 7], pa.int32()),
        'value': pa.array([0.5, 1.5, None, -0.0, 1e300, 2.25, 3.0]),
        'name': pa.array(['a', 'b', 'a', '', 'ü', 'b', 'a']).dictionary_encode(),
    })
    for codec in ['snappy', 'gzip', 'zstd']:
        pq.write_table(table, f'{d}/table-{codec}.parquet', compression=codec, row_group_size=3)
    images = []
    for i in range(6):
        b = io.BytesIO()
        Image.new('RGB', (5, 4), (i * 40, 200 - i * 30, 7)).save(b, format='PNG')
        images.append(b.getvalue())
    hf = pa.table({
        'label': pa.array([0, 1, 2, 1, 0, 2], pa.int64()),
        'text': ['zero', 'one', 'two', 'one', 'zero', 'two ✓'],
        'emb': pa.array([[float(i), -1.0, 0.5] for i in range(6)], pa.list_(pa.float32())),
        'image': pa.array(images, pa.binary()),
    })
    pq.write_table(hf, f'{d}/hf.parquet', compression='zstd', row_group_size=4)
elif cmd == 'rows':
    print(json.dumps(rows(sys.argv[2]), sort_keys=True))
elif cmd == 'pixels':
    # what Pillow decodes, to compare with the IMAGE_RAW struct the MLDF round trip exports
    t = pq.read_table(sys.argv[2])
    print(json.dumps([Image.open(io.BytesIO(b)).convert('RGB').tobytes().hex() for b in t.column('image').to_pylist()]))
`;

describeWith(pythonModules(['pyarrow', 'PIL']), 'Parquet in and out, checked by pyarrow', () => {
  const script = out('roundtrip.py');
  const py = (...args: string[]) => runPython(script, args);
  fs.writeFileSync(script, SCRIPT);
  py('write', scratch.dir);

  for (const codec of ['snappy', 'gzip', 'zstd']) {
    it(`pyarrow's ${codec} table with nulls and a dictionary → SCBF → Parquet is the same table`, () => {
      const source = out(`table-${codec}.parquet`);
      ok(['convert', source, out(`t-${codec}.scbf`), '--nulls']);
      ok(['convert', out(`t-${codec}.scbf`), out(`t-${codec}.parquet`)]);
      const back = JSON.parse(py('rows', out(`t-${codec}.parquet`))) as Array<Record<string, unknown>>;
      expect(back).toEqual(JSON.parse(py('rows', source)));
      expect(back[1].id).toBeNull();
      expect(back[2].value).toBeNull();
    });
  }

  it('a Hugging Face-style table → MLDF (images decoded) → Parquet keeps labels, text, arrays and pixels', () => {
    const source = out('hf.parquet');
    ok(['convert', source, out('hf.mldf')]);
    ok(['convert', out('hf.mldf'), out('hf-back.parquet')]);
    const before = JSON.parse(py('rows', source)) as Array<Record<string, unknown>>;
    const after = JSON.parse(py('rows', out('hf-back.parquet'))) as Array<Record<string, unknown>>;
    expect(after.map((r) => [r.label, r.text, r.emb])).toEqual(before.map((r) => [r.label, r.text, r.emb]));
    const pixels = JSON.parse(py('pixels', source)) as string[];
    expect(after.map((r) => (r.image as { pixels: string }).pixels)).toEqual(pixels);
    expect(
      after.map((r) => [(r.image as { height: number }).height, (r.image as { width: number }).width]),
    ).toEqual(before.map(() => [4, 5]));
  });

  it('SCBF → Parquet → SCBF is byte-identical where the types allow, and equal in content to the source', () => {
    for (const name of ['basic/basic', 'unicode_empty/unicode_empty']) {
      const stem = path.basename(name);
      // The vectors' writer chose its own zlib blocks: byte identity holds for what binscope wrote.
      ok(['convert', path.join(VECTORS, 'scbf', `${name}.csv`), out(`${stem}.scbf`)]);
      ok(['convert', out(`${stem}.scbf`), out(`${stem}.parquet`)]);
      ok(['convert', out(`${stem}.parquet`), out(`${stem}-back.scbf`)]);
      expect(
        Buffer.compare(fs.readFileSync(out(`${stem}-back.scbf`)), fs.readFileSync(out(`${stem}.scbf`))),
      ).toBe(0);
      ok(['diff', path.join(VECTORS, 'scbf', `${name}.scbf`), out(`${stem}-back.scbf`)]);
    }
  });
});
