import { type Awaitable, basename, type ByteSource, type DirectorySource, SourceError } from '@binscope/core';
import { fail, MAX_SHARDS } from './layout.js';

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
    this.check(fid);
    const source = await this.openByName!(this.names[fid]);
    this.opened[fid] = source;
    return source;
  }

  /** Throws the error `open(fid)` gives for a fid with no shard: OutOfBounds, naming the file probably missing. */
  check(fid: number): void {
    // A fid past the listed shards points past the table it indexes (A3).
    if (fid >= this.names.length || (!this.openByName && !this.opened[fid]))
      throw fail('OutOfBounds', this.missingMessage(fid), undefined, this.guessName(fid));
  }

  /** The synchronous fast path once a shard is open. */
  peek(fid: number): ByteSource | undefined {
    return this.opened[fid];
  }

  /** Closes the shards this set opened from its folder (sources it was given are their owner's). */
  async close(): Promise<void> {
    if (!this.openByName) return;
    const opened = this.opened.filter((s): s is ByteSource => s !== undefined);
    this.opened.fill(undefined);
    await Promise.all(opened.map((s) => s.close?.()));
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

/** Where a reader's shards are: a folder holding `<fold>_*.tar`, or the shards in fid order. */
export type ShardOption = DirectorySource | readonly ByteSource[];

/**
 * A reader's shards: listed on first use (or given), each opened when first read and kept
 * open; `shard(fid)` answers synchronously once it is open. Closes only the shards it opened
 * from the folder: the folder and given sources are the caller's.
 */
export class ReaderShards {
  private set?: Promise<ShardSet | undefined>;
  private ready?: ShardSet;
  /** Whether the shards were listed (`ready` is then what was found). */
  private listed = false;

  constructor(
    private readonly option: ShardOption | undefined,
    readonly fold: string | undefined,
    private readonly indexName: string,
  ) {
    // Shards given as sources need no listing: they answer from the first read on.
    if (Array.isArray(option)) {
      this.ready = ShardSet.fromSources(option as readonly ByteSource[]);
      this.listed = true;
      this.set = Promise.resolve(this.ready);
    }
  }

  /** The shards in fid order, or undefined when none are reachable. */
  list(): Promise<ShardSet | undefined> {
    this.set ??= (async () => {
      const option = this.option;
      let set: ShardSet | undefined;
      if (Array.isArray(option)) set = ShardSet.fromSources(option as readonly ByteSource[]);
      else if (option && this.fold) set = await ShardSet.fromDirectory(option as DirectorySource, this.fold);
      this.ready = set;
      this.listed = true;
      return set;
    })();
    return this.set;
  }

  /**
   * Shard `fid`: at once when it is open, else listed and opened first. Once the shards are
   * listed, no shards and a fid past them are errors thrown at once.
   */
  shard(fid: number): Awaitable<ByteSource> {
    if (!this.listed) return this.list().then(() => this.shard(fid));
    const set = this.ready;
    if (!set) throw this.missing();
    const open = set.peek(fid);
    if (open) return open;
    set.check(fid);
    return set.open(fid);
  }

  /** A shard's name for messages, without opening it. */
  shardName(fid: number): string {
    return this.ready?.names[fid] ?? `shard ${fid}`;
  }

  /** The error for reading payloads with no shards at hand, naming what is missing. */
  missing(): SourceError {
    const pattern = `${this.fold ?? '<fold>'}_*.tar`;
    const how =
      this.option && !Array.isArray(this.option) && !this.fold
        ? `the index's name does not end in .taridx, so it names no fold: pass { fold }`
        : this.ready?.count === 0
          ? `${this.ready.where} holds no ${pattern}`
          : `open the index beside its ${pattern} shards or pass { shards }`;
    return new SourceError(`${this.indexName}: no shards to read from; ${how}`, this.indexName, {
      reason: 'missing',
    });
  }

  async close(): Promise<void> {
    const set = this.ready ?? (this.set ? await this.set.catch(() => undefined) : undefined);
    await set?.close();
  }
}
