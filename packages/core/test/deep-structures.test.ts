import {
  type InspectNode,
  inspectResult,
  MAX_JSON_DEPTH,
  markProblems,
  node,
  parseBoundedJson,
  toPlainTree,
  walk,
} from '@binscope/core';
import { maxOf, minOf } from '@binscope/core/binary';
import { describe, expect, it } from 'vitest';

// Deeper than any call stack: each tree function must loop, not recurse.
const DEPTH = 200_000;

function chain(depth: number): { root: InspectNode; leaf: InspectNode } {
  const root = node('n0', 'file', 0, depth);
  let at = root;
  for (let i = 1; i < depth; i++) {
    const child = node(`n${i}`, 'field', i, depth - i);
    at.children = [child];
    at = child;
  }
  return { root, leaf: at };
}

describe('tree functions on a tree deeper than the call stack', () => {
  it('walk visits every node in order, with its path', () => {
    const { root } = chain(DEPTH);
    let visited = 0;
    let outOfOrder = 0;
    let deepestPath = 0;
    walk(root, (n, path) => {
      if (n.name !== `n${visited}`) outOfOrder++;
      visited++;
      deepestPath = path.length;
      return undefined;
    });
    expect(visited).toBe(DEPTH);
    expect(outOfOrder).toBe(0);
    expect(deepestPath).toBe(DEPTH - 1);
  }, 120_000);

  it('toPlainTree copies every level, and cuts at a depth', () => {
    const { root } = chain(DEPTH);
    let plain = toPlainTree(root);
    let levels = 1;
    while (plain.children) {
      plain = plain.children[0];
      levels++;
    }
    expect(levels).toBe(DEPTH);
    expect(plain.name).toBe(`n${DEPTH - 1}`);
    const cut = toPlainTree(root, 2);
    expect(cut.children?.[0].children?.[0].childCount).toBe(1);
    expect(cut.children?.[0].children?.[0].children).toBeUndefined();
  }, 120_000);

  it('inspectResult finds the node of a problem at the bottom and names its path', () => {
    const { root } = chain(DEPTH);
    const problem = { code: 'InvalidValue' as const, message: 'bad', offset: DEPTH - 1 };
    const result = inspectResult(root, { valid: false, errors: [problem], warnings: [] });
    expect(result.located).toHaveLength(1);
    expect(result.located[0].indexPath.length).toBe(DEPTH - 1);
    expect(result.located[0].path.endsWith(`/n${DEPTH - 1}`)).toBe(true);
  }, 120_000);

  it('markProblems marks a problem at the bottom on the deepest node', () => {
    const { root, leaf } = chain(DEPTH);
    const problem = { code: 'InvalidValue' as const, message: 'bad', offset: DEPTH - 1 };
    markProblems(root, { valid: false, errors: [problem], warnings: [] });
    expect(leaf.problems?.map((p) => p.message)).toEqual(['bad']);
    expect(root.problems).toBeUndefined();
  }, 120_000);
});

describe('lists as long as a file says', () => {
  it('maxOf/minOf take a million items (Math.max(...list) overflows the stack)', () => {
    const items = Array.from({ length: 1_000_000 }, (_, i) => ({ v: (i * 7919) % 1_000_003 }));
    expect(() => Math.max(...items.map((x) => x.v))).toThrow(RangeError);
    expect(maxOf(items, (x) => x.v)).toBe(1_000_002);
    expect(minOf(items, (x) => x.v)).toBe(0);
    expect(maxOf([], (x: number) => x, 7)).toBe(7);
  }, 120_000);
});

describe('parseBoundedJson', () => {
  it('parses JSON up to MAX_JSON_DEPTH levels and refuses deeper as a SyntaxError', () => {
    const nest = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
    expect(JSON.stringify(parseBoundedJson(nest(MAX_JSON_DEPTH)))).toBe(nest(MAX_JSON_DEPTH));
    expect(() => parseBoundedJson(nest(MAX_JSON_DEPTH + 1))).toThrow(SyntaxError);
    expect(() => parseBoundedJson(nest(200_000))).toThrow(/nested deeper than 1000 levels/);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `\\"${'['.repeat(5000)}`, t: ['{'.repeat(5000)] });
    expect(parseBoundedJson(text)).toEqual(JSON.parse(text));
  });
});
