// Bundled for the page by browser.test.ts: the built browser entry, as an app would import it.
import { MemoryDirectory } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { convertTaridxToMldf } from '../../dist/index.js';

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Shards in, MLDF bytes out (base64 both ways: what page.evaluate can carry). */
async function convertFold(
  shards: Record<string, string>,
  fold: string,
  options: { keepEncoded?: boolean; checksum?: boolean },
): Promise<{ mldf: string; samples: number }> {
  const files = Object.fromEntries(Object.entries(shards).map(([name, text]) => [name, fromBase64(text)]));
  const sink = new MemorySink();
  const result = await convertTaridxToMldf({ directory: new MemoryDirectory(files), fold }, sink, options);
  return { mldf: toBase64(sink.bytes()), samples: result.samples };
}

(globalThis as { convertFold?: typeof convertFold }).convertFold = convertFold;
