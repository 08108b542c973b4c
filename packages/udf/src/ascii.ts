/**
 * Recently decoded short ASCII strings by length and first bytes' hash: most datasets of a file
 * share their table names, so a walk builds each name once.
 */
const asciiCache = new Map<number, string>();

/** Short ASCII strings (most names and labels) without a TextDecoder call; undefined otherwise. */
export function asciiName(bytes: Uint8Array, start: number, len: number): string | undefined {
  if (len > 64) return undefined;
  let h = len;
  for (let i = start; i < start + len; i++) {
    const b = bytes[i];
    if (b >= 0x80) return undefined;
    h = (Math.imul(h, 31) + b) | 0;
  }
  const cached = asciiCache.get(h);
  if (cached !== undefined && cached.length === len) {
    let same = true;
    for (let i = 0; i < len; i++) {
      if (cached.charCodeAt(i) !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cached;
  }
  let out = '';
  for (let i = start; i < start + len; i++) out += String.fromCharCode(bytes[i]);
  if (asciiCache.size >= 4096) asciiCache.clear();
  asciiCache.set(h, out);
  return out;
}
