/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: the zlib / PNG / gzip checksum),
 * browser-safe and incremental, so a region can be checked chunk by chunk without ever
 * being held whole in memory.
 */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * The CRC-32 of `bytes`, continuing from `previous` (the CRC of everything before them;
 * 0 to start). `crc32(b, crc32(a))` equals `crc32(a ++ b)`.
 */
export function crc32(bytes: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
