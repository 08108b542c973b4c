import { FormatError } from '@binscope/core';
import { convertIndexedToRgb, decode as decodePng } from 'fast-png';
import { decodeJpeg } from './jpeg.js';
import { badMember, keepFlag, type MemberPlace } from './member.js';

// JPEG: libjpeg-turbo in WebAssembly (jpeg.ts), the decoder Pillow uses, so training code that
// decodes with Pillow sees the same pixels; PNG: fast-png, pure JavaScript. Both run the same
// in Node and browsers, without a canvas (whose colour management differs between browsers).

/** A decoded image's pixels may not exceed this (the decoder would allocate it). */
const MAX_PIXEL_BYTES = 512 << 20;

export interface RawImage {
  height: number;
  width: number;
  channels: number;
  pixels: Uint8Array;
}

export function isPng(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47
  );
}

export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** 1-, 2- and 4-bit grey samples (packed, rows byte-aligned) scaled to 0–255. */
function unpackBits(
  data: Uint8Array,
  width: number,
  height: number,
  channels: number,
  depth: number,
): Uint8Array {
  const perRow = width * channels;
  const rowBytes = Math.ceil((perRow * depth) / 8);
  const out = new Uint8Array(perRow * height);
  const max = (1 << depth) - 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < perRow; x++) {
      const bit = x * depth;
      const byte = data[y * rowBytes + (bit >> 3)];
      const value = (byte >> (8 - depth - (bit & 7))) & max;
      out[y * perRow + x] = Math.round((value * 255) / max);
    }
  }
  return out;
}

function decodePngImage(bytes: Uint8Array, place: MemberPlace): RawImage {
  // IHDR sits at a fixed place: refuse absurd sizes before the decoder allocates them.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 24) throw badMember(place, 'PNG ends inside its header');
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width > 0xffff || height > 0xffff || width * height * 4 > MAX_PIXEL_BYTES)
    throw badMember(
      place,
      `PNG of ${width}×${height} pixels is larger than an MLDF image can be (65535×65535, 512 MiB)`,
    );
  const png = decodePng(bytes);
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = rgb.length / (png.width * png.height);
    return { height: png.height, width: png.width, channels, pixels: rgb };
  }
  let pixels: Uint8Array;
  if (png.depth === 16) {
    pixels = new Uint8Array(png.data.length);
    for (let i = 0; i < pixels.length; i++) pixels[i] = png.data[i] >> 8;
  } else if (png.depth === 8) {
    const d = png.data;
    pixels = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  } else pixels = unpackBits(png.data as Uint8Array, png.width, png.height, png.channels, png.depth);
  return { height: png.height, width: png.width, channels: png.channels, pixels };
}

/**
 * JPEG → RGB, or grey for a greyscale JPEG (as Pillow's default decode: mode RGB or L); PNG →
 * its own channel count (grey, grey+alpha, RGB, RGBA); 8 bits, HWC.
 */
export async function decodeImage(bytes: Uint8Array, place: MemberPlace): Promise<RawImage> {
  try {
    if (isPng(bytes)) return decodePngImage(bytes, place);
    if (isJpeg(bytes)) return await decodeJpeg(bytes, place);
  } catch (error) {
    if (error instanceof FormatError) throw error;
    throw badMember(
      place,
      `cannot decode the image (${(error as Error).message}); pass ${keepFlag(place)} to store it as is`,
      error,
    );
  }
  throw badMember(place, `is neither a PNG nor a JPEG; pass ${keepFlag(place)} to store it as bytes`);
}
