import {
  type ByteSource,
  Phase,
  type Problem,
  type ProblemList,
  plainProblem,
  type ReadOptions,
  readExact,
} from '@binscope/core';
import { checkHeaderFields, checkMagic, checkRegions, decodeHeader, type RowRegion } from './header.js';
import { FORMAT, H, HEADER_SIZE, MAJOR, type TaridxHeader } from './layout.js';

/** What open() learns without reading rows: header and both text blocks, every check of T7/T8. */
export interface ParsedIndex {
  header: TaridxHeader;
  extensions: string[];
  crashStems: string[];
  warnings: Problem[];
}

/** A "\n"-joined text block (T7) as found: its bytes, entry ranges and entries. */
export interface TextBlock {
  start: number;
  bytes: Uint8Array;
  parts: Array<[number, number]>;
  texts: string[];
}

/** How far one parse of the index got: every mode (read, validate, inspect) runs this same code. */
export interface IndexParse {
  size: number;
  /** The first 64 bytes (fewer in a file that short). */
  head: Uint8Array;
  /** The header as stored, when the file has 64 bytes. */
  header?: TaridxHeader;
  /** Whether the header is laid out as this reader knows (magic and major version right). */
  layoutKnown?: boolean;
  /** The row region, when the header's offsets locate it. */
  region?: RowRegion;
  extensions?: TextBlock;
  crashStems?: TextBlock;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Parses and checks everything before the rows, in the order of A2: magic → version → header
 * fields → region bounds → counts → UTF-8, recording each problem in `problems`. It stops where
 * the rest cannot be located (bad magic, another version, an offset past the end) and returns
 * what it decoded so far; `read` mode callers then `checkpoint()`.
 */
export async function parseIndex(
  source: ByteSource,
  problems: ProblemList,
  options: ReadOptions = {},
): Promise<IndexParse> {
  const size = source.size;
  const head = await readExact(source, 0, Math.min(HEADER_SIZE, size), {
    ...options,
    format: FORMAT,
    what: 'header',
  });
  const parse: IndexParse = { size, head };
  const magicOk = checkMagic(head, problems);
  if (head.byteLength < HEADER_SIZE) {
    if (magicOk)
      problems.error('Truncated', `the 64-byte header needs ${HEADER_SIZE} bytes but the file has ${size}`, {
        offset: 0,
        phase: Phase.header,
      });
    return parse;
  }
  parse.header = decodeHeader(head);
  parse.layoutKnown = magicOk && parse.header.major === MAJOR;
  if (!magicOk || !checkHeaderFields(parse.header, problems)) return parse;
  parse.region = checkRegions(parse.header, head, size, problems);
  if (!parse.region) return parse;
  const { header } = parse;
  parse.extensions = await readTextBlock(source, HEADER_SIZE, header.offCrash, header.nExt, options);
  parse.crashStems = await readTextBlock(source, header.offCrash, header.offArr, header.nCrash, options);
  checkTextBlock(parse.extensions, header.nExt, 'n_ext', H.nExt, 'extension', problems);
  checkTextBlock(parse.crashStems, header.nCrash, 'n_crash', H.nCrash, 'crash-stem', problems);
  if (new Set(parse.extensions.texts).size !== parse.extensions.texts.length)
    problems.warn('DuplicateExtension', 'the extension table lists an extension twice', {
      offset: HEADER_SIZE,
    });
  if (new Set(parse.crashStems.texts).size !== parse.crashStems.texts.length)
    problems.warn('DuplicateCrashStem', 'the crash-stem table lists a stem twice', {
      offset: header.offCrash,
    });
  return parse;
}

/** The parse of a file that passed: what the reader keeps. */
export function parsedIndex(parse: IndexParse, problems: ProblemList): ParsedIndex | undefined {
  if (!parse.header || !parse.extensions || !parse.crashStems || problems.hasErrors()) return undefined;
  return {
    header: parse.header,
    extensions: parse.extensions.texts,
    crashStems: parse.crashStems.texts,
    warnings: problems.warnings.map(plainProblem),
  };
}

export async function readTextBlock(
  source: ByteSource,
  start: number,
  end: number,
  count: number,
  options: ReadOptions,
): Promise<TextBlock> {
  const what = start === HEADER_SIZE ? 'extension block' : 'crash-stem block';
  const bytes = await readExact(source, start, end - start, { ...options, format: FORMAT, what });
  const parts = splitBlock(bytes, count);
  // Shown as text even when invalid (inspect); the UTF-8 check below reports it.
  const texts = parts.map(([a, b]) => lenientUtf8.decode(bytes.subarray(a, b)));
  return { start, bytes, parts, texts };
}

/** T7 counts, then UTF-8 (A2: counts before payload). */
function checkTextBlock(
  block: TextBlock,
  count: number,
  field: string,
  fieldAt: number,
  what: string,
  problems: ProblemList,
): void {
  if (block.parts.length !== count) {
    problems.error(
      'CountMismatch',
      `${field} is ${count} but the ${what} block holds ${block.parts.length} entries`,
      { offset: fieldAt, phase: Phase.reference },
    );
  }
  for (const [a, b] of block.parts) {
    try {
      strictUtf8.decode(block.bytes.subarray(a, b));
    } catch {
      const entry = what === 'extension' ? 'an extension' : 'a crash stem';
      problems.error('InvalidValue', `${entry} is not valid UTF-8`, {
        offset: block.start + a,
        phase: Phase.payload,
      });
      return;
    }
  }
}

/**
 * Entry ranges of a "\n"-joined block (T7): split on "\n" only; an empty block is no
 * entries when the count is 0 and one "" entry otherwise.
 */
export function splitBlock(bytes: Uint8Array, count: number): Array<[number, number]> {
  if (bytes.byteLength === 0) return count === 0 ? [] : [[0, 0]];
  const parts: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i] === 0x0a) {
      parts.push([start, i]);
      start = i + 1;
    }
  }
  parts.push([start, bytes.byteLength]);
  return parts;
}
