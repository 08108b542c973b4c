import type { ReadOptions } from './bytes.js';
import type { ConverterInfo } from './convert.js';
import { clampScore, magicScore, nearMissScore } from './detection-score.js';
import { basename } from './directory.js';
import { RegistryError } from './errors.js';
import { toHex } from './hex.js';
import {
  type AnyFormatPlugin,
  type FormatInfo,
  type FormatRole,
  type LazyFormat,
  type MagicSignature,
  SPECIFICATION_VERSION,
  type Target,
} from './plugin.js';

/** The first bytes detection reads of a file. */
export const HEAD_WINDOW = 4096;

export interface Candidate {
  id: string;
  score: number;
  reason: string;
  /** The entry's role (a `container` such as a tar shard is detected, not read). */
  role: FormatRole;
}

/**
 * A file that almost carries a format's signature: most of its magic bytes, or the format's
 * extension. Named so a damaged file is reported as a damaged MLDF, not as "unknown".
 */
export interface NearMiss {
  id: string;
  title: string;
  /** Absolute offset of the first byte that differs from the signature. */
  offset: number;
  /** The byte the signature wants there. */
  expected: number;
  /** The byte the file has there, or null when the file ends before it. */
  actual: number | null;
  /** How many of the signature's bytes match. */
  matched: number;
  length: number;
  byExtension: boolean;
  /** On the detection scale, below DETECTION_SCORE.partialMagic: how nearly it is this format. */
  score: number;
  /** "byte 5 is 0x00, expected 0x0a (8 of 9 signature bytes match)" */
  detail: string;
  /** "BadMagic for MLDF: " + detail */
  message: string;
}

export interface Detection {
  /** The detected entry's id, or null when nothing matched. */
  format: string | null;
  title: string;
  /** The detected entry's metadata; its plugin loads with registry.load unless it is detection-only. */
  info?: FormatInfo;
  /** The detected entry's role: 'format' (a plugin reads it), 'container' or 'convertible'. */
  role?: FormatRole;
  /** Every match, best first, with why it matched. */
  candidates: Candidate[];
  /** The first bytes of the file (empty for a directory), for an honest "unknown". */
  head: Uint8Array;
  headHex: string;
  /** When nothing matched: the format this file most nearly is, if any. */
  nearMiss?: NearMiss;
}

/**
 * What createRegistry takes: a plugin already loaded, or a lazy entry (a format whose parser is
 * imported on first use, or a detection-only entry without `load`).
 */
export type RegistryEntry = AnyFormatPlugin | LazyFormat;

export interface Registry {
  /** Every registered entry's metadata, in registration order (which breaks detection ties). */
  readonly formats: readonly FormatInfo[];
  /** A registered entry's metadata, without loading its parser. */
  info(id: string): FormatInfo | undefined;
  /**
   * The format's plugin, importing its parser on first use (once). Throws a RegistryError:
   * `UnknownFormat`, `DetectionOnly` (a container or convertible without a plugin),
   * `PluginLoadFailed`, `PluginMismatch`.
   */
  load(id: string): Promise<AnyFormatPlugin>;
  /** Which parsers have been loaded so far (eager plugins count as loaded). */
  loadedIds(): string[];
  /** Reads only the head window (or the folder's marker file); never loads a parser. */
  detect(target: Target, options?: ReadOptions): Promise<Detection>;
  /** Every registered converter, in registration order. */
  readonly converters: readonly ConverterInfo[];
  /** The first converter from `from` to `to`, if any (ids as in ConverterInfo). */
  converter(from: string, to: string): ConverterInfo | undefined;
  /** Every converter that reads `from`, in registration order. */
  convertersFrom(from: string): ConverterInfo[];
}

function roleOf(format: FormatInfo): FormatRole {
  return format.role ?? 'format';
}

function magicBytes(sig: MagicSignature): Uint8Array {
  if (typeof sig.bytes !== 'string') return sig.bytes;
  return Uint8Array.from(sig.bytes, (c) => c.charCodeAt(0) & 0xff);
}

/** Printable signatures as text ("SCBFv1"), anything else as hex (89 4d 4c ...). */
function describeMagic(sig: MagicSignature): string {
  const bytes = magicBytes(sig);
  const printable = bytes.every((b) => b >= 0x20 && b < 0x7f);
  if (printable) return `"${String.fromCharCode(...bytes)}"`;
  const text = String.fromCharCode(...bytes).replace(/\0+$/, '');
  const trimmed = magicBytes({ offset: 0, bytes: text });
  if (text && trimmed.every((b) => b >= 0x20 && b < 0x7f))
    return `"${text}" + ${bytes.byteLength - text.length} NUL`;
  return toHex(bytes, ' ');
}

export function matchesMagic(head: Uint8Array, sig: MagicSignature): boolean {
  const bytes = magicBytes(sig);
  if (sig.offset + bytes.byteLength > head.byteLength) return false;
  for (let i = 0; i < bytes.byteLength; i++) if (head[sig.offset + i] !== bytes[i]) return false;
  return true;
}

/** Ranks formats against a head window. Pure: usable without any parser code loaded. */
export function rankByMagic(formats: readonly FormatInfo[], head: Uint8Array, name = ''): Candidate[] {
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  const out: Candidate[] = [];
  for (const format of formats) {
    if (format.kind !== 'file') continue;
    for (const sig of format.magic) {
      if (!matchesMagic(head, sig)) continue;
      const length = magicBytes(sig).byteLength;
      const byExtension = format.extensions.includes(ext);
      out.push({
        id: format.id,
        role: roleOf(format),
        score: magicScore(length, byExtension),
        reason: `magic ${describeMagic(sig)} at byte ${sig.offset}${byExtension ? `, extension .${ext}` : ''}`,
      });
      break;
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

const hexByte = (b: number) => `0x${b.toString(16).padStart(2, '0')}`;

/**
 * Formats a file nearly matches, best first: at least half of a signature's bytes (signatures
 * of 4 bytes or more, so one stray byte never names a format), or any signature when the file
 * has the format's extension. Pure, like rankByMagic.
 */
export function nearMisses(formats: readonly FormatInfo[], head: Uint8Array, name = ''): NearMiss[] {
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  const out: NearMiss[] = [];
  for (const format of formats) {
    if (format.kind !== 'file') continue;
    const byExtension = ext !== '' && format.extensions.includes(ext);
    let best: NearMiss | undefined;
    for (const sig of format.magic) {
      const bytes = magicBytes(sig);
      let matched = 0;
      let first = -1;
      for (let i = 0; i < bytes.byteLength; i++) {
        if (head[sig.offset + i] === bytes[i] && sig.offset + i < head.byteLength) matched++;
        else if (first < 0) first = i;
      }
      if (first < 0) continue; // a full match is a candidate, not a near miss
      const most = bytes.byteLength >= 4 && matched * 2 >= bytes.byteLength;
      if (!most && !byExtension) continue;
      if (best && best.matched >= matched) continue;
      const offset = sig.offset + first;
      const actual = offset < head.byteLength ? head[offset] : null;
      const what =
        actual === null
          ? `the file ends before byte ${offset}, where ${hexByte(bytes[first])} is expected`
          : `byte ${offset} is ${hexByte(actual)}, expected ${hexByte(bytes[first])}`;
      const detail = `${what} (${matched} of ${bytes.byteLength} signature bytes match${byExtension ? `, extension .${ext}` : ''})`;
      best = {
        id: format.id,
        title: format.title,
        offset,
        expected: bytes[first],
        actual,
        matched,
        length: bytes.byteLength,
        byExtension,
        score: nearMissScore(matched, bytes.byteLength, byExtension),
        detail,
        message: `BadMagic for ${format.id.toUpperCase()}: ${detail}`,
      };
    }
    if (best) out.push(best);
  }
  return out.sort((a, b) => b.score - a.score);
}

function isLoadedPlugin(entry: RegistryEntry): entry is AnyFormatPlugin {
  return typeof (entry as Partial<AnyFormatPlugin>).open === 'function';
}

/**
 * A plugin or converter built against another version of the contract would be called with
 * arguments it does not expect: refuse it at registration, not at the first file.
 */
function checkSpecification(entry: { id: string; specificationVersion?: unknown }, what: string): void {
  const version = entry.specificationVersion;
  if (version === SPECIFICATION_VERSION) return;
  const hint =
    version === 'v1'
      ? ': a v1 plugin (for @binscope/core 0.1) must be ported to the v2 contract (definePlugin, schema, DataRecord)'
      : '';
  throw new RegistryError(
    'UnsupportedSpecification',
    entry.id,
    `${what} "${entry.id}" implements specification ${JSON.stringify(version)}; this @binscope/core supports specification ${SPECIFICATION_VERSION}${hint}`,
  );
}

/**
 * Imports each parser once. A loaded module that is not the plugin its FormatInfo announced
 * (another id, another contract version) is refused: detection promised one thing, the
 * verb would run another.
 */
function pluginLoader(entries: readonly RegistryEntry[]) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const loads = new Map<string, Promise<AnyFormatPlugin>>();
  const loaded = new Set(entries.filter(isLoadedPlugin).map((e) => e.id));

  async function importPlugin(
    entry: LazyFormat,
    load: () => Promise<AnyFormatPlugin>,
  ): Promise<AnyFormatPlugin> {
    let plugin: AnyFormatPlugin;
    try {
      plugin = await load.call(entry);
    } catch (error) {
      const why = (error as Error)?.message?.split('\n')[0] ?? String(error);
      throw new RegistryError('PluginLoadFailed', entry.id, `cannot load the ${entry.id} parser: ${why}`, {
        cause: error,
      });
    }
    const id: unknown = (plugin as Partial<AnyFormatPlugin> | undefined)?.id;
    const version: unknown = (plugin as Partial<AnyFormatPlugin> | undefined)?.specificationVersion;
    if (id !== entry.id || version !== entry.specificationVersion || !isLoadedPlugin(plugin)) {
      throw new RegistryError(
        'PluginMismatch',
        entry.id,
        `the ${entry.id} loader returned ${JSON.stringify(id)} (specification ${JSON.stringify(version)}), expected "${entry.id}" (specification ${entry.specificationVersion})`,
      );
    }
    loaded.add(entry.id);
    return plugin;
  }

  return {
    loadedIds: () => [...loaded],
    load(id: string): Promise<AnyFormatPlugin> {
      const entry = byId.get(id);
      if (!entry) {
        const known = [...byId.keys()].join(', ');
        return Promise.reject(
          new RegistryError('UnknownFormat', id, `no such format: ${id} (known: ${known})`),
        );
      }
      if (isLoadedPlugin(entry)) return Promise.resolve(entry);
      const load = entry.load;
      if (!load) {
        const role = entry.role ?? 'format';
        return Promise.reject(
          new RegistryError(
            'DetectionOnly',
            id,
            `${entry.title} (${id}) is detected only (role ${role}): no plugin reads it`,
          ),
        );
      }
      let pending = loads.get(id);
      if (!pending) {
        pending = importPlugin(entry, load);
        // A failed import may be retried (a flaky network chunk); a good one is kept.
        pending.catch(() => loads.delete(id));
        loads.set(id, pending);
      }
      return pending;
    },
  };
}

/** Only the metadata of an entry, so detection cannot reach a parser by accident. */
function infoOf(entry: RegistryEntry): FormatInfo {
  const { specificationVersion, id, title, kind, role, extensions, mimeTypes, magic } = entry;
  const { detect, nearMiss, expectedFiles, howToRead } = entry;
  return {
    specificationVersion,
    id,
    title,
    kind,
    role: role ?? 'format',
    extensions,
    mimeTypes,
    magic,
    detect,
    nearMiss,
    expectedFiles,
    howToRead,
  };
}

/**
 * Registration is explicit: pass the entries you want, in the order that breaks detection ties
 * (a plugin, or a lazy entry whose parser is imported when needed), and the converters. Entries
 * and converters of another contract version are refused (`UnsupportedSpecification`).
 */
export function createRegistry(
  entries: readonly RegistryEntry[],
  converters: readonly ConverterInfo[] = [],
): Registry {
  for (const entry of entries) checkSpecification(entry, 'plugin');
  for (const converter of converters) checkSpecification(converter, 'converter');
  const formats = entries.map(infoOf);
  const byId = new Map(formats.map((f) => [f.id, f]));
  const loader = pluginLoader(entries);
  return {
    formats,
    info: (id) => byId.get(id),
    load: loader.load,
    loadedIds: loader.loadedIds,
    detect: (target, options) =>
      target.kind === 'directory'
        ? detectDirectory(formats, target, options)
        : detectFile(formats, target, options),
    converters,
    converter: (from, to) => converters.find((c) => c.from === from && c.to === to),
    convertersFrom: (from) => converters.filter((c) => c.from === from),
  };
}

async function detectDirectory(
  formats: readonly FormatInfo[],
  target: Target & { kind: 'directory' },
  options?: ReadOptions,
): Promise<Detection> {
  const candidates: Candidate[] = [];
  for (const format of formats) {
    if (format.kind !== 'directory' || !format.detect) continue;
    const score = clampScore(await format.detect(target, new Uint8Array(0), options));
    if (score > 0)
      candidates.push({ id: format.id, score, reason: 'directory layout', role: roleOf(format) });
  }
  candidates.sort((a, b) => b.score - a.score);
  const best = candidates[0] ? formats.find((f) => f.id === candidates[0].id) : undefined;
  return {
    nearMiss: best ? undefined : await hookedNearMiss(formats, target, options),
    format: best?.id ?? null,
    title: best?.title ?? 'unknown directory',
    info: best,
    role: best ? roleOf(best) : undefined,
    candidates,
    head: new Uint8Array(0),
    headHex: '',
  };
}

/** The best near miss the formats' own hooks report (formats whose signature is inside a folder). */
async function hookedNearMiss(
  formats: readonly FormatInfo[],
  target: Target,
  options?: ReadOptions,
): Promise<NearMiss | undefined> {
  const found: NearMiss[] = [];
  for (const format of formats) {
    const miss = await format.nearMiss?.(target, options);
    if (miss) found.push(miss);
  }
  return found.sort((a, b) => b.score - a.score)[0];
}

async function detectFile(
  formats: readonly FormatInfo[],
  target: Target & { kind: 'file' },
  options?: ReadOptions,
): Promise<Detection> {
  const source = target.source;
  const head = (await source.read(0, Math.min(HEAD_WINDOW, source.size), options)).slice();
  const name = basename(source.name);
  const candidates = rankByMagic(formats, head, name);
  for (const format of formats) {
    if (format.kind !== 'file' || !format.detect || candidates.some((c) => c.id === format.id)) continue;
    const score = clampScore(await format.detect(target, head, options));
    if (score > 0) candidates.push({ id: format.id, score, reason: 'content check', role: roleOf(format) });
  }
  // Stable sort: equal scores keep registration order, which is documented to break ties.
  candidates.sort((a, b) => b.score - a.score);
  const bestId = candidates[0]?.id;
  const info = bestId ? formats.find((f) => f.id === bestId) : undefined;
  const nearMiss = bestId
    ? undefined
    : (nearMisses(formats, head, name)[0] ?? (await hookedNearMiss(formats, target, options)));
  return {
    nearMiss,
    format: bestId ?? null,
    title: info?.title ?? 'unknown',
    info,
    role: info ? roleOf(info) : undefined,
    candidates,
    head: head.subarray(0, 64),
    headHex: toHex(head.subarray(0, 64)),
  };
}
