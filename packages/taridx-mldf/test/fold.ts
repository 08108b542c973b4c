import { jpegBytes, npyBytes, tarBytes } from '@binscope/testkit';
import { encode as encodePng } from 'fast-png';

const enc = new TextEncoder();

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
export async function makeFold(): Promise<{ files: Record<string, Uint8Array>; samples: FoldSample[] }> {
  const samples: FoldSample[] = [];
  const jpegs = await Promise.all(
    [0, 1, 2, 3, 4, 5].map((i) =>
      jpegBytes({
        width: 8,
        height: 8,
        rgba: new Uint8Array(8 * 8 * 4).map((_, p) => (p % 4 === 3 ? 255 : (p * 13 + i * 40) & 0xff)),
      }),
    ),
  );
  const entries = [0, 1, 2, 3, 4, 5].map((i) => {
    const key = `k${i}`;
    const width = 3 + i;
    const pngPixels = new Uint8Array(width * 2 * 3).map((_, p) => (p * 7 + i) & 0xff);
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
      i === 4 ? undefined : { name: `${key}.jpg`, data: jpegs[i] },
      { name: `sub/${key}.json`, data: enc.encode(JSON.stringify(sample.json)) },
      { name: `${key}.txt`, data: enc.encode(sample.txt) },
      i === 2 ? undefined : { name: `${key}.cls`, data: enc.encode(`${sample.cls}\n`) },
      {
        name: `${key}.npy`,
        data: npyBytes('<f4', [2], new Uint8Array(new Float32Array(sample.npy).buffer)),
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
