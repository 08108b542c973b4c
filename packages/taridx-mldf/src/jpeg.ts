import { FormatError } from '@binscope/core';
import { badMember, keepFlag, type MemberPlace } from './member.js';

/**
 * JPEG → pixels exactly as Pillow's default decode gives them (`Image.open(f)`): the same
 * library (libjpeg-turbo) with the same settings, its defaults: the accurate integer DCT
 * (JDCT_ISLOW), fancy upsampling of subsampled chroma, block smoothing, no EXIF rotation.
 * Greyscale stays one channel (Pillow's mode L), colour is RGB. test/pillow.test.ts checks it
 * against Pillow on baseline and progressive JPEGs at 4:2:0, 4:2:2, 4:4:4 and greyscale.
 */

/** What the emscripten module offers: `decode` returns RGBA (ImageData-like). */
interface JpegCodec {
  decode(
    data: Uint8Array,
    preserveOrientation: boolean,
  ): { width: number; height: number; data: Uint8ClampedArray };
  HEAPU8: Uint8Array;
}

type Factory = (options: Record<string, unknown>) => Promise<JpegCodec>;

/**
 * Most pixels decoded: 512 MiB as RGB. The decoder holds 4 bytes a pixel (RGBA) in its
 * 32-bit memory, so the size is checked from the frame header before it allocates them.
 */
const MAX_PIXELS = Math.floor((512 << 20) / 3);
/**
 * Most scans a JPEG may have (a progressive one has about ten). Each scan is a pass over the
 * image, so a small file with many scans would keep the decoder busy for minutes, and work in
 * WebAssembly cannot be interrupted. TurboJPEG's scan limit (TJFLAG_LIMITSCANS) is the same number.
 */
const MAX_SCANS = 500;
/** A decoder whose memory grew past this (one huge image) is dropped after use, not kept. */
const KEEP_MEMORY = 256 << 20;

let compiled: Promise<{ module: WebAssembly.Module; factory: Factory }> | undefined;
let codec: Promise<JpegCodec> | undefined;
/** libjpeg's messages during the current decode (its warnings and its fatal error). */
let messages: string[] = [];

function load(): Promise<JpegCodec> {
  compiled ??= import('./jpeg-codec.js').then(async (m) => ({
    // atob: in browsers and Node alike (Buffer is Node's only).
    module: await WebAssembly.compile(Uint8Array.from(atob(m.wasm), (c) => c.charCodeAt(0))),
    factory: m.factory as unknown as Factory,
  }));
  codec ??= compiled.then(
    ({ module, factory }) =>
      new Promise<JpegCodec>((resolve, reject) => {
        factory({
          noInitialRun: true,
          // Never used (the instance comes from instantiateWasm), but without it emscripten
          // builds the file's URL from import.meta.url, which a classic-script bundle lacks.
          locateFile: (path: string) => path,
          print: (line: string) => messages.push(line),
          printErr: (line: string) => messages.push(line),
          // Asynchronous: browsers refuse to compile or instantiate big modules synchronously
          // on the main thread. A failure rejects here (emscripten would wait forever).
          instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) {
            WebAssembly.instantiate(module, imports).then(done, reject);
            return {};
          },
        }).then(resolve, reject);
      }),
  );
  const pending = codec;
  pending.catch(() => {
    if (codec === pending) codec = undefined;
    compiled = undefined;
  });
  return pending;
}

/** The frame header (SOFn) of a JPEG: found by walking the marker segments before the scan. */
interface JpegFrame {
  marker: number;
  precision: number;
  height: number;
  width: number;
  components: number;
}

function readFrame(bytes: Uint8Array, place: MemberPlace): JpegFrame {
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) throw badMember(place, `JPEG has no marker at byte ${pos}`);
    const marker = bytes[pos + 1];
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2; // no length field
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image or start of scan: no frame
    const length = (bytes[pos + 2] << 8) | bytes[pos + 3];
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (length < 8 || pos + 2 + length > bytes.length) break;
      const at = pos + 4;
      return {
        marker,
        precision: bytes[at],
        height: (bytes[at + 1] << 8) | bytes[at + 2],
        width: (bytes[at + 3] << 8) | bytes[at + 4],
        components: bytes[at + 5],
      };
    }
    if (length < 2) throw badMember(place, `JPEG marker segment at byte ${pos} has length ${length}`);
    pos += 2 + length;
  }
  throw badMember(place, 'JPEG has no frame header (SOF) before its image data');
}

/** What this decoder cannot do the way Pillow does: refused with the reason, before decoding. */
function checkFrame(frame: JpegFrame, place: MemberPlace): number {
  const { marker, precision, width, height, components } = frame;
  const hint = `; pass ${keepFlag(place)} to store it as is`;
  if (marker >= 0xc9)
    throw badMember(place, `arithmetic-coded JPEG (SOF${marker - 0xc0}) is not supported${hint}`);
  if (marker === 0xc3 || marker === 0xc5 || marker === 0xc6 || marker === 0xc7)
    throw badMember(place, `lossless or hierarchical JPEG (SOF${marker - 0xc0}) is not supported${hint}`);
  if (precision !== 8) throw badMember(place, `${precision}-bit JPEG is not supported (8-bit only)${hint}`);
  if (width === 0 || height === 0) throw badMember(place, `JPEG of ${width}×${height} pixels has no pixels`);
  if (components === 4)
    throw badMember(
      place,
      `CMYK/YCCK JPEG: Pillow decodes it as 4-channel CMYK, which has no RGB equivalent here${hint}`,
    );
  if (components !== 1 && components !== 3)
    throw badMember(place, `JPEG with ${components} components is not supported${hint}`);
  if (width * height > MAX_PIXELS)
    throw badMember(
      place,
      `JPEG of ${width}×${height} pixels is larger than this converter decodes (512 MiB as RGB)`,
    );
  return components === 1 ? 1 : 3;
}

/** Start-of-scan markers: in entropy-coded data 0xFF is always followed by 0x00 or RSTn. */
function scanCount(bytes: Uint8Array): number {
  let scans = 0;
  for (let i = bytes.indexOf(0xff); i >= 0 && i + 1 < bytes.length; i = bytes.indexOf(0xff, i + 1))
    if (bytes[i + 1] === 0xda) scans++;
  return scans;
}

/** JPEG → 8-bit HWC pixels, grey (1 channel) or RGB (3). */
export async function decodeJpeg(bytes: Uint8Array, place: MemberPlace) {
  const channels = checkFrame(readFrame(bytes, place), place);
  const scans = scanCount(bytes);
  if (scans > MAX_SCANS)
    throw badMember(
      place,
      `JPEG has ${scans} scans; more than ${MAX_SCANS} is refused (each one is a pass over the image)`,
    );
  let codecNow: JpegCodec;
  try {
    codecNow = await load();
  } catch (error) {
    throw new FormatError(
      'UnsupportedFeature',
      `cannot load the JPEG decoder (${(error as Error).message})`,
      {
        file: place.file,
        offset: place.offset,
        format: place.format ?? 'taridx',
      },
      { cause: error },
    );
  }
  messages = [];
  let image: { width: number; height: number; data: Uint8ClampedArray };
  try {
    image = codecNow.decode(bytes, false);
  } catch (error) {
    // libjpeg's error exits the program: start from a fresh instance next time.
    codec = undefined;
    const why = messages.at(-1) ?? (error as Error).message ?? String(error);
    throw badMember(
      place,
      `cannot decode the JPEG (libjpeg-turbo: ${why}); pass ${keepFlag(place)} to store it as is`,
      error,
    );
  }
  if (codecNow.HEAPU8.byteLength > KEEP_MEMORY) codec = undefined;
  // Pillow refuses a JPEG whose data ends early ("image file is truncated"); libjpeg pads it grey.
  const early = messages.find((m) => /Premature end of JPEG file/.test(m));
  if (early) throw badMember(place, `JPEG data ends early (libjpeg-turbo: ${early})`);
  return { height: image.height, width: image.width, channels, pixels: fromRgba(image.data, channels) };
}

function fromRgba(rgba: Uint8ClampedArray, channels: number): Uint8Array {
  const pixels = rgba.length / 4;
  const out = new Uint8Array(pixels * channels);
  if (channels === 1) {
    for (let i = 0; i < pixels; i++) out[i] = rgba[i * 4];
  } else {
    for (let i = 0, o = 0, p = 0; i < pixels; i++, o += 3, p += 4) {
      out[o] = rgba[p];
      out[o + 1] = rgba[p + 1];
      out[o + 2] = rgba[p + 2];
    }
  }
  return out;
}
