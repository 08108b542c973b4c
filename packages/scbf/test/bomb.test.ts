import { isBinscopeError, MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { openScbf } from '../src/plugin.js';
import { validateScbf } from '../src/plugin.js';
import * as browser from '../src/zlib-browser.js';
import * as node from '../src/zlib-node.js';
import { craft } from './helpers.js';

/**
 * A zlib stream that inflates to `copies * 258 + 1` zero bytes (fixed Huffman: a literal 0,
 * then length-258 distance-1 copies, 13 bits each) and then turns corrupt (distance code 30,
 * which does not exist). A decoder that stops at the declared size + 1 never reaches the
 * corruption and calls the block too long; one that inflates everything to classify it
 * reports a corrupt stream instead, after producing all of it.
 */
function bombWithCorruptTail(copies: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(((copies + 4) * 13 + 64) / 8) + 2);
  out[0] = 0x78;
  out[1] = 0x9c;
  let bitPos = 16;
  const bits = (value: number, n: number) => {
    for (let i = 0; i < n; i++, bitPos++) if ((value >> i) & 1) out[bitPos >> 3] |= 1 << (bitPos & 7);
  };
  // Huffman codes go most significant bit first.
  const code = (value: number, n: number) => {
    for (let i = n - 1; i >= 0; i--, bitPos++) if ((value >> i) & 1) out[bitPos >> 3] |= 1 << (bitPos & 7);
  };
  bits(1, 1); // BFINAL
  bits(1, 2); // fixed Huffman
  code(0x30, 8); // literal 0
  for (let i = 0; i < copies; i++) {
    code(0xc5, 8); // length code 285: 258 bytes
    code(0, 5); // distance code 0: distance 1
  }
  code(0xc5, 8);
  code(30, 5); // invalid distance code
  return out.subarray(0, (bitPos >> 3) + 1);
}

const COPIES = 1 << 18; // 64 MiB of output from 426 KB

describe('zlib bombs stop at the declared size + 1', () => {
  it('inflateBlock (node:zlib and pako) calls a long stream too long without decoding the rest', () => {
    const bomb = bombWithCorruptTail(COPIES);
    for (const z of [node, browser]) {
      const out = z.inflateBlock(bomb, 16);
      expect(out.ok, z.zlibName).toBe(false);
      if (!out.ok) expect(out.reason, z.zlibName).toBe('too-long');
    }
    // The tail really is corrupt: a decoder allowed to go on says so.
    const whole = node.inflateBlock(bomb, COPIES * 258 + 1);
    expect(!whole.ok && whole.reason).toBe('corrupt');
  });

  it('readBlock and validate: CountMismatch for a 16-byte block that would inflate to 64 MiB', async () => {
    const bytes = craft(
      [{ name: 'a', type: 'int32', raw: [new Uint8Array(16)], compressed: [bombWithCorruptTail(COPIES)] }],
      4,
    );
    const source = new MemorySource(bytes, 'bomb.scbf');
    const reader = await openScbf(source);
    const error = await reader.readColumn('a').catch((e: unknown) => e);
    expect(isBinscopeError(error, 'CountMismatch'), String(error)).toBe(true);
    const report = await validateScbf(source);
    expect(report.errors[0]?.code, JSON.stringify(report.errors)).toBe('CountMismatch');
  });

  it('the streaming decoder (blocks over 4 MiB) stops too, before reading the rest of the block', async () => {
    const declared = 5 << 20;
    const bytes = craft(
      [
        {
          name: 'a',
          type: 'int32',
          raw: [new Uint8Array(declared)],
          compressed: [bombWithCorruptTail(COPIES)],
        },
      ],
      declared / 4,
    );
    const report = await validateScbf(new MemorySource(bytes, 'bomb.scbf'));
    expect(report.errors[0]?.code, JSON.stringify(report.errors)).toBe('CountMismatch');
    expect(report.errors[0]?.message).toMatch(/more than the 5242880 bytes/);
  });
});
