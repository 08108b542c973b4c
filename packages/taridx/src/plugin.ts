import {
  type ByteSource,
  definePlugin,
  fileTarget,
  type Summary,
  type Target,
  toJsonValue,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { taridxContentFields } from './content.js';
import { loadHasher } from './hash.js';
import { inspectTaridx, taridxTree } from './inspect.js';
import { taridxFormat } from './magic.js';
import { type OpenTaridxOptions, TaridxReader } from './read.js';
import { taridxLocate, taridxLookup, taridxRecords, taridxValueSource } from './records.js';
import { checkTaridx, parseTaridx, type TaridxParse } from './validate.js';

async function summarize(reader: TaridxReader): Promise<Summary> {
  const { header } = reader;
  const samples = await reader.sampleCount();
  const shards = await reader.shards();
  const counts: Record<string, number> = {
    rows: header.nRows,
    samples,
    extensions: reader.extensions.length,
    crash_stems: reader.crashStems.length,
  };
  if (shards) counts.shards = shards.count;
  return {
    format: 'taridx',
    title: taridxFormat.title,
    version: `${header.major}.${header.minor}`,
    counts,
    properties: [
      ['version', `${header.major}.${header.minor}`],
      ['fold', reader.fold ?? null],
      ['rows', header.nRows],
      ['samples', samples],
      ['stems (n_stems)', header.nStems],
      ['contiguous', reader.contiguous],
      ['extensions', reader.extensions.map((e) => (e === '' ? '(none)' : e)).join(', ')],
      ['crash stems', reader.crashStems.length],
      [
        'shards',
        shards
          ? shards.count
            ? `${shards.count} (${shards.names[0]} … ${shards.names[shards.count - 1]})`
            : 'none found'
          : 'not available',
      ],
      ['index size', reader.source.size],
    ],
    details: {
      header: toJsonValue({ ...header, reserved: Array.from(header.reserved) }),
      extensions: [...reader.extensions],
      crash_stems: [...reader.crashStems],
      shards: shards ? [...shards.names] : null,
    },
  };
}

/** The reader over a clean parse: shards from `options.shards`, else the folder the index sits in. */
async function reader(
  parse: TaridxParse,
  input: Extract<Target, { kind: 'file' }>,
  options: OpenTaridxOptions,
) {
  if (!parse.parsed) throw new Error('unreachable: a parse without errors decodes the whole index');
  const shards = options.shards ?? input.siblings;
  return new TaridxReader(input.source, parse.parsed, parse.problems, await loadHasher(), options, shards);
}

const { load: _load, ...info } = taridxFormat;

/**
 * The TARIDX plugin: one parse (header and text blocks) in core's three modes, the row and
 * shard checks of validate and inspect, the tree, and the reader's verbs. Records: the main
 * table (`{key, crashid, members}`) and `samples` (payloads by extension, from the shards).
 * Capabilities: `lookup` (a key by hash, no scan), `valueSource` (a member's payload streamed,
 * any size), `sample` (a two-shard fold with its index).
 */
export const taridxPlugin = definePlugin<TaridxParse, TaridxReader, 'file'>({
  ...info,
  kind: 'file',
  parse: parseTaridx,
  reader,
  deepChecks: (parse, _input, problems, options) => checkTaridx(parse, problems, options),
  tree: (parse, problems) => taridxTree(parse, problems),
  info: summarize,
  inspect: (reader, options) => inspectTaridx(reader, options),
  records: taridxRecords,
  contentFields: async (reader) => taridxContentFields(reader),
  locateRecord: taridxLocate,
  capabilities: {
    lookup: taridxLookup,
    valueSource: taridxValueSource,
    // Loaded when asked: the sample carries a tar writer that readers never need.
    sample: async (out, options) => (await import('./sample.js')).writeTaridxSample(out, options),
  },
});

/**
 * Opens an index lazily: the header and text blocks now (every check of T7/T8 before the
 * rows; the first defect thrown as a FormatError), the rows on first use. Shards come from
 * `options.shards` (a folder or the sources in fid order); closing the reader closes the
 * shards it opened from a folder, never `source` or what was given.
 */
export function openTaridx(source: ByteSource, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
  return taridxPlugin.open(fileTarget(source), options);
}

/**
 * Every problem of an index and, with its shards beside it (`target.siblings`), of the
 * shards (unless `deep` is false). Never throws for bad input.
 */
export function validateTaridx(target: Target, options: ValidateOptions = {}): Promise<ValidationReport> {
  return taridxPlugin.validate(target, options);
}
