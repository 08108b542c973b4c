import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import encode, { init } from '@jsquash/jpeg/encode.js';

/**
 * JPEG test images, encoded by MozJPEG (jSquash's WebAssembly build, Node only here: the wasm
 * is read from node_modules). Pixels are RGBA; alpha is ignored.
 */
export interface JpegOptions {
  quality?: number;
  progressive?: boolean;
  /** 1: 4:4:4, 2: 4:2:0. */
  chromaSubsample?: 1 | 2;
  greyscale?: boolean;
}

let ready: Promise<void> | undefined;

export async function jpegBytes(
  image: { width: number; height: number; rgba: Uint8Array },
  options: JpegOptions = {},
): Promise<Uint8Array> {
  ready ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm');
    await init(await WebAssembly.compile(fs.readFileSync(file)));
  })();
  await ready;
  const data = new Uint8ClampedArray(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength);
  const out = await encode(
    { data, width: image.width, height: image.height, colorSpace: 'srgb' } as ImageData,
    {
      quality: options.quality ?? 90,
      progressive: options.progressive ?? false,
      baseline: !(options.progressive ?? false),
      chroma_subsample: options.chromaSubsample ?? 2,
      auto_subsample: false,
      color_space: options.greyscale ? 1 : 3,
    },
  );
  return new Uint8Array(out);
}
