import type { ReadOptions } from './bytes.js';
import { basename } from './directory.js';
import { toHex } from './hex.js';
import type { AnyFormatPlugin, FormatInfo, MagicSignature, Target } from './plugin.js';

/**
 * Plain tar files are not a plugin format but TARIDX indexes them, so detection names
 * them: the POSIX/GNU "ustar" magic at byte 257.
 */
export const TAR_SHARD: FormatInfo = {
  specificationVersion: 'v1',
  id: 'tar',
  title: 'tar shard',
  kind: 'file',
  extensions: ['tar'],
  mimeTypes: ['application/x-tar'],
  magic: [{ offset: 257, bytes: 'ustar' }],
};

export const HEAD_WINDOW = 4096;

/** Versions of the FormatPlugin contract this core can drive. */
export const SPECIFICATION_VERSIONS = ['v1'] as const;

export interface Candidate {
  id: string;
  score: number;
  reason: string;
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
  /** "byte 5 is 0x00, expected 0x0a (8 of 9 signature bytes match)" */
  detail: string;
  /** "BadMagic for MLDF: " + detail */
  message: string;
}

export interface Detection {
  /** Plugin id, 'tar' for a tar shard, or null when nothing matched. */
  format: string | null;
  title: string;
  plugin?: AnyFormatPlugin;
  /** Every match, best first, with why it matched. */
  candidates: Candidate[];
  /** The first bytes of the file (empty for a directory), for an honest "unknown". */
  head: Uint8Array;
  headHex: string;
  /** When nothing matched: the format this file most nearly is, if any. */
  nearMiss?: NearMiss;
}

export interface Registry {
  readonly plugins: readonly AnyFormatPlugin[];
  get(id: string): AnyFormatPlugin | undefined;
  detect(target: Target, options?: ReadOptions): Promise<Detection>;
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
      // Longer signatures are less likely to match by chance; the extension breaks ties.
      out.push({
        id: format.id,
        score: length + (byExtension ? 0.5 : 0),
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
        detail,
        message: `BadMagic for ${format.id.toUpperCase()}: ${detail}`,
      };
    }
    if (best) out.push(best);
  }
  const rank = (m: NearMiss) => m.matched / m.length + (m.byExtension ? 1 : 0);
  return out.sort((a, b) => rank(b) - rank(a));
}

/** Registration is explicit: pass the plugins you want, in the order that breaks ties. */
export function createRegistry(plugins: readonly AnyFormatPlugin[]): Registry {
  for (const plugin of plugins) {
    // A plugin built against another version of the contract would be called with arguments
    // it does not expect: refuse it at registration, not at the first file.
    const version: unknown = (plugin as { specificationVersion?: unknown }).specificationVersion;
    if (!SPECIFICATION_VERSIONS.includes(version as 'v1')) {
      throw new TypeError(
        `plugin "${plugin.id}" implements FormatPlugin specification ${JSON.stringify(version)}; this @binscope/core supports ${SPECIFICATION_VERSIONS.join(', ')}`,
      );
    }
  }
  const byId = new Map(plugins.map((p) => [p.id, p]));
  return {
    plugins,
    get: (id) => byId.get(id),
    async detect(target, options) {
      if (target.kind === 'directory') {
        const candidates: Candidate[] = [];
        for (const plugin of plugins) {
          if (plugin.kind !== 'directory' || !plugin.detect) continue;
          const score = await plugin.detect(target, new Uint8Array(0), options);
          if (score > 0) candidates.push({ id: plugin.id, score, reason: 'directory layout' });
        }
        candidates.sort((a, b) => b.score - a.score);
        const best = candidates[0] ? byId.get(candidates[0].id) : undefined;
        return {
          format: best?.id ?? null,
          title: best?.title ?? 'unknown directory',
          plugin: best,
          candidates,
          head: new Uint8Array(0),
          headHex: '',
        };
      }
      const source = target.source;
      const head = (await source.read(0, Math.min(HEAD_WINDOW, source.size), options)).slice();
      const name = basename(source.name);
      const candidates = rankByMagic([...plugins, TAR_SHARD], head, name);
      for (const plugin of plugins) {
        if (plugin.kind !== 'file' || !plugin.detect || candidates.some((c) => c.id === plugin.id)) continue;
        const score = await plugin.detect(target, head, options);
        if (score > 0) candidates.push({ id: plugin.id, score, reason: 'content check' });
      }
      candidates.sort((a, b) => b.score - a.score);
      const bestId = candidates[0]?.id;
      const plugin = bestId ? byId.get(bestId) : undefined;
      const nearMiss = bestId ? undefined : nearMisses([...plugins, TAR_SHARD], head, name)[0];
      return {
        nearMiss,
        format: bestId ?? null,
        title: plugin?.title ?? (bestId === TAR_SHARD.id ? TAR_SHARD.title : 'unknown'),
        plugin,
        candidates,
        head: head.subarray(0, 64),
        headHex: toHex(head.subarray(0, 64)),
      };
    },
  };
}
