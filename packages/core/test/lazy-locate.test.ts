import { describe, expect, it } from 'vitest';
import {
  definePlugin,
  fileTarget,
  type InspectNode,
  MemorySource,
  markProblem,
  node,
  nodesAlong,
  Phase,
  type Problem,
  type ProblemList,
  type TargetOf,
} from '../src/index.js';

// A table of ROWS 8-byte rows (fields a, b), drawn as lazy children, with one bad value in row
// BAD's b and a defect of the table as a whole (which the tree marks on the table itself).
const ROWS = 100_000;
const BAD = 37_123;
const whole: Problem = { code: 'CountMismatch', message: 'the table as a whole is wrong', offset: 0 };

function rowsPlugin(loaded: { rows: number }) {
  return definePlugin<{ size: number }, never, 'file'>({
    specificationVersion: 2,
    id: 'rows',
    title: 'Rows',
    kind: 'file',
    extensions: ['rows'],
    magic: [],
    parse: async (input: TargetOf<'file'>, problems: ProblemList) => {
      problems.error('CountMismatch', whole.message, { offset: 0, phase: Phase.header });
      problems.error('InvalidValue', `row ${BAD}: b is bad`, { offset: 8 * BAD + 4, phase: Phase.bounds });
      return { size: input.source.size };
    },
    reader: () => {
      throw new Error('not read in this test');
    },
    tree: (parsed: { size: number }, problems: ProblemList) => {
      const rows: InspectNode = node('rows', 'table', 0, parsed.size, {
        lazy: {
          count: ROWS,
          load: async (start, end) => {
            loaded.rows += end - start;
            return Array.from({ length: end - start }, (_, k) => {
              const at = 8 * (start + k);
              return node(`row ${start + k}`, 'row', at, 8, {
                children: [node('a', 'field', at, 4), node('b', 'field', at + 4, 4)],
              });
            });
          },
        },
      });
      for (const p of problems.report().errors) if (p.code === whole.code) markProblem(rows, p);
      return node('t.rows', 'file', 0, parsed.size, { children: [rows] });
    },
  } as never);
}

describe('inspect mode carries a problem into the lazy row that holds it', () => {
  it('locates the field in its row (by name and position), loading a handful of rows', async () => {
    const loaded = { rows: 0 };
    const plugin = rowsPlugin(loaded);
    const result = await plugin.inspectTarget(
      fileTarget(new MemorySource(new Uint8Array(8 * ROWS), 't.rows')),
    );
    const bad = result.located.find((p) => p.code === 'InvalidValue')!;
    expect(bad.path).toBe(`rows/row ${BAD}/b`);
    expect(bad.indexPath).toEqual([0, BAD, 1]);
    const field = (await nodesAlong(result.root, bad.indexPath)).at(-1)!;
    expect({ name: field.name, offset: field.offset, length: field.length }).toEqual({
      name: 'b',
      offset: 8 * BAD + 4,
      length: 4,
    });
    // The loaded field carries the mark (what the tree shows on it).
    expect(field.problems?.map((p) => p.code)).toEqual(['InvalidValue']);
    // A binary search: about log2(ROWS) rows read, not the table.
    expect(loaded.rows).toBeLessThan(64);
  });

  it('leaves a problem the parser marked on the table itself where it put it', async () => {
    const plugin = rowsPlugin({ rows: 0 });
    const result = await plugin.inspectTarget(
      fileTarget(new MemorySource(new Uint8Array(8 * ROWS), 't.rows')),
    );
    const table = result.located.find((p) => p.code === whole.code)!;
    expect(table.path).toBe('rows');
    expect(table.indexPath).toEqual([0]);
  });
});
