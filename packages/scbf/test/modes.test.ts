import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  fileTarget,
  type InspectNode,
  type InspectResult,
  isBinscopeError,
  MemorySource,
  type Problem,
  toPlainTree,
} from '@binscope/core';
import { crc32 } from '@binscope/core/binary';
import { describeWith } from '@binscope/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scbfExtensionFooter } from '../src/extend.js';
import { scbfPlugin } from '../src/plugin.js';
import { openScbf } from '../src/plugin.js';
import type { ScbfReader } from '../src/read.js';
import { blocksEnd } from '../src/extensions.js';
import { encodeScbf } from '../src/write.js';
import { SCBF_VECTORS, VECTORS_NEEDED } from './helpers.js';

/**
 * What the strict reader throws: open, then every record (column blocks are read lazily).
 * Block checksums and footer records are checked by validate only; a file the strict reader
 * reads must then validate clean once its footer is cut off.
 */
async function strictError(bytes: Uint8Array, name: string): Promise<Problem | undefined> {
  const target = fileTarget(new MemorySource(bytes, name));
  try {
    const reader = (await scbfPlugin.open(target)) as unknown as ScbfReader;
    for await (const _ of scbfPlugin.records(reader as never)) {
      // every row decoded
    }
    const end = blocksEnd(reader.columns, reader.header.metaTableEnd);
    const withoutFooter = await scbfPlugin.validate(
      fileTarget(new MemorySource(bytes.subarray(0, end), name)),
    );
    expect(withoutFooter.errors).toEqual([]);
    return undefined;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) throw error;
    return error.toProblem();
  }
}

function nodeAt(root: InspectNode, indexPath: number[]): InspectNode {
  return indexPath.reduce((n, i) => n.children![i], root);
}

/** The three modes agree on the first error, and the tree shows it on the structure at fault. */
async function expectModesAgree(bytes: Uint8Array, name: string): Promise<InspectResult> {
  const target = fileTarget(new MemorySource(bytes, name));
  const inspected = await scbfPlugin.inspectTarget(target);
  const report = await scbfPlugin.validate(target);
  const strict = await strictError(bytes, name);
  expect(inspected.root.children?.length).toBeGreaterThan(0);
  expect(inspected.errors).toEqual(report.errors);
  const first = report.errors[0];
  if (strict)
    expect({ code: first?.code, offset: first?.offset }).toEqual({
      code: strict.code,
      offset: strict.offset,
    });
  if (first) {
    const located = inspected.located.find((l) => l.code === first.code && l.message === first.message);
    expect(located?.severity).toBe('error');
    expect(located!.indexPath.length).toBeGreaterThan(0);
    const marked = nodeAt(inspected.root, located!.indexPath);
    if (first.offset !== undefined && first.offset < bytes.byteLength) {
      expect(first.offset).toBeGreaterThanOrEqual(marked.offset);
      expect(first.offset).toBeLessThan(marked.offset + Math.max(1, marked.length));
    }
  }
  return inspected;
}

describeWith(VECTORS_NEEDED, 'three modes over the vectors', () => {
  const invalid = path.join(SCBF_VECTORS, 'invalid');
  const files = fs.existsSync(invalid) ? fs.readdirSync(invalid).filter((f) => f.endsWith('.scbf')) : [];

  it.each(files)('invalid/%s: a tree with the error marked below the root', async (file) => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(invalid, file)));
    const result = await expectModesAgree(bytes, file);
    expect(result.valid).toBe(false);
    // Every column is still shown, the damaged one included.
    const data = result.root.children!.find((c) => c.name === 'column data');
    const table = result.root.children!.find((c) => c.name === 'column metadata');
    expect(data?.children?.length).toBe(table?.children?.length);
  });

  const valid = fs.existsSync(SCBF_VECTORS)
    ? fs
        .readdirSync(SCBF_VECTORS, { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== 'invalid')
        .flatMap((d) =>
          fs
            .readdirSync(path.join(SCBF_VECTORS, d.name))
            .filter((f) => f.endsWith('.scbf'))
            .map((f) => path.join(d.name, f)),
        )
    : [];
  it.each(valid)('%s: inspectTarget is valid and draws the tree of inspect(open)', async (file) => {
    const target = fileTarget(
      new MemorySource(new Uint8Array(fs.readFileSync(path.join(SCBF_VECTORS, file))), file),
    );
    const inspected = await scbfPlugin.inspectTarget(target);
    expect(inspected.valid).toBe(true);
    const opened = await scbfPlugin.inspect(await scbfPlugin.open(target));
    expect(toPlainTree(inspected.root)).toEqual(toPlainTree(opened));
  });
});

describe('three modes over written files broken on purpose', async () => {
  const plain = await encodeScbf([
    { name: 'id', values: Int32Array.of(1, 2, 3, 4) },
    { name: 'score', values: Float64Array.of(0.5, 1.5, 2.5, 3.5) },
    { name: 'label', values: ['a', 'bb', 'ccc', 'dddd'] },
  ]);
  const reader = await openScbf(new MemorySource(plain, 'plain.scbf'));
  const footer = await scbfExtensionFooter(reader, { checksums: true, statistics: true });
  const extended = new Uint8Array(plain.byteLength + footer.byteLength);
  extended.set(plain);
  extended.set(footer, plain.byteLength);
  const label = reader.column('label');
  const schemaLength = new DataView(plain.buffer, plain.byteOffset).getUint32(8, true);
  const metaAt = 12 + schemaLength + 12;

  /** The footer's CRC of the label offsets block, one bit flipped: the block itself is sound. */
  const storedCrcFlipped = () => {
    const block = label.blocks[0];
    const crc = new Uint8Array(4);
    new DataView(crc.buffer).setUint32(
      0,
      crc32(plain.subarray(block.offset, block.offset + block.compressedSize)),
      true,
    );
    const copy = extended.slice();
    for (let at = plain.byteLength; at + 4 <= copy.byteLength; at++) {
      if (crc.every((b, i) => copy[at + i] === b)) {
        copy[at] ^= 0x01;
        return copy;
      }
    }
    throw new Error('the footer holds no CRC of the block');
  };
  const broken = (bytes: Uint8Array, change: (b: Uint8Array, v: DataView) => void) => {
    const copy = bytes.slice();
    change(copy, new DataView(copy.buffer));
    return copy;
  };
  const cases: Array<[string, Uint8Array, string]> = [
    ['flipped magic', broken(plain, (b) => (b[0] = 0x73)), 'BadMagic'],
    ['version 2', broken(plain, (b) => (b[5] = 0x32)), 'UnsupportedVersion'],
    ['truncated in the last block', plain.subarray(0, plain.byteLength - 3), 'Truncated'],
    [
      'meta_table_offset past the end',
      broken(plain, (_, v) => v.setUint32(metaAt, plain.byteLength + 100, true)),
      'OutOfBounds',
    ],
    [
      'block offset past the end',
      broken(plain, (_, v) => v.setUint32(label.blocks[1].fieldOffset + 16, plain.byteLength + 9, true)),
      'OutOfBounds',
    ],
    [
      'bad payload',
      broken(plain, (b) => (b[label.blocks[1].offset + label.blocks[1].compressedSize - 1] ^= 0xff)),
      'DecompressError',
    ],
    ['stored checksum that does not match its block', storedCrcFlipped(), 'InvalidValue'],
    ['footer body length past the file', broken(extended, (b) => (b[extended.byteLength - 14] ^= 0x40)), ''],
  ];

  it.each(cases)('%s', async (_name, bytes, code) => {
    const result = await expectModesAgree(bytes, 'broken.scbf');
    if (code) expect(result.errors[0].code).toBe(code);
    if (_name.startsWith('stored checksum'))
      expect(result.located[0].path).toBe('column data/label/offsets block');
    expect(result.located.some((l) => l.severity === 'error' && l.path !== '')).toBe(true);
  });

  it('the metadata header fields stay visible when the magic is wrong', async () => {
    const result = await scbfPlugin.inspectTarget(
      fileTarget(
        new MemorySource(
          broken(plain, (b) => (b[0] = 0x73)),
          'x.scbf',
        ),
      ),
    );
    const header = result.root.children![0];
    expect(header.children!.map((c) => c.name)).toContain('meta_table_offset');
    expect(header.children![0].problems?.[0].code).toBe('BadMagic');
  });

  it('reader and validator can no longer disagree: random truncations and byte flips', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(plain, extended),
        fc.oneof(
          fc.record({ cut: fc.integer({ min: 0, max: extended.byteLength }) }),
          fc.record({ at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
        ),
        async (bytes, mutation) => {
          let mutated: Uint8Array;
          if ('cut' in mutation) mutated = bytes.subarray(0, Math.min(mutation.cut, bytes.byteLength));
          else {
            mutated = bytes.slice();
            mutated[mutation.at % bytes.byteLength] ^= mutation.xor;
          }
          await expectModesAgree(mutated, 'mutant.scbf');
        },
      ),
      { numRuns: 300 },
    );
  });
});
