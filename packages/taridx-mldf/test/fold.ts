import { tarBytes } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';
import { encode as encodeJpeg } from 'jpeg-js';

const enc = new TextEncoder();

/** An .npy file (format 1.0) of a C-order array. */
export function npy(descr: string, shape: number[], data: Uint8Array): Uint8Array {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const out = new Uint8Array(10 + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(enc.encode(header), 10);
  out.set(data, 10 + header.length);
  return out;
}

export interface FoldSample {
  key: string;
  pngPixels: Uint8Array;
  json: unknown;
  txt: string;
  cls: number;
  npy: number[];
}

/**
 * Two shards of a fold "train", six samples, every member kind: a PNG (RGB), a JPEG, .json,
 * .txt, .cls and a float32 .npy of shape [2]. Sample k2 lacks its PNG and .cls, k4 its JPEG.
 */
export function makeFold(): { files: Record<string, Uint8Array>; samples: FoldSample[] } {
  const samples: FoldSample[] = [];
  const entries = [0, 1, 2, 3, 4, 5].map((i) => {
    const key = `k${i}`;
    const width = 3 + i;
    const pngPixels = new Uint8Array(width * 2 * 3).map((_, p) => (p * 7 + i) & 0xff);
    const rgba = new Uint8Array(8 * 8 * 4).map((_, p) => (p % 4 === 3 ? 255 : (p * 13 + i * 40) & 0xff));
    const sample: FoldSample = {
      key,
      pngPixels,
      json: { i, tag: `t${i}`, nested: [i, null, 'ü'] },
      txt: `caption ${i} ✓`,
      cls: i * 10 - 25,
      npy: [i, -i / 2],
    };
    samples.push(sample);
    return [
      i === 2
        ? undefined
        : {
            name: `${key}.png`,
            data: encodePng({ width, height: 2, data: pngPixels, channels: 3, depth: 8 }),
          },
      i === 4
        ? undefined
        : {
            name: `${key}.jpg`,
            data: new Uint8Array(encodeJpeg({ width: 8, height: 8, data: rgba }, 90).data),
          },
      { name: `sub/${key}.json`, data: enc.encode(JSON.stringify(sample.json)) },
      { name: `${key}.txt`, data: enc.encode(sample.txt) },
      i === 2 ? undefined : { name: `${key}.cls`, data: enc.encode(`${sample.cls}\n`) },
      {
        name: `${key}.npy`,
        data: npy('<f4', [2], new Uint8Array(new Float32Array(sample.npy).buffer)),
      },
    ].filter((e) => e !== undefined);
  });
  return {
    files: {
      'train_0.tar': tarBytes(entries.slice(0, 3).flat()),
      'train_1.tar': tarBytes(entries.slice(3).flat()),
    },
    samples,
  };
}
