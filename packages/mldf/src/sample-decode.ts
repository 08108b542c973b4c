import { decodeText, decodeValue, MldfLazyText, parseJson, plain } from './decode.js';
import type { MldfField } from './layout.js';
import type { Located } from './locate.js';
import type { MldfSample } from './values.js';

/**
 * Views into the window being decoded. The buffer getter costs as much as the view, so it is
 * read once per window, not per value.
 */
export class WindowViews {
  private window: Uint8Array | undefined;
  private buffer: ArrayBufferLike = new ArrayBuffer(0);
  private offset = 0;

  view(window: Uint8Array, at: number, size: number): Uint8Array {
    if (window !== this.window) {
      this.window = window;
      this.buffer = window.buffer;
      this.offset = window.byteOffset;
    }
    return new Uint8Array(this.buffer, this.offset + at, size);
  }

  /** Drops the last window, so a finished pass does not keep it alive. */
  forget(): void {
    this.window = undefined;
    this.buffer = new ArrayBuffer(0);
  }
}

/** Builds the sample from its row and the bytes read for it (`buf` starting at file offset `base`, or `parts`). */
export function decodeSample(
  views: WindowViews,
  file: string | undefined,
  loc: Located,
  sel: readonly MldfField[],
  buf: Uint8Array | undefined,
  base: number,
  parts?: Array<Uint8Array | undefined>,
): MldfSample {
  const { view, pos, slots } = loc;
  const out: MldfSample = {};
  for (let k = 0; k < sel.length; k++) {
    const f = sel[k];
    const p = pos + f.metadataOffset;
    if (f.type === 'INT') {
      out[f.name] = view.getBigInt64(p, true);
      continue;
    }
    if (f.type === 'FLOAT') {
      out[f.name] = view.getFloat64(p, true);
      continue;
    }
    const ptr = slots[k * 2];
    const size = slots[k * 2 + 1];
    if (size !== 0 && buf !== undefined && (f.type === 'JSON' || f.type === 'TEXT_RAW')) {
      // Straight from the read buffer: no view for bytes that only become a string.
      if (loc.lazy) {
        out[f.name] = new MldfLazyText(buf, ptr - base, ptr - base + size, f.type, f.name, ptr, file);
        continue;
      }
      const text = decodeText(buf, ptr, f.name, file, ptr - base, ptr - base + size);
      out[f.name] = f.type === 'JSON' ? parseJson(text, ptr, f.name, file) : text;
      continue;
    }
    let bytes: Uint8Array;
    if (size === 0) bytes = new Uint8Array(0);
    else if (parts) bytes = plain(parts[k]!);
    else {
      bytes = views.view(buf!, ptr - base, size);
    }
    out[f.name] = decodeValue(f, view, p, bytes, ptr, loc.lazy, file);
  }
  return out;
}
