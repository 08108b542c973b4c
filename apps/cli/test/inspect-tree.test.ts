import { type InspectNode, inspectResult, node, type Problem } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { findNode } from '../src/commands/inspect.js';
import { jsonProblems, shownTree, stylesFor, treeLines } from '../src/inspect-tree.js';

// A partial tree as a format's inspect mode returns it: a defect four levels down, a warning on
// a sibling branch, and a table of 50 rows with the bad one past any sensible --children.
const badCrc: Problem = {
  code: 'InvalidValue',
  message: 'crc is 0x1, expected 0x2',
  offset: 40,
  file: 'deep.bin',
};
const oddPad: Problem = {
  code: 'ReservedNonZero',
  message: 'padding byte is 0x7',
  offset: 12,
  file: 'deep.bin',
};
const badRow: Problem = {
  code: 'OutOfBounds',
  message: 'row 42 points past the end',
  offset: 1042,
  file: 'deep.bin',
};

function deepTree(): InspectNode {
  const rows = Array.from({ length: 50 }, (_, i) => node(`row ${i}`, 'row', 1000 + i, 1));
  return node('deep.bin', 'file', 0, 2000, {
    file: 'deep.bin',
    children: [
      node('header', 'header', 0, 16, {
        children: [node('magic', 'field', 0, 8), node('padding', 'padding', 8, 8)],
      }),
      node('body', 'section', 16, 984, {
        children: [
          node('chunk', 'block', 16, 100, {
            children: [node('trailer', 'block', 32, 16, { children: [node('crc', 'field', 40, 4)] })],
          }),
        ],
      }),
      node('rows', 'table', 1000, 50, { children: rows }),
    ],
  });
}

function result() {
  return inspectResult(deepTree(), { valid: false, errors: [badCrc, badRow], warnings: [oddPad] });
}

describe('inspect renderer on a hand-made partial tree', () => {
  it('marks each problem on its deepest node, with class, offset and message below it', async () => {
    const r = result();
    const lines = treeLines(await shownTree(r.root, Number.POSITIVE_INFINITY, 100), r.errors);
    const crcLine = lines.findIndex((l) => /^\s+crc\s/.test(l));
    expect(lines[crcLine]).toMatch(/✗ InvalidValue$/);
    expect(lines[crcLine + 1]).toBe('          ✗ error InvalidValue at byte 40: crc is 0x1, expected 0x2');
    const padLine = lines.findIndex((l) => /^\s+padding\s/.test(l));
    expect(lines[padLine]).toMatch(/! ReservedNonZero$/);
    expect(lines[padLine + 1]).toContain('! warning ReservedNonZero at byte 12: padding byte is 0x7');
    // Unmarked nodes carry no mark.
    expect(lines.find((l) => /^\s+magic\s/.test(l))).not.toMatch(/✗|!/);
  });

  it('shows the path to every problem below --depth and past --children', async () => {
    const r = result();
    const lines = treeLines(await shownTree(r.root, 1, 10), r.errors);
    const names = lines.map((l) => l.trim().split(/\s{2,}/)[0]);
    // Depth 1 stops at the root's children, but the defects' branches go on down.
    expect(names).toEqual(expect.arrayContaining(['body', 'chunk', 'trailer', 'crc', 'padding', 'row 42']));
    // What is not on a defect's path stays hidden and counted.
    expect(names).not.toContain('magic');
    expect(names).not.toContain('row 11');
    expect(lines).toContain('    … 49 more'); // of the rows, only row 42 is shown
    // With the rows in depth, --children 10 shows ten of them, and row 42 after them.
    const wider = treeLines(await shownTree(r.root, 2, 10), r.errors).map((l) => l.trim().split(/\s{2,}/)[0]);
    expect(wider.slice(wider.indexOf('row 0'), wider.indexOf('row 0') + 13)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `row ${i}`),
      'row 42',
      '✗ error OutOfBounds at byte 1042: row 42 points past the end',
      '… 39 more',
    ]);
  });

  it('gives --json problems with node paths that --hex resolves', async () => {
    const r = result();
    const problems = jsonProblems(r.located, 'deep.bin');
    // Check order, as the README promises: the errors as the report ranks them, then warnings.
    expect(problems.map((p) => [p.code, p.severity, p.path])).toEqual([
      ['InvalidValue', 'error', 'body/chunk/trailer/crc'],
      ['OutOfBounds', 'error', 'rows/row 42'],
      ['ReservedNonZero', 'warning', 'header/padding'],
    ]);
    for (const p of problems) {
      expect(Object.keys(p).sort()).toEqual(
        ['code', 'file', 'format', 'indexPath', 'message', 'offset', 'path', 'severity'].sort(),
      );
      const { node: found } = await findNode(r.root, p.path);
      expect(found.problems?.map((q) => q.code)).toContain(p.code);
    }
    const tree = await shownTree(r.root, 0, 100);
    const crc = tree.children?.[1]?.children?.[0]?.children?.[0]?.children?.[0];
    expect(crc?.name).toBe('crc');
    expect(crc?.problems).toEqual([badCrc]);
  });

  it('colours only on a terminal without NO_COLOR, and the marks are there either way', async () => {
    const r = result();
    const tree = await shownTree(r.root, Number.POSITIVE_INFINITY, 100);
    const plain = treeLines(tree, r.errors, stylesFor(false, {}));
    const tty = treeLines(tree, r.errors, stylesFor(true, {}));
    const noColor = treeLines(tree, r.errors, stylesFor(true, { NO_COLOR: '1' }));
    expect(plain.join('\n')).not.toContain('\u001b[');
    expect(noColor).toEqual(plain);
    expect(tty.join('\n')).toContain('\u001b[1;31m✗ InvalidValue\u001b[0m');
    // eslint-disable-next-line no-control-regex
    expect(tty.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''))).toEqual(plain);
  });
});

describe('a tree deeper than the call stack', () => {
  it('is marked, cut and printed with loops: the defect at the bottom still shows', async () => {
    const depth = 100_000;
    const root = node('n0', 'file', 0, depth);
    let at = root;
    for (let i = 1; i < depth; i++) {
      const child = node(`n${i}`, 'field', i, depth - i);
      at.children = [child];
      at = child;
    }
    const bottom: Problem = { code: 'InvalidValue', message: 'bad', offset: depth - 1 };
    at.problems = [bottom];
    const tree = await shownTree(root, 2, 10);
    let shown = tree;
    let levels = 1;
    while (shown.children?.[0]) {
      shown = shown.children[0];
      levels++;
    }
    expect(levels).toBe(depth);
    expect(shown.problems).toEqual([bottom]);
    const lines = treeLines(tree, [bottom]);
    expect(lines.length).toBe(depth + 1);
    expect(lines[lines.length - 1]).toMatch(/✗ error InvalidValue at byte 99999: bad$/);
  }, 120_000);
});
