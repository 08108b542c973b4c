// A writer process for the S3 kill and memory tests: streams `size` random bytes to an
// output through core's built openOutput, with core's SIGINT/SIGTERM handling on.
// Usage: node s3-writer.mjs <target> <size> [stopAt] [partSize] [memoryBudget]
// Prints "opened", then "at <bytes>" after each MiB; at `stopAt` bytes it prints "waiting"
// and waits to be killed. At the end it prints one JSON line: { sha256, size, vmHWMkB }.
import { createHash, randomFillSync } from 'node:crypto';
import * as fs from 'node:fs';
import { openOutput, removeTempsOnSignals } from '../../dist/node/index.js';

removeTempsOnSignals();
const [target, sizeText, stopText, partText, budgetText] = process.argv.slice(2);
const size = Number(sizeText);
const stopAt = stopText && stopText !== '-' ? Number(stopText) : Number.POSITIVE_INFINITY;
const out = await openOutput(target, {
  expectedSize: size,
  upload: {
    partSize: partText && partText !== '-' ? Number(partText) : undefined,
    memoryBudget: budgetText ? Number(budgetText) : undefined,
  },
  onWarning: (message) => process.stderr.write(`${message}\n`),
});
process.stdout.write('opened\n');
const hash = createHash('sha256');
const chunk = new Uint8Array(1024 * 1024);
let written = 0;
while (written < size) {
  if (written >= stopAt) {
    process.stdout.write('waiting\n');
    setInterval(() => {}, 60_000);
    await new Promise(() => {});
  }
  const piece = chunk.subarray(0, Math.min(chunk.byteLength, size - written, Math.max(1, stopAt - written)));
  randomFillSync(piece);
  hash.update(piece);
  await out.write(piece);
  written += piece.byteLength;
  process.stdout.write(`at ${written}\n`);
}
await out.commit();
const status = fs.readFileSync('/proc/self/status', 'utf8');
const vmHWMkB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
process.stdout.write(`${JSON.stringify({ sha256: hash.digest('hex'), size: written, vmHWMkB })}\n`);
