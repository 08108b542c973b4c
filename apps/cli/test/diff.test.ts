import * as fs from 'node:fs';
import * as path from 'node:path';
import { openDirectory, openFile } from '@binscope/core/node';
import { openMldf } from '@binscope/mldf';
import { type ColumnInput, encodeScbf, openScbf, type ScbfReader, Utf8Column } from '@binscope/scbf';
import { openScdl } from '@binscope/scdl';
import { TaridxReader } from '@binscope/taridx';
import { openUdf } from '@binscope/udf';
import { tempDir, describeWith } from '@binscope/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { Difference, DiffLocation, DiffReport } from '../src/commands/diff.js';
import { cli } from './helpers.js';
import { VECTORS, VECTORS_NEEDED, type ValidVector, validVectors } from './vectors.js';

/**
 * `binscope diff` on every format, through the plugins' contentFields/locateRecord: a vector
 * against itself, against a copy re-encoded by our writer, and against a copy with one value
 * changed, where the report must name the value and where it is stored in both files.
 */

const scratch = tempDir('binscope-cli-diff-');
afterAll(() => scratch.remove());

function fresh(name: string): string {
  const dir = path.join(scratch.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function diff(a: string, b: string): { code: number | null; report: DiffReport; stderr: string } {
  const r = cli(['diff', a, b, '--json']);
  expect(r.stderr).toBe('');
  return { code: r.code, report: JSON.parse(r.stdout) as DiffReport, stderr: r.stderr };
}

function only(report: DiffReport, p: string): Difference {
  const found = report.differences.filter((d) => d.path === p);
  expect(found, `differences: ${report.differences.map((d) => d.path).join(', ')}`).toHaveLength(1);
  return found[0];
}

/** A copy of `file` with `edit` applied to its bytes, in a fresh folder (same name). */
function editedCopy(file: string, dirName: string, edit: (bytes: Uint8Array) => void): string {
  const bytes = new Uint8Array(fs.readFileSync(file));
  edit(bytes);
  const out = path.join(fresh(dirName), path.basename(file));
  fs.writeFileSync(out, bytes);
  return out;
}

/** The tar shards of a TARIDX vector, beside a copy of its index: both sides read keys the same way. */
function copyShards(from: string, to: string): void {
  for (const f of fs.readdirSync(from).filter((f) => f.endsWith('.tar')))
    fs.copyFileSync(path.join(from, f), path.join(to, f));
}

const FORMATS = ['scbf', 'udf', 'mldf', 'taridx', 'scdl'] as const;

describe('diff --json and the sign of zero', () => {
  it('a float that changed from 0 to -0 is a difference whose values read back as 0 and -0', async () => {
    const dir = fresh('negative-zero');
    const file = (name: string, x: number) => {
      const out = path.join(dir, name);
      return encodeScbf([{ name: 'x', type: 'float64', values: [1.5, x] }]).then((bytes) => {
        fs.writeFileSync(out, bytes);
        return out;
      });
    };
    const { code, report } = diff(await file('zero.scbf', 0), await file('minus-zero.scbf', -0));
    expect(code).toBe(1);
    const d = only(report, 'records[1].x');
    expect(Object.is(d.a.value, 0)).toBe(true);
    expect(Object.is(d.b.value, -0)).toBe(true);
  });
});

describeWith(VECTORS_NEEDED, `diff on the vectors in ${VECTORS}`, () => {
  describe('each vector equals itself in content, exit 0', () => {
    for (const format of FORMATS) {
      for (const v of validVectors(format)) {
        it(`${format}/${v.name}`, () => {
          const { code, report } = diff(v.target, v.target);
          expect(code).toBe(0);
          expect(report).toMatchObject({ equal: true, differences: [], truncated: false });
          expect(report.a.format).toBe(format);
        });
      }
    }
  });

  describe('scbf', () => {
    const v = (): ValidVector => {
      const found = validVectors('scbf').find((c) => c.name === 'basic') ?? validVectors('scbf')[0];
      expect(found).toBeDefined();
      return found;
    };

    async function columnsOf(reader: ScbfReader): Promise<ColumnInput[]> {
      const out: ColumnInput[] = [];
      for (const c of reader.columns) {
        const values = await reader.readColumn(c.index);
        out.push({
          name: c.name,
          type: c.type,
          values: values instanceof Utf8Column ? values.toArray() : values.slice(),
        });
      }
      return out;
    }

    async function write(columns: ColumnInput[], level: number, dir: string, name: string): Promise<string> {
      const out = path.join(fresh(dir), name);
      fs.writeFileSync(out, await encodeScbf(columns, { level }));
      return out;
    }

    it('a copy written by our writer at other zlib levels is equal in content, exit 0', async () => {
      const reader = await openScbf(openFile(v().target));
      const columns = await columnsOf(reader);
      await reader.close();
      for (const level of [0, 1, 9]) {
        const copy = await write(columns, level, `scbf-level-${level}`, 'copy.scbf');
        expect(Buffer.compare(fs.readFileSync(copy), fs.readFileSync(v().target))).not.toBe(0);
        const { code, report } = diff(v().target, copy);
        expect(code, JSON.stringify(report.differences)).toBe(0);
        expect(report.equal).toBe(true);
      }
    });

    it('one changed value is one record difference, located at its column block in both files', async () => {
      const a = await openScbf(openFile(v().target));
      const columns = await columnsOf(a);
      const row = Math.min(2, a.rowCount - 1);
      const target = Math.max(
        0,
        columns.findIndex((c) => c.type === 'float64'),
      );
      const changed = columns.map((c) => ({
        ...c,
        values: Array.from(c.values as ArrayLike<number | string>),
      })) as ColumnInput[];
      const values = changed[target].values as (number | string)[];
      values[row] = typeof values[row] === 'string' ? `${values[row]}!` : (values[row] as number) + 1;
      const copy = await write(changed, 9, 'scbf-changed', 'changed.scbf');
      const b = await openScbf(openFile(copy));

      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      expect(report.equal).toBe(false);
      const name = columns[target].name;
      const d = only(report, `records[${row}].${name}`);
      expect(d.kind).toBe('record');
      for (const [side, reader] of [
        [d.a, a],
        [d.b, b],
      ] as const) {
        const block = reader.column(name).blocks.at(-1)!;
        expect(side.location).toMatchObject({
          record: row,
          field: name,
          offset: block.offset,
          length: block.compressedSize,
        });
      }
      expect(report.differences.every((x) => x.kind === 'record')).toBe(true);
      await a.close();
      await b.close();
    });

    it('a renamed column is a schema and metadata difference at its name bytes in both files', async () => {
      const a = await openScbf(openFile(v().target));
      const columns = await columnsOf(a);
      const renamed = columns.map((c, i) => (i === 0 ? { ...c, name: `${c.name}_x` } : c));
      const copy = await write(renamed, 6, 'scbf-renamed', 'renamed.scbf');
      const b = await openScbf(openFile(copy));
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, 'columns[0].name');
      expect(d).toMatchObject({
        kind: 'structure',
        a: { value: columns[0].name },
        b: { value: `${columns[0].name}_x` },
      });
      expect(d.a.location).toMatchObject({
        offset: a.columns[0].entryOffset + 2,
        length: a.columns[0].nameLength,
      });
      expect(d.b.location).toMatchObject({
        offset: b.columns[0].entryOffset + 2,
        length: b.columns[0].nameLength,
      });
      const schema = only(report, 'schema');
      expect(schema.a.location).toMatchObject({ offset: 12, length: a.header.schemaLength });
      expect(schema.b.location).toMatchObject({ offset: 12, length: b.header.schemaLength });
      expect(report.differences.some((x) => x.path === 'counts.rows')).toBe(false);
      await a.close();
      await b.close();
    });
  });

  describe('udf', () => {
    const v = (): ValidVector => {
      const found = validVectors('udf').find((c) => c.name === 'primitives') ?? validVectors('udf')[0];
      expect(found).toBeDefined();
      return found;
    };

    it('an edited byte of a table value is that record, located at the table data in both files', async () => {
      const reader = await openUdf(openFile(v().target));
      let record = 0;
      let chosen: { record: number; offset: number; size: number } | undefined;
      for await (const d of reader.walk()) {
        for (const t of d.tables) {
          if (!chosen && t.prim !== 'custom' && t.hint === 'none' && t.dataSize > 0)
            chosen = { record, offset: t.dataOffset, size: t.dataSize };
          record++;
        }
      }
      await reader.close();
      expect(chosen).toBeDefined();
      const { offset, size } = chosen!;
      const copy = editedCopy(v().target, 'udf-value', (bytes) => {
        bytes[offset] ^= 0x01;
      });
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `records[${chosen!.record}].values`);
      for (const side of [d.a, d.b])
        expect(side.location).toMatchObject({ record: chosen!.record, offset, length: size });
      expect(report.differences).toHaveLength(1);
    });

    it('an edited header id is header.id at bytes 4..8 in both files', () => {
      const copy = editedCopy(v().target, 'udf-id', (bytes) => {
        bytes[4] = bytes[4] === 0x5a ? 0x59 : 0x5a;
      });
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, 'header.id');
      expect(d.kind).toBe('header');
      for (const side of [d.a, d.b]) expect(side.location).toMatchObject({ offset: 4, length: 4 });
      expect(report.differences).toHaveLength(1);
    });
  });

  describe('mldf', () => {
    const v = (): ValidVector => {
      const found = validVectors('mldf').find((c) => c.name === 'basic_mixed') ?? validVectors('mldf')[0];
      expect(found).toBeDefined();
      return found;
    };

    it("an edited INT value is that sample's field, located at its metadata struct in both files", async () => {
      const reader = await openMldf(openFile(v().target));
      const field = reader.fields.find((f) => f.type === 'INT');
      expect(field, 'the vector has an INT field').toBeDefined();
      const sample = Math.min(1, reader.numSamples - 1);
      const info = await reader.valueInfo(sample, field!.name);
      await reader.close();
      const copy = editedCopy(v().target, 'mldf-int', (bytes) => {
        bytes[info.metadataOffset] ^= 0x01;
      });
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `records[${sample}].${field!.name}`);
      for (const side of [d.a, d.b]) {
        expect(side.location).toMatchObject({
          record: sample,
          field: field!.name,
          offset: info.metadataOffset,
          length: field!.metadataSize,
        });
      }
      expect(report.differences).toHaveLength(1);
    });

    it('an edited byte of a BYTES payload is located at the payload in both files', async () => {
      const reader = await openMldf(openFile(v().target));
      const field = reader.fields.find((f) => f.type === 'BYTES');
      expect(field, 'the vector has a BYTES field').toBeDefined();
      let sample = -1;
      let info: Awaited<ReturnType<typeof reader.valueInfo>> | undefined;
      for (let i = 0; i < reader.numSamples && sample < 0; i++) {
        const candidate = await reader.valueInfo(i, field!.name);
        if (candidate.size > 0) {
          sample = i;
          info = candidate;
        }
      }
      await reader.close();
      expect(info).toBeDefined();
      const copy = editedCopy(v().target, 'mldf-bytes', (bytes) => {
        bytes[info!.ptr] ^= 0xff;
      });
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `records[${sample}].${field!.name}.sha256`);
      for (const side of [d.a, d.b])
        expect(side.location).toMatchObject({ field: field!.name, offset: info!.ptr, length: info!.size });
    });
  });

  describe('taridx', () => {
    const v = (): ValidVector => {
      const found =
        validVectors('taridx').find((c) => c.name === 'ustar_flat_2shards') ?? validVectors('taridx')[0];
      expect(found).toBeDefined();
      return found;
    };

    it("an edited member size is that sample's members, located at its rows in both files", async () => {
      const reader = await TaridxReader.open(openFile(v().target));
      const sample = await reader.sample(0);
      const last = sample.members.at(-1)!;
      const first = sample.members[0].row;
      const offArr = reader.header.offArr;
      await reader.close();
      const dir = fresh('taridx-size');
      copyShards(v().dir, dir);
      const bytes = new Uint8Array(fs.readFileSync(v().target));
      // Row field `size` (u64 at 10): the last member, so the key (read through the first) is intact.
      bytes[offArr + last.row * 32 + 10] ^= 0x01;
      const copy = path.join(dir, path.basename(v().target));
      fs.writeFileSync(copy, bytes);

      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `records[0].members[${sample.members.length - 1}].size`);
      expect(d.a.value).toBe(last.size);
      expect(d.b.value).toBe(last.size ^ 1);
      for (const side of [d.a, d.b])
        expect(side.location).toMatchObject({
          record: 0,
          offset: offArr + first * 32,
          length: expect.any(Number),
        });
      const at = d.a.location as DiffLocation;
      expect(at.offset! + at.length!).toBeGreaterThan(offArr + last.row * 32 + 10);
      expect(report.differences).toHaveLength(1);
    });

    it('an edited extension is extensions[i] at its bytes in the extension block', async () => {
      const reader = await TaridxReader.open(openFile(v().target));
      const ext = reader.extensions.findIndex((e) => e.length > 0);
      expect(ext).toBeGreaterThanOrEqual(0);
      const start = 64 + reader.extensions.slice(0, ext).reduce((n, e) => n + Buffer.byteLength(e) + 1, 0);
      const length = Buffer.byteLength(reader.extensions[ext]);
      await reader.close();
      const copy = editedCopy(v().target, 'taridx-ext', (bytes) => {
        bytes[start] = bytes[start] === 0x7a ? 0x79 : 0x7a;
      });
      copyShards(v().dir, path.dirname(copy));
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `extensions[${ext}]`);
      for (const side of [d.a, d.b]) expect(side.location).toMatchObject({ offset: start, length });
    });
  });

  describe('scdl', () => {
    const v = (): ValidVector => {
      const found =
        validVectors('scdl').find((c) => c.name === 'basic_float32_raw') ?? validVectors('scdl')[0];
      expect(found).toBeDefined();
      return found;
    };

    it("an edited value in data.npy is that row's values, located at its slice in both archives", async () => {
      const reader = await openScdl(openDirectory(v().target));
      let row = 0;
      while (row < reader.numRows && (await reader.rowExtent(row))[1] === (await reader.rowExtent(row))[0])
        row++;
      expect(row).toBeLessThan(reader.numRows);
      const [start, end] = await reader.rowExtent(row);
      const itemSize = reader.data.itemSize;
      await reader.close();
      const copy = path.join(fresh('scdl-value'), 'archive');
      fs.cpSync(v().target, copy, { recursive: true });
      const data = path.join(copy, 'data.npy');
      const bytes = fs.readFileSync(data);
      // The most significant byte of a little-endian value: a large, certain change.
      bytes[start * itemSize + itemSize - 1] ^= 0x40;
      fs.writeFileSync(data, bytes);

      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, `records[${row}].values`);
      for (const side of [d.a, d.b]) {
        expect(side.location).toMatchObject({
          record: row,
          field: 'values',
          file: 'data.npy',
          offset: start * itemSize,
          length: (end - start) * itemSize,
        });
      }
      expect(report.differences).toHaveLength(1);
    });

    it('an edited obs label is obs.labels, located in obs_features/labels.json', () => {
      const labels = path.join(v().target, 'obs_features', 'labels.json');
      if (!fs.existsSync(labels)) {
        console.warn(
          `${v().name}: no obs_features/labels.json; checking that an archive copy is equal instead`,
        );
        const copy = path.join(fresh('scdl-copy'), 'archive');
        fs.cpSync(v().target, copy, { recursive: true });
        expect(diff(v().target, copy).code).toBe(0);
        return;
      }
      const copy = path.join(fresh('scdl-label'), 'archive');
      fs.cpSync(v().target, copy, { recursive: true });
      const parsed = JSON.parse(fs.readFileSync(labels, 'utf8')) as string[];
      expect(parsed.length).toBeGreaterThan(0);
      parsed[0] = `${parsed[0]}-changed`;
      const text = JSON.stringify(parsed);
      fs.writeFileSync(path.join(copy, 'obs_features', 'labels.json'), text);
      const { code, report } = diff(v().target, copy);
      expect(code).toBe(1);
      const d = only(report, 'obs.labels');
      expect(d.kind).toBe('structure');
      expect(d.a.location).toMatchObject({
        file: 'obs_features/labels.json',
        offset: 0,
        length: fs.statSync(labels).size,
      });
      expect(d.b.location).toMatchObject({
        file: 'obs_features/labels.json',
        offset: 0,
        length: Buffer.byteLength(text),
      });
    });
  });
});
