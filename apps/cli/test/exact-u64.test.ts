import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type AnyFormatPlugin,
  directoryTarget,
  fileTarget,
  type InspectNode,
  MemoryDirectory,
  MemorySource,
  type Target,
  walk,
} from '@binscope/core';
import { createFormatRegistry } from '@binscope/formats';
import { tempDir } from '@binscope/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

// Every 64-bit field of every format, set above 2^53: the messages about it (errors, warnings,
// what opening throws) name its exact decimal, never the nearest double (2^53 + 1 printed as
// 9007199254740992). The fields are found in each file's own inspect tree: 8-byte fields whose
// shown value is the unsigned integer their bytes hold.

const HUGE = [2n ** 53n + 1n, 2n ** 64n - 15n];
/** At least this many u64 fields per sample: a tree that stops showing them fails the test. */
const MIN_FIELDS: Record<string, number> = { scbf: 20, mldf: 10, udf: 2, taridx: 5, scdl: 5 };
const registry = createFormatRegistry();
const scratch = tempDir('binscope-exact-u64-');
afterAll(() => scratch.remove());
beforeAll(() => {
  const demo = cli(['demo', scratch.dir]);
  expect(demo.code, demo.stderr).toBe(0);
}, 120_000);

/** Each format's writer-made sample (from `binscope demo`) and how to target it. */
const SAMPLES: [format: string, file: string][] = [
  ['scbf', 'measurements.scbf'],
  ['mldf', 'train.mldf'],
  ['udf', 'scene.udf'],
  ['taridx', 'shards/train.taridx'],
  ['scdl', 'cells_scdl'],
];

function filesUnder(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, rel);
    if (fs.statSync(full).isFile())
      out[rel.split(path.sep).join('/')] = new Uint8Array(fs.readFileSync(full));
  }
  return out;
}

/** The sample's bytes, and a target with one of its files replaced. */
function sample(file: string): {
  files: Record<string, Uint8Array>;
  main: string;
  target: (f: Record<string, Uint8Array>) => Target;
} {
  const full = path.join(scratch.dir, file);
  if (fs.statSync(full).isDirectory()) {
    return {
      files: filesUnder(full),
      main: '',
      target: (f) => directoryTarget(new MemoryDirectory(f, file)),
    };
  }
  const folder = path.dirname(full);
  const name = path.basename(full);
  const files: Record<string, Uint8Array> = {};
  for (const n of fs.readdirSync(folder)) {
    if (fs.statSync(path.join(folder, n)).isFile())
      files[n] = new Uint8Array(fs.readFileSync(path.join(folder, n)));
  }
  return {
    files,
    main: name,
    target: (f) => fileTarget(new MemorySource(f[name], name), new MemoryDirectory(f, folder)),
  };
}

/** Everything the plugin says about a target: validate's problems, inspect mode's, what opening or reading throws. */
async function messages(plugin: AnyFormatPlugin, target: Target): Promise<string[]> {
  const out: string[] = [];
  const report = await plugin.validate(target);
  for (const p of [...report.errors, ...report.warnings]) out.push(p.message);
  const inspected = await plugin.inspectTarget(target);
  for (const p of inspected.located) out.push(p.message);
  try {
    const reader = await plugin.open(target);
    try {
      await plugin.info(reader);
      for await (const _ of plugin.records(reader, { limit: 3 })) void _;
    } finally {
      await reader.close?.();
    }
  } catch (error) {
    out.push((error as Error).message);
  }
  return out;
}

/** The tree with the first few of every lazy list loaded (rows, allocation entries). */
async function loaded(root: InspectNode): Promise<InspectNode> {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.lazy) n.children = [...(n.children ?? []), ...(await n.lazy.load(0, Math.min(3, n.lazy.count)))];
    stack.push(...(n.children ?? []));
  }
  return root;
}

/** The 64-bit unsigned fields of a file's tree: [file, offset, name, little-endian]. */
function u64Fields(
  root: InspectNode,
  files: Record<string, Uint8Array>,
  main: string,
): [string, number, string, boolean][] {
  const out: [string, number, string, boolean][] = [];
  const seen = new Set<string>();
  walk(root, (n, above) => {
    if (n.kind !== 'field' || n.length !== 8) return undefined;
    const file = n.file ?? [...above].reverse().find((a) => a.file !== undefined)?.file ?? main;
    const bytes = files[file];
    if (!bytes || n.offset + 8 > bytes.byteLength) return undefined;
    if (typeof n.value !== 'number') return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    // SCDL's header.sch is big-endian, the other formats little-endian.
    const little = view.getBigUint64(n.offset, true) === BigInt(n.value);
    if (!little && view.getBigUint64(n.offset, false) !== BigInt(n.value)) return undefined;
    const key = `${file}@${n.offset}`;
    if (!seen.has(key)) out.push([file, n.offset, n.name, little]);
    seen.add(key);
    return undefined;
  });
  return out;
}

describe('64-bit fields above 2^53 are named exactly in messages', () => {
  for (const [format, file] of SAMPLES) {
    it(`${format}: every u64 field of a writer-made file`, async () => {
      const plugin = await registry.load(format);
      const { files, main, target } = sample(file);
      const tree = await loaded((await plugin.inspectTarget(target(files))).root);
      const fields = u64Fields(tree, files, main);
      expect(fields.length, 'u64 fields found in the tree').toBeGreaterThanOrEqual(MIN_FIELDS[format]);
      const failures: string[] = [];
      for (const [name, at, field, little] of fields) {
        for (const value of HUGE) {
          const bytes = files[name].slice();
          new DataView(bytes.buffer).setBigUint64(at, value, little);
          const said = await messages(plugin, target({ ...files, [name]: bytes }));
          const rounded = String(Number(value));
          const where = `${name} ${field} (byte ${at}) = ${value}`;
          if (!said.some((m) => m.includes(value.toString())))
            failures.push(`${where}: no message names it: ${JSON.stringify(said.slice(0, 3))}`);
          for (const m of said)
            if (m.includes(rounded)) failures.push(`${where}: rounded in ${JSON.stringify(m)}`);
        }
      }
      expect(failures).toEqual([]);
    }, 300_000);
  }
});
