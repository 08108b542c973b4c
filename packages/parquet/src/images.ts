import { FormatError, type ImageValue } from '@binscope/core';
import { encode } from 'fast-png';

/**
 * An image as PNG bytes (`--images png`): PNG holds 1 to 4 channels of 8-bit samples (grey,
 * grey + alpha, RGB, RGBA), which is what the formats' raw images are; any other count has no
 * PNG and is refused rather than reinterpreted.
 */
export function encodePng(image: ImageValue): Uint8Array {
  if (image.channels < 1 || image.channels > 4)
    throw new FormatError(
      'UnsupportedFeature',
      `an image of ${image.channels} channels has no PNG form (PNG holds 1 to 4): export it as a struct (--images struct)`,
    );
  return encode({
    width: image.width,
    height: image.height,
    data: image.pixels,
    channels: image.channels,
    depth: 8,
  });
}
