/**
 * A small deterministic tar writer for tests and benchmarks: USTAR (names split into
 * prefix + name), GNU (`././@LongLink` for long names, base-256 for huge sizes) and PAX
 * (`x` records for long paths and sizes). Fixed mtime/uid/gid, so equal input gives equal
 * bytes. Not a general archiver: it writes regular files and directories only.
 */

import { concatBytes } from '@binscope/core/binary';

export type TarFormat = 'ustar' | 'gnu' | 'pax';

export interface TarEntry {
  /** Full member path; a Uint8Array is used byte for byte (e.g. Latin-1 names). */
  name: string | Uint8Array;
  /** Payload (files only). */
  data?: Uint8Array;
  type?: 'file' | 'directory';
}

export interface TarHeaderFields {
  name: string | Uint8Array;
  size: number;
  /** Single-character typeflag ('0' file, '5' directory, 'L' GNU long name, 'x' PAX). */
  typeflag?: string;
  format?: TarFormat;
  /** How to store `size`: octal text (default), GNU base-256, or all zeros (PAX carries it). */
  sizeEncoding?: 'octal' | 'base256' | 'zero';
  /** USTAR prefix field (bytes 345..500). */
  prefix?: string | Uint8Array;
  mtime?: number;
}

const BLOCK = 512;
const MTIME = 1_700_000_000;
const encoder = new TextEncoder();

function bytesOf(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

function putOctal(block: Uint8Array, at: number, width: number, value: number): void {
  // width-1 octal digits, then NUL, as Python's tarfile and GNU tar write them.
  const text = value.toString(8).padStart(width - 1, '0');
  if (text.length > width - 1) throw new Error(`tar: ${value} does not fit ${width - 1} octal digits`);
  for (let i = 0; i < text.length; i++) block[at + i] = text.charCodeAt(i);
  block[at + width - 1] = 0;
}

function putBase256(block: Uint8Array, at: number, width: number, value: number): void {
  block[at] = 0x80;
  let v = BigInt(value);
  for (let i = width - 1; i > 0; i--) {
    block[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** One 512-byte header block with a valid checksum. */
export function tarHeader(fields: TarHeaderFields): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const name = bytesOf(fields.name);
  block.set(name.subarray(0, 100), 0);
  const typeflag = fields.typeflag ?? '0';
  putOctal(block, 100, 8, typeflag === '5' ? 0o755 : 0o644);
  putOctal(block, 108, 8, 0);
  putOctal(block, 116, 8, 0);
  switch (fields.sizeEncoding ?? 'octal') {
    case 'octal':
      putOctal(block, 124, 12, fields.size);
      break;
    case 'base256':
      putBase256(block, 124, 12, fields.size);
      break;
    case 'zero':
      putOctal(block, 124, 12, 0);
      break;
  }
  putOctal(block, 136, 12, fields.mtime ?? MTIME);
  block[156] = typeflag.charCodeAt(0);
  if ((fields.format ?? 'ustar') === 'gnu') block.set(encoder.encode('ustar  \0'), 257);
  else block.set(encoder.encode('ustar\x0000'), 257);
  block.set(encoder.encode('root'), 265);
  block.set(encoder.encode('root'), 297);
  if ((fields.format ?? 'ustar') !== 'gnu') {
    putOctal(block, 329, 8, 0);
    putOctal(block, 337, 8, 0);
  }
  if (fields.prefix) block.set(bytesOf(fields.prefix).subarray(0, 155), 345);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += block[i];
  putOctal(block, 148, 7, sum);
  block[155] = 0x20;
  return block;
}

/** PAX extended-header records ("len key=value\n", len counting itself). */
export function paxRecords(records: Record<string, string>): Uint8Array {
  let text = '';
  for (const [key, value] of Object.entries(records)) {
    const body = ` ${key}=${value}\n`;
    const bodyLength = encoder.encode(body).byteLength;
    let digits = String(bodyLength).length;
    while (String(bodyLength + digits).length !== digits) digits++;
    text += `${bodyLength + digits}${body}`;
  }
  return encoder.encode(text);
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** Streams tar blocks to `write` (a file, a buffer list). Ends with two zero blocks on `end()`. */
export class TarWriter {
  position = 0;
  constructor(
    private readonly write: (chunk: Uint8Array) => void,
    readonly format: TarFormat = 'ustar',
  ) {}

  private emit(chunk: Uint8Array): void {
    this.write(chunk);
    this.position += chunk.byteLength;
  }

  private emitPayload(data: Uint8Array): void {
    if (data.byteLength) this.emit(data);
    const pad = padding(data.byteLength);
    if (pad) this.emit(new Uint8Array(pad));
  }

  /** Appends one member; returns the offset of its own header block (after any long-name blocks). */
  add(entry: TarEntry): number {
    const type = entry.type ?? 'file';
    let name = bytesOf(entry.name);
    if (type === 'directory' && name[name.byteLength - 1] !== 0x2f) name = concat(name, Uint8Array.of(0x2f));
    const data = type === 'directory' ? new Uint8Array(0) : (entry.data ?? new Uint8Array(0));
    const typeflag = type === 'directory' ? '5' : '0';
    let prefix: Uint8Array | undefined;
    if (name.byteLength > 100) {
      if (this.format === 'gnu') {
        const long = concat(name, new Uint8Array(1));
        this.emit(tarHeader({ name: '././@LongLink', size: long.byteLength, typeflag: 'L', format: 'gnu' }));
        this.emitPayload(long);
        name = name.subarray(0, 100);
      } else if (this.format === 'pax') {
        const records = paxRecords({ path: new TextDecoder().decode(name) });
        this.emit(
          tarHeader({ name: '././@PaxHeader', size: records.byteLength, typeflag: 'x', format: 'pax' }),
        );
        this.emitPayload(records);
        name = name.subarray(0, 100);
      } else {
        const split = ustarSplit(name);
        if (!split) throw new Error(`tar: name of ${name.byteLength} bytes cannot be stored in USTAR`);
        [prefix, name] = split;
      }
    }
    const at = this.position;
    this.emit(tarHeader({ name, size: data.byteLength, typeflag, format: this.format, prefix }));
    this.emitPayload(data);
    return at;
  }

  /** The end-of-archive marker: two zero blocks. */
  end(): void {
    this.emit(new Uint8Array(BLOCK * 2));
  }
}

function ustarSplit(name: Uint8Array): [Uint8Array, Uint8Array] | undefined {
  for (let i = Math.min(name.byteLength - 1, 155); i > 0; i--) {
    if (name[i] === 0x2f && name.byteLength - i - 1 <= 100 && name.byteLength - i - 1 > 0) {
      return [name.subarray(0, i), name.subarray(i + 1)];
    }
  }
  return undefined;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/** A whole tar in memory. */
export function tarBytes(entries: readonly TarEntry[], format: TarFormat = 'ustar'): Uint8Array {
  const chunks: Uint8Array[] = [];
  const writer = new TarWriter((c) => chunks.push(c.slice()), format);
  for (const entry of entries) writer.add(entry);
  writer.end();
  return concatBytes(chunks);
}
