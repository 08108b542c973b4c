import { isBinscopeError } from '@binscope/core';
import fc from 'fast-check';

/** Seeded and bounded so CI stays fast; BINSCOPE_FUZZ_RUNS raises it for a long run. */
export const FUZZ_RUNS = Number(process.env.BINSCOPE_FUZZ_RUNS ?? 150);

export type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'run'; at: number; value: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'u32'; at: number; value: number }
  | { kind: 'u64'; at: number; value: bigint }
  | { kind: 'copy'; from: number; to: number; length: number };

const interesting32 = [0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 16, 64, 512];
const interesting64 = [0n, 1n, 0xffffffffn, 2n ** 53n, 2n ** 60n, 2n ** 63n, 2n ** 64n - 1n];

/** One of `items`, however many (constantFrom spreads them into an argument list). */
function oneOf<T>(items: readonly T[]): fc.Arbitrary<T> {
  return fc.nat({ max: items.length - 1 }).map((i) => items[i]);
}

/**
 * Mutations of a valid file: bit flips, byte runs, truncation (often at the given structure
 * boundaries), 32/64-bit fields set to 0/max/huge values (little- or big-endian), and copies
 * of one region over another (duplicated or cyclic references).
 */
export function mutationArbitrary(
  size: number,
  boundaries: readonly number[] = [],
): fc.Arbitrary<Mutation[]> {
  const at = fc.nat({ max: Math.max(0, size - 1) });
  const inside = boundaries.filter((b) => b < size);
  const cut = inside.length ? fc.oneof(oneOf(inside), at) : at;
  const one: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at, bit: fc.nat({ max: 7 }) }),
    fc.record({
      kind: fc.constant('run' as const),
      at,
      value: fc.constantFrom(0, 0xff, 0x41),
      length: fc.integer({ min: 1, max: 64 }),
    }),
    fc.record({ kind: fc.constant('truncate' as const), at: cut }),
    fc.record({
      kind: fc.constant('u32' as const),
      at: boundaries.length ? fc.oneof(oneOf(boundaries), at) : at,
      value: fc.constantFrom(...interesting32),
    }),
    fc.record({
      kind: fc.constant('u64' as const),
      at: boundaries.length ? fc.oneof(oneOf(boundaries), at) : at,
      value: fc.constantFrom(...interesting64),
    }),
    fc.record({
      kind: fc.constant('copy' as const),
      from: at,
      to: at,
      length: fc.integer({ min: 1, max: 128 }),
    }),
  );
  return fc.array(one, { minLength: 1, maxLength: 3 });
}

export function applyMutations(input: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let out = input.slice();
  for (const m of mutations) {
    switch (m.kind) {
      case 'flip':
        if (m.at < out.length) out[m.at] ^= 1 << m.bit;
        break;
      case 'run':
        out.fill(m.value, m.at, Math.min(out.length, m.at + m.length));
        break;
      case 'truncate':
        out = out.slice(0, m.at);
        break;
      case 'u32':
        if (m.at + 4 <= out.length) new DataView(out.buffer).setUint32(m.at, m.value, m.at % 2 === 0);
        break;
      case 'u64':
        if (m.at + 8 <= out.length) new DataView(out.buffer).setBigUint64(m.at, m.value, m.at % 2 === 0);
        break;
      case 'copy': {
        const length = Math.min(m.length, out.length - m.from, out.length - m.to);
        if (length > 0) out.copyWithin(m.to, m.from, m.from + length);
        break;
      }
    }
  }
  return out;
}

/**
 * Runs `read` on `input`: it must succeed or throw a FormatError. Anything else (RangeError,
 * TypeError, out-of-memory) fails the test with the mutated bytes' description. Returns
 * whether the input was rejected.
 */
export async function expectFormatErrorOrSuccess(
  read: () => Promise<unknown>,
  description: string,
): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (error) {
    if (!isBinscopeError(error, 'FormatError')) {
      throw new Error(`not a FormatError for ${description}: ${(error as Error)?.stack ?? error}`);
    }
    return true;
  }
}

/**
 * Mutations known to break a rule of every format fuzzed here: cutting bytes off the end.
 * Each format's structure accounts for all of its bytes up to the last one it wrote, so
 * a strict prefix of a valid file is never valid.
 */
export function onlyTruncates(mutations: readonly Mutation[], bytes: Uint8Array, valid: Uint8Array): boolean {
  return bytes.byteLength < valid.byteLength && mutations.every((m) => m.kind === 'truncate');
}

export interface FuzzOptions {
  boundaries?: readonly number[];
  runs?: number;
  seed?: number;
  memoryFactor?: number;
  /** Named in the report line and in failures. */
  label?: string;
  /**
   * Mutations that break a rule, so reading must fail (not merely not crash). Default:
   * `onlyTruncates`; pass `() => false` where a format tolerates them.
   */
  mustReject?: (mutations: readonly Mutation[], bytes: Uint8Array, valid: Uint8Array) => boolean;
  /** The run fails when the time limit stopped it before this many mutants (default: half the runs). */
  minRuns?: number;
  /**
   * Wall-clock limit of the run, ms. None by default: every run tries all its mutants, so a
   * busy machine takes longer but proves as much (the test's timeout bounds a hang).
   */
  timeLimit?: number;
}

export interface FuzzStats {
  /** Mutants tried. */
  tried: number;
  /** Of those, rejected with a FormatError. */
  rejected: number;
  /** Mutants that had to be rejected (and were: the run fails otherwise). */
  mustReject: number;
  /** Whether the time limit ended the run early. */
  interrupted: boolean;
}

/**
 * Property: every mutation of `valid` either reads fine or fails with a FormatError, those
 * that break a rule (`mustReject`) fail, and heap growth stays within `memoryFactor`× the
 * input size (plus a small constant). Prints how many mutants were tried; a run the time
 * limit cut below `minRuns` fails, so a slow machine cannot silently prove less.
 */
export async function fuzzMutations(
  valid: Uint8Array,
  read: (bytes: Uint8Array) => Promise<unknown>,
  options: FuzzOptions = {},
): Promise<FuzzStats> {
  const memoryLimit = (options.memoryFactor ?? 64) * valid.byteLength + 64 * 1024 * 1024;
  const runs = options.runs ?? FUZZ_RUNS;
  const minRuns = options.minRuns ?? Math.ceil(runs / 2);
  const mustReject = options.mustReject ?? onlyTruncates;
  const label = options.label ?? `${valid.byteLength}-byte input`;
  const stats: FuzzStats = { tried: 0, rejected: 0, mustReject: 0, interrupted: false };
  const details = await fc.check(
    fc.asyncProperty(mutationArbitrary(valid.byteLength, options.boundaries), async (mutations) => {
      const bytes = applyMutations(valid, mutations);
      const description = JSON.stringify(mutations, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
      const before = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
      const rejected = await expectFormatErrorOrSuccess(() => read(bytes), description);
      const grown = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed - before;
      if (grown > memoryLimit)
        throw new Error(`reading a ${bytes.byteLength}-byte file grew memory by ${grown} bytes`);
      if (mustReject(mutations, bytes, valid)) {
        if (!rejected) throw new Error(`${description} breaks a rule but was read without an error`);
        stats.mustReject++;
      }
      if (rejected) stats.rejected++;
    }),
    { numRuns: runs, seed: options.seed ?? 42, interruptAfterTimeLimit: options.timeLimit },
  );
  stats.tried = details.numRuns;
  stats.interrupted = details.interrupted;
  if (details.failed) {
    const cause = details.errorInstance as Error | undefined;
    throw new Error(`fuzz ${label}: ${cause?.message ?? 'failed'}\n${fc.defaultReportMessage(details)}`, {
      cause,
    });
  }
  console.log(
    `fuzz ${label}: ${stats.tried} mutants tried, ${stats.rejected} rejected (${stats.mustReject} had to be)${
      stats.interrupted ? ', stopped by the time limit' : ''
    }`,
  );
  if (stats.interrupted && stats.tried < minRuns)
    throw new Error(
      `fuzz ${label}: the time limit stopped the run after ${stats.tried} mutants, below the floor of ${minRuns}`,
    );
  return stats;
}
