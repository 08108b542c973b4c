import { basename, type ByteSource, type DirectorySource } from '@binscope/core';
import { MAX_SHARDS, fail } from './layout.js';

/** Compares as Python sorts str: by code point (JS sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx - cy;
  }
}

/**
 * T4's order for shards named `<fold>_<suffix>.tar`: by fold, then by suffix, each as text by
 * code point (upstream splits the name at `_` and sorts the suffixes). Other names by name.
 */
export function compareShardNames(a: string, b: string): number {
  const split = (name: string): [string, string] | undefined => {
    const base = basename(name);
    if (!base.endsWith('.tar')) return undefined;
    const parts = base.slice(0, -'.tar'.length).split('_');
    return parts.length === 2 ? [parts[0], parts[1]] : undefined;
  };
  const x = split(a);
  const y = split(b);
  if (!x || !y) return compareCodePoints(basename(a), basename(b));
  return compareCodePoints(x[0], y[0]) || compareCodePoints(x[1], y[1]);
}

/** The fold an index belongs to: its file name without `.taridx` (T4). */
export function foldOf(indexName: string): string | undefined {
  const base = basename(indexName);
  return base.endsWith('.taridx') && base.length > '.taridx'.length
    ? base.slice(0, -'.taridx'.length)
    : undefined;
}

/**
 * The fold's shards in fid order (T4): files `<fold>_<suffix>.tar` directly in the folder,
 * the suffix without `_` or `/` (as upstream splits names), ordered as upstream orders them:
 * by the suffix alone, as text by code point. Whole names sort differently when one suffix
 * is a prefix of another (`sh_5-b.tar` < `sh_5.tar`, but suffix `5` < `5-b`).
 */
export function shardNames(paths: readonly string[], fold: string): string[] {
  const prefix = `${fold}_`;
  const suffixOf = (p: string) => p.slice(prefix.length, -'.tar'.length);
  return paths
    .filter((p) => {
      if (!p.startsWith(prefix) || !p.endsWith('.tar') || p.length < prefix.length + 4) return false;
      const suffix = suffixOf(p);
      return !suffix.includes('_') && !suffix.includes('/');
    })
    .sort((a, b) => compareCodePoints(suffixOf(a), suffixOf(b)));
}

export async function listShards(directory: DirectorySource, fold: string): Promise<string[]> {
  const names = shardNames(await directory.list(), fold);
  if (names.length > MAX_SHARDS) {
    throw fail(
      'UnsupportedFeature',
      `fold '${fold}' has ${names.length} shards; a .taridx addresses at most ${MAX_SHARDS} (fid is 16 bits)`,
      undefined,
      directory.name,
    );
  }
  return names;
}

/**
 * Shards by fid: from a folder (listed once, opened on demand) or an explicit list.
 * A fid with no shard is an error naming the file that is probably missing.
 */
export class ShardSet {
  private readonly opened: Array<ByteSource | undefined>;

  private constructor(
    readonly names: readonly string[],
    private readonly openByName: ((name: string) => Promise<ByteSource>) | undefined,
    sources: readonly ByteSource[] | undefined,
    readonly where: string,
    readonly fold: string | undefined,
  ) {
    this.opened = sources ? [...sources] : new Array(names.length);
  }

  static async fromDirectory(directory: DirectorySource, fold: string): Promise<ShardSet> {
    const names = await listShards(directory, fold);
    return new ShardSet(names, (name) => directory.open(name), undefined, directory.name, fold);
  }

  /** Shards given in fid order. */
  static fromSources(sources: readonly ByteSource[]): ShardSet {
    return new ShardSet(
      sources.map((s) => s.name),
      undefined,
      sources,
      'the given shard list',
      undefined,
    );
  }

  get count(): number {
    return this.names.length;
  }

  /** Opens shard `fid` (cached); a missing one raises SourceError naming it. */
  async open(fid: number): Promise<ByteSource> {
    const cached = this.opened[fid];
    if (cached) return cached;
    // A fid past the listed shards points past the table it indexes (A3).
    if (fid >= this.names.length || !this.openByName) {
      throw fail('OutOfBounds', this.missingMessage(fid), undefined, this.guessName(fid));
    }
    const source = await this.openByName(this.names[fid]);
    this.opened[fid] = source;
    return source;
  }

  /** The synchronous fast path once a shard is open. */
  peek(fid: number): ByteSource | undefined {
    return this.opened[fid];
  }

  missingMessage(fid: number): string {
    const pattern = this.fold ? `${this.fold}_*.tar` : 'shards';
    const guess = this.guessName(fid);
    const found =
      this.names.length === 0
        ? 'none were found'
        : `only ${this.names.length} exist (${this.names[0]}${this.names.length > 1 ? ` … ${this.names[this.names.length - 1]}` : ''})`;
    return `shard fid ${fid} is missing: ${pattern} in ${this.where} gives fids 0..${this.names.length - 1}, ${found}${guess ? `; ${guess} is probably missing` : ''}`;
  }

  /**
   * The name a missing shard most likely has: shards are usually numbered with a fixed
   * width, so the first gap in the numbering (or the number after the last) names it.
   */
  guessName(fid?: number): string | undefined {
    const gap = this.firstGap();
    if (gap) return gap;
    if (!this.fold || this.names.length === 0 || fid === undefined) return undefined;
    const numbers = this.numbered();
    if (!numbers) return undefined;
    const width = numbers.width;
    const next = numbers.values[numbers.values.length - 1] + 1 + (fid - this.names.length);
    return `${this.fold}_${String(next).padStart(width, '0')}.tar`;
  }

  /** The first shard missing from an otherwise consecutive numbering, if any. */
  firstGap(): string | undefined {
    const numbers = this.numbered();
    if (!numbers || !this.fold) return undefined;
    for (let i = 1; i < numbers.values.length; i++) {
      if (numbers.values[i] !== numbers.values[i - 1] + 1) {
        return `${this.fold}_${String(numbers.values[i - 1] + 1).padStart(numbers.width, '0')}.tar`;
      }
    }
    return undefined;
  }

  private numbered(): { values: number[]; width: number } | undefined {
    if (!this.fold || this.names.length === 0) return undefined;
    const suffixes = this.names.map((n) => n.slice(this.fold!.length + 1, -'.tar'.length));
    const width = suffixes[0].length;
    if (!suffixes.every((s) => /^\d+$/.test(s) && s.length === width)) return undefined;
    return { values: suffixes.map(Number), width };
  }
}
