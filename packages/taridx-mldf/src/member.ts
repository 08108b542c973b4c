import { FormatError } from '@binscope/core';

/**
 * The kind of value a WebDataset member holds, from the last dot-suffix of its extension
 * (`seg.png` is an image); the whole extension stays the field name.
 */
export type MemberKind = 'image' | 'json' | 'text' | 'class' | 'npy' | 'bytes';

export function kindOf(ext: string): MemberKind {
  const last = ext.slice(ext.lastIndexOf('.') + 1);
  if (last === 'jpg' || last === 'jpeg' || last === 'png') return 'image';
  if (last === 'json') return 'json';
  if (last === 'txt') return 'text';
  if (last === 'cls') return 'class';
  if (last === 'npy') return 'npy';
  return 'bytes';
}

/** Where a member is, so an error names the sample, the member and the shard. */
export interface MemberPlace {
  file: string;
  /** The member's header offset in its shard; none for a value of records (no byte offset of its own). */
  offset?: number;
  key: string;
  ext: string;
  /** What the value is called when it is no tar member (records → MLDF: `column "img" row 5`). */
  label?: string;
  /** The flag that stores the value undecoded, which an image error suggests (default `--keep-encoded`). */
  keepFlag?: string;
  /** The format of the input, for errors (default `taridx`). */
  format?: string;
}

/** The flag an image error suggests for storing the value as it is. */
export function keepFlag(place: MemberPlace): string {
  return place.keepFlag ?? '--keep-encoded';
}

export function badMember(place: MemberPlace, message: string, cause?: unknown): FormatError {
  return new FormatError(
    'InvalidValue',
    `${place.label ?? `sample ${JSON.stringify(place.key)} member .${place.ext}`}: ${message}`,
    { file: place.file, offset: place.offset, format: place.format ?? 'taridx' },
    { cause },
  );
}
