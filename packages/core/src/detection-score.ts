/**
 * The one scale every detection score is on, from 0 (no) to 1: signatures scored by
 * rankByMagic and the confidences plugins' `detect()` return compare directly, so a content
 * check never outranks a full signature by accident of units.
 */
export const DETECTION_SCORE = {
  /** Only the file name's extension matches: a near miss (nearMissScore), never a detection. */
  extension: 0.1,
  /** Part of a signature matches, e.g. a format family's prefix with an unknown revision. */
  partialMagic: 0.3,
  /** A full signature matches; longer signatures and a matching extension add up to 0.165. */
  magic: 0.6,
  /** A signature plus a structural check (a folder holding the right file with its magic). */
  magicAndStructure: 0.9,
  /** Certain: the format's structure was parsed and agrees. */
  certain: 1,
} as const;

/** Signatures longer than this add nothing more: 16 bytes are already unique in practice. */
const LONGEST_COUNTED_SIGNATURE = 16;

const PER_BYTE = 0.01;

/**
 * A full signature's score: longer signatures are less likely to match by chance, and the
 * extension (worth half a byte) breaks ties between signatures of one length only, so a
 * longer signature still wins. Stays below magicAndStructure.
 */
export function magicScore(signatureLength: number, byExtension: boolean): number {
  const length = Math.min(Math.max(signatureLength, 0), LONGEST_COUNTED_SIGNATURE);
  const score = DETECTION_SCORE.magic + PER_BYTE * length + (byExtension ? PER_BYTE / 2 : 0);
  // Rounded so `detect --json` shows 0.69, not 0.6900000000000001.
  return Math.round(score * 1000) / 1000;
}

/**
 * How nearly a file is a format it does not match: below partialMagic, so a near miss never
 * competes with a detection. The extension counts most, then the share of signature bytes.
 */
export function nearMissScore(matched: number, length: number, byExtension: boolean): number {
  const share = length > 0 ? Math.min(matched / length, 1) : 0;
  const score = (byExtension ? DETECTION_SCORE.extension : 0) + DETECTION_SCORE.extension * share * 0.99;
  return Math.round(score * 10_000) / 10_000;
}

/** A plugin's detect() answer on the scale: NaN, negatives and overshoots cannot reorder. */
export function clampScore(score: number): number {
  return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}
