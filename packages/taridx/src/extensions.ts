import { MAX_EXTENSIONS, fail } from './layout.js';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // replacement mode, as upstream's decode('utf-8', 'replace')

/** Extensions cached as raw bytes, and the longest cached. */
const CACHE_SIZE = 32;
const CACHE_WIDTH = 32;

/**
 * The index builder's extension table (T2): ids in order of first appearance, by lower-cased
 * text, with recently seen raw bytes → id checked first, before decoding anything.
 */
export class ExtensionTable {
  /** The extensions by id. */
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Cache entry k: `cacheLength[k]` bytes at `cacheBytes[k * CACHE_WIDTH]`, and the id. */
  private cacheCount = 0;
  private readonly cacheLength = new Int32Array(CACHE_SIZE);
  private readonly cacheId = new Int32Array(CACHE_SIZE);
  private readonly cacheBytes = new Uint8Array(CACHE_SIZE * CACHE_WIDTH);

  /** The id of the extension bytes `block[start..end)` if the cache holds them, else -1. */
  cached(block: Uint8Array, start: number, end: number): number {
    const length = end - start;
    const lengths = this.cacheLength;
    const cached = this.cacheBytes;
    for (let k = 0; k < this.cacheCount; k++) {
      if (lengths[k] !== length) continue;
      const base = k * CACHE_WIDTH;
      let i = 0;
      while (i < length && cached[base + i] === block[start + i]) i++;
      if (i === length) return this.cacheId[k];
    }
    return -1;
  }

  /**
   * The id of the extension after `dot` (-1: none) up to `end`, a new one if unseen; cached.
   * `errorOffset` and `errorFile` locate the member in errors.
   */
  idOf(
    block: Uint8Array,
    dot: number,
    end: number,
    errorOffset: number | undefined,
    errorFile: string | undefined,
  ): number {
    const start = dot < 0 ? end : dot + 1;
    const raw = block.subarray(start, end);
    const ext = dot < 0 ? '' : decoder.decode(raw).toLowerCase();
    let id = this.ids.get(ext);
    if (id === undefined) {
      if (ext.includes('\n')) {
        throw fail(
          'InvalidValue',
          `extension ${JSON.stringify(ext)} contains "\\n", which the index cannot store`,
          errorOffset,
          errorFile,
        );
      }
      id = this.names.length;
      if (id >= MAX_EXTENSIONS) {
        throw fail(
          'UnsupportedFeature',
          `more than ${MAX_EXTENSIONS} distinct extensions (extid is 16 bits)`,
          errorOffset,
          errorFile,
        );
      }
      this.ids.set(ext, id);
      this.names.push(ext);
    }
    const k = this.cacheCount;
    if (k < CACHE_SIZE && raw.byteLength <= CACHE_WIDTH) {
      this.cacheBytes.set(raw, k * CACHE_WIDTH);
      this.cacheLength[k] = raw.byteLength;
      this.cacheId[k] = id;
      this.cacheCount = k + 1;
    }
    return id;
  }
}
