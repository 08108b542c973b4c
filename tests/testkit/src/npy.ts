/** An .npy file (format 1.0) of a C-order array: test shards carry them as members. */
export function npyBytes(descr: string, shape: number[], data: Uint8Array): Uint8Array {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  // The header is padded so the data starts on a 64-byte boundary, as numpy writes it.
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const out = new Uint8Array(10 + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(data, 10 + header.length);
  return out;
}
