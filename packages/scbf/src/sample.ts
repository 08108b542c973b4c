import { type DirectorySink, memoryScratch, type ReadOptions } from '@binscope/core';
import { convertCsvToScbf } from './convert.js';

/** Deterministic numbers, so every sample is the same table. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPECIES = ['setosa', 'versicolor', 'virginica'];

/** A small table as CSV, with a quoted comma and quote so the CSV dialect shows. */
export function measurementsCsv(): string {
  const rand = random(1);
  const lines = ['id,species,sepal_length,petal_width,note'];
  for (let i = 1; i <= 12; i++) {
    const species = SPECIES[(i - 1) % 3];
    const sepal = (4.5 + Math.round(rand() * 30) / 10).toFixed(1);
    const petal = (0.1 + Math.round(rand() * 20) / 10).toFixed(1);
    const note = i === 1 ? '"first, and ""quoted"""' : i === 12 ? 'last' : '';
    lines.push(`${i},${species},${sepal},${petal},${note}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * capabilities.sample: `measurements.csv` and the `measurements.scbf` converted from it by
 * the format's own converter (what `binscope demo` shows). Lists the SCBF file only.
 */
export async function writeScbfSample(out: DirectorySink, options: ReadOptions = {}): Promise<string[]> {
  const csv = new TextEncoder().encode(measurementsCsv());
  await out.write('measurements.csv', csv);
  await out.write('measurements.scbf', async (sink) => {
    const chunks = (async function* () {
      yield csv;
    })();
    const scratch = memoryScratch();
    try {
      await convertCsvToScbf.convert(
        { kind: 'stream', name: 'measurements.csv', chunks },
        { kind: 'file', sink },
        { scratch, signal: options.signal },
      );
    } finally {
      scratch.close();
    }
  });
  return ['measurements.scbf'];
}
