import {
  definePlugin,
  type JsonRecord,
  type RecordOptions,
  SourceError,
  type Summary,
  type Target,
  toJsonValue,
} from '@binscope/core';
import { taridxContentFields, taridxLocateSample } from './content.js';
import { inspectTaridx } from './inspect.js';
import { inspectTaridxTarget } from './inspect-mode.js';
import { taridxFormat } from './magic.js';
import { type OpenTaridxOptions, TaridxReader } from './read.js';
import { validateTaridx } from './validate.js';

async function open(target: Target, options: OpenTaridxOptions = {}): Promise<TaridxReader> {
  if (target.kind !== 'file')
    throw new SourceError(`${target.directory.name}: a TARIDX index is a file, not a directory`);
  return TaridxReader.open(target.source, { shards: target.siblings, ...options });
}

async function info(reader: TaridxReader): Promise<Summary> {
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

/**
 * Samples as `{key, crashid, members: [{ext, fid, offset, size}]}`. The key is the crash stem
 * or, when the shards are reachable, the stem read back from the first member's header;
 * null otherwise (the index stores only its hash). `columns` selects extensions. With the
 * shards at hand, tar extended headers are no members (each row's header says which), and
 * a group of rows that are only such headers (`@PaxHeader`) is no record; `offset` counts
 * the index's samples.
 */
async function* records(reader: TaridxReader, options: RecordOptions = {}): AsyncGenerator<JsonRecord> {
  const exts = options.columns;
  const shards = await reader.shards();
  const headersAtHand = shards !== undefined && shards.count > 0;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  for await (const sample of reader.samples({ offset: options.offset, signal: options.signal })) {
    const members = headersAtHand
      ? await reader.listMembers(sample, { ext: exts, signal: options.signal })
      : reader.members(sample, exts);
    if (members.length === 0) continue;
    const key = await reader.key(sample);
    yield {
      key: key ?? null,
      crashid: sample.crashid,
      members: members.map((m) => ({
        ext: m.ext,
        fid: m.fid,
        offset: toJsonValue(m.offset),
        size: toJsonValue(m.size),
      })),
    };
    if (--left <= 0) return;
  }
}

export const taridxPlugin = definePlugin<TaridxReader>({
  ...taridxFormat,
  open,
  info,
  inspect: (reader, options) => inspectTaridx(reader, options),
  inspectTarget: inspectTaridxTarget,
  validate: validateTaridx,
  records,
  contentFields: (reader) => taridxContentFields(reader),
  locateRecord: (reader, index) => taridxLocateSample(reader, index),
});
