import {
  type AnyFormatPlugin,
  createRegistry,
  type Detection,
  type InspectNode,
  inspectResult,
  MemorySource,
  node,
  type Problem,
  type Target,
} from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { firstDefect } from '../src/components/DefectList';
import { inspectedFormat, inspectTree, locatedDefect, nodeView } from '../src/worker/inspect-mode';

// The worker's side of the broken-file view, without a browser: a fake format whose inspect
// mode returns a hand-made partial tree with a defect four levels down and a warning before it
// in tree order. The error is in the part file the deep nodes name (a problem naming no file is
// about the root's own file, and the deep nodes are not in it).
const warning: Problem = { code: 'ReservedNonZero', message: 'padding byte is 0x7', offset: 12 };
const error: Problem = {
  code: 'InvalidValue',
  message: 'crc is 0x1, expected 0x2',
  offset: 40,
  file: 'part.bin',
};

function deepTree(): InspectNode {
  return node('deep.bin', 'file', 0, 200, {
    children: [
      node('header', 'header', 0, 16, {
        children: [node('magic', 'field', 0, 8), node('padding', 'padding', 8, 8)],
      }),
      node('body', 'section', 16, 184, {
        children: [
          node('chunk', 'block', 16, 100, {
            file: 'part.bin',
            children: [node('trailer', 'block', 32, 16, { children: [node('crc', 'field', 40, 4)] })],
          }),
        ],
      }),
    ],
  });
}

function fakePlugin(calls: string[]): AnyFormatPlugin {
  return {
    id: 'fake',
    specificationVersion: 2,
    title: 'fake',
    kind: 'file',
    extensions: ['fake'],
    magic: [{ offset: 0, bytes: 'FAKEFORMAT' }],
    async inspect() {
      calls.push('inspect');
      return node('reader tree', 'file', 0, 200);
    },
    async inspectTarget() {
      calls.push('inspectTarget');
      // The report ranks the error first (check order); the tree meets the warning first.
      return inspectResult(deepTree(), { valid: false, errors: [error], warnings: [warning] });
    },
  } as unknown as AnyFormatPlugin;
}

const target: Target = { kind: 'file', source: new MemorySource(new Uint8Array(200), 'deep.bin') };

describe('the worker turns an inspect-mode result into what the page selects', () => {
  it('lists problems in check order and selects the deep error, with every node on its way', async () => {
    const calls: string[] = [];
    const tree = await inspectTree(fakePlugin(calls), target, undefined, new AbortController().signal);
    expect(calls).toEqual(['inspectTarget']);
    expect(tree.located.map((p) => p.code)).toEqual(['InvalidValue', 'ReservedNonZero']);
    const defects = await Promise.all(tree.located.map((p) => locatedDefect(tree.root, p, tree.located)));
    const first = firstDefect(defects);
    expect(first?.code).toBe('InvalidValue');
    expect(first?.indexPath).toEqual([1, 0, 0, 0]);
    expect(first?.nodes.map((n) => n.name)).toEqual(['deep.bin', 'body', 'chunk', 'trailer', 'crc']);
    // A node's file is inherited from its ancestors (the hex view opens that file).
    expect(first?.nodes.map((n) => n.file)).toEqual([
      undefined,
      undefined,
      'part.bin',
      'part.bin',
      'part.bin',
    ]);
    const crc = first?.nodes.at(-1);
    expect(crc?.problems).toEqual([{ ...error, format: undefined, severity: 'error' }]);
    const padding = nodeView(tree.root.children![0].children![1], undefined, tree.located);
    expect(padding.problems?.map((p) => p.severity)).toEqual(['warning']);
    expect(nodeView(tree.root.children![0].children![0], undefined, tree.located).problems).toBeUndefined();
  });

  it('a warning alone is still selected; nothing marked selects nothing', async () => {
    const root = deepTree();
    const result = inspectResult(root, { valid: true, errors: [], warnings: [warning] });
    const defects = await Promise.all(result.located.map((p) => locatedDefect(root, p, result.located)));
    expect(firstDefect(defects)?.path).toBe('header/padding');
    expect(firstDefect([])).toBeUndefined();
  });

  it('a file that opens first shows its reader tree (inspect mode validates, reading it whole)', async () => {
    const calls: string[] = [];
    const reader = { format: 'fake', schema: { fields: [] }, warnings: [] };
    const tree = await inspectTree(fakePlugin(calls), target, reader, new AbortController().signal);
    expect(calls).toEqual(['inspect']);
    expect(tree.root.name).toBe('reader tree');
    // A file that does not open has no reader tree: inspect mode shows why.
    await inspectTree(fakePlugin(calls), target, undefined, new AbortController().signal);
    expect(calls).toEqual(['inspect', 'inspectTarget']);
  });

  it('a near miss is inspected by the format it nearly is', () => {
    const plugin = fakePlugin([]);
    const registry = createRegistry([plugin]);
    const detection = { info: undefined, format: null, nearMiss: { id: 'fake' } } as unknown as Detection;
    expect(inspectedFormat(detection, registry)?.id).toBe('fake');
    expect(inspectedFormat({ ...detection, nearMiss: undefined }, registry)).toBeUndefined();
    expect(inspectedFormat({ ...detection, nearMiss: { id: 'tar' } } as Detection, registry)).toBeUndefined();
  });
});
