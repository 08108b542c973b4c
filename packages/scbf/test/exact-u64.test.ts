import { MemorySource } from '@binscope/core';
import { describe, expect, it } from 'vitest';
import { validateScbf } from '../src/plugin.js';
import { encodeScbf } from '../src/write.js';

// A 64-bit field above 2^53 is reported with its exact value, not the nearest double
// (18446744073709551601 used to print as 18446744073709552000).
const HUGE = 0xfffffffffffffff1n;

describe('64-bit values in messages', () => {
  it('prints total_rows, a column count and meta_table_offset exactly', async () => {
    const bytes = await encodeScbf([{ name: 'id', values: Int32Array.of(1, 2, 3) }]);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const schemaLength = view.getUint32(8, true);
    const totalRowsAt = 12 + schemaLength + 4;
    const metaAt = totalRowsAt + 8;
    const countAt = view.getUint32(metaAt, true) + 2 + 2 + 1; // u16 name length, "id", type code
    const messages = async (at: number) => {
      const copy = bytes.slice();
      new DataView(copy.buffer).setBigUint64(at, HUGE, true);
      const report = await validateScbf(new MemorySource(copy, 'x.scbf'));
      return report.errors.map((e) => e.message).join('\n');
    };
    expect(await messages(totalRowsAt)).toMatch(/total_rows 18446744073709551601 is beyond any file/);
    expect(await messages(countAt)).toMatch(/count 18446744073709551601 is beyond any file/);
    expect(await messages(metaAt)).toMatch(/meta_table_offset 18446744073709551601 /);
    for (const at of [totalRowsAt, countAt, metaAt])
      expect(await messages(at)).not.toMatch(/18446744073709552000/);
  });
});
