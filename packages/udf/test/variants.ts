import { MemorySource } from '@binscope/core';
import { openUdf, UdfBuilder } from '../src/index.js';

/**
 * A file with every kind of catalogue record the vectors lack: opaque custom bytes, a table
 * over the 65,536-element limit (values_head), a compressed table, a TEXT table whose payload
 * is not UTF-8 (an error stand-in) and a DATASET reference that is misaligned (a dataset that
 * cannot be loaded), besides a plain child.
 */
export async function variantsFile(): Promise<Uint8Array> {
  const file = new UdfBuilder({ id: 'VARS' });
  const kid = file.dataset({ id: 'KID' }).table('k', { prim: 'u8', data: [7], typeName: 'byte' });
  const gone = file.dataset({ id: 'GONE' }).table('g', { prim: 'u8', data: [1] });
  const root = file
    .dataset({ id: 'ROOT' })
    .table('blob', { prim: 'custom', data: new Uint8Array([1, 2, 3, 4, 5]), typeName: 'opaque' })
    .table('big', { prim: 'i16', data: Int16Array.from({ length: 70_000 }, (_, i) => (i % 60_000) - 30_000) })
    .text('bad', 'okay')
    .table('zc', { prim: 'u32', data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], compress: 'simple-u32' })
    .datasets('kids', [kid, gone]);
  file.setRoot(root);
  const bytes = file.toBytes();
  const top = (await (await openUdf(new MemorySource(bytes))).root())!;
  bytes[top.table('bad')!.dataOffset] = 0xff; // not UTF-8
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ref = top.table('kids')!.dataOffset + 16; // the second child's offset
  view.setUint32(ref, view.getUint32(ref, true) + 8, true);
  return bytes;
}
