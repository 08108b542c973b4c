import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
  type AnyFormatPlugin,
  type ByteSource,
  type DirectorySource,
  type FormatReader,
  MemorySource,
  recordToJson,
  type Schema,
} from '@binscope/core';
import type { Command } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { openInput, unreadable } from '../open.js';
import { type Action, examples, exampleFile, withCommon } from '../options.js';
import { openFileOutput, writeInto } from '../outputs.js';
import { inputKind, openFolder } from '../remote.js';
import { outline, printJson } from '../render.js';
import { sourceChunks } from '../streams.js';
import { tableSchema } from './records.js';

export interface GetOptions extends CommonOptions {
  field?: string;
  /** The documented alias of --field: a member's extension (a leading dot dropped, lower-cased). */
  ext?: string;
  output?: string;
  table?: string;
  siblings?: string;
  /** The documented alias of --siblings. */
  shards?: string;
  force?: boolean;
}

export function registerGet(program: Command, ctx: Context, action: Action): void {
  const file = exampleFile(ctx.registry, 'train');
  withCommon(
    program
      .command('get')
      .summary("look a record up by its key; print it, or write one of its values' bytes")
      .description(
        "Look a record up by its key (the schema's key field: binscope info shows it; formats that index " +
          'their keys find it without scanning) and print it, or with --field F write the stored bytes of ' +
          'its value F to stdout or to -o OUT (a path, an s3:// URL, or -), streamed in pieces whatever its ' +
          'size. Files a format points into are found beside FILE unless --siblings DIR says otherwise. ' +
          'Exits 1 when the key or the value is not there.',
      )
      .argument('<file>', 'a file whose records have a key')
      .argument('<key>', "the record's key")
      .option('--field <name>', "write this value's bytes (e.g. a member's extension: jpg, json, seg.png)")
      .option('--ext <ext>', 'same as --field, a leading dot dropped and lower-cased')
      .option('-o, --output <where>', 'with --field: write the bytes here instead of stdout')
      .option('--table <name>', "look the key up in this table of the file's")
      .option('--siblings <dir>', 'the folder holding the files FILE points into (default: beside it)')
      .option('--shards <dir>', 'same as --siblings')
      .option('-f, --force', 'with -o: replace an existing OUT (never FILE or a file it points into)'),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope get ${file} sample_000042`,
        `$ binscope get ${file} sample_000042 --field jpg -o cat.jpg`,
        `$ binscope get ${file} sample_000042 --field jpg -o s3://bucket/cat.jpg`,
      ),
    )
    .action(action((f: string, key: string, options: GetOptions) => getCommand(ctx, f, key, options)));
}

/** A folder that remembers which files were opened through it: those are inputs no output may replace. */
function recording(directory: DirectorySource, base: string, opened: string[]): DirectorySource {
  const join = (name: string) =>
    inputKind(base) === 'path' ? path.join(base, name) : `${base.replace(/\/?$/, '/')}${name}`;
  return {
    name: directory.name,
    list: () => directory.list(),
    has: (name) => directory.has(name),
    async open(name) {
      opened.push(join(name));
      return directory.open(name);
    },
    close: async () => (directory as { close?: () => Promise<void> }).close?.(),
  } as DirectorySource;
}

/**
 * The table to look in: --table; else, for --field F, the first table whose schema has F (a
 * TARIDX index's payloads are its `samples` table); else the main records when they have a
 * key, else the first table that has one. The key field is the table's, else the main one's.
 */
function keyedTable(
  reader: FormatReader,
  table: string | undefined,
  field: string | undefined,
  filePath: string,
): { table?: string; schema: Schema; key: string } {
  const has = (schema: Schema) => field !== undefined && schema.fields.some((f) => f.name === field);
  let chosen: { table?: string; schema: Schema } = { schema: reader.schema };
  if (table !== undefined) chosen = { table, schema: tableSchema(reader, table, filePath) };
  else {
    const holding = has(reader.schema) ? undefined : reader.tables?.find((t) => has(t.schema));
    const keyed = reader.schema.key ? undefined : reader.tables?.find((t) => t.schema.key);
    const other = holding ?? keyed;
    if (other) chosen = { table: other.name, schema: other.schema };
  }
  const key = chosen.schema.key ?? reader.schema.key;
  if (!key)
    throw new CliError(`${filePath}: its records have no key field; get looks records up by key`, EXIT.usage);
  return { ...chosen, key };
}

/** The record's position: the format's own lookup where it has one, else a scan of the key field. */
async function find(
  plugin: AnyFormatPlugin,
  reader: FormatReader,
  key: string,
  table: string | undefined,
  field: string,
) {
  if (plugin.capabilities?.lookup) return plugin.capabilities.lookup(reader, key, { table });
  for await (const r of plugin.records(reader, { table, columns: [field] }))
    if (r.values[field] !== undefined && String(r.values[field]) === key) return r.index;
  return undefined;
}

/** The stored bytes of one value: the format's streamed source, else the value itself if it is bytes. */
async function valueBytes(
  plugin: AnyFormatPlugin,
  reader: FormatReader,
  index: number,
  field: string,
  table: string | undefined,
): Promise<ByteSource | undefined> {
  if (plugin.capabilities?.valueSource)
    return plugin.capabilities.valueSource(reader, index, field, { table });
  for await (const r of plugin.records(reader, { table, offset: index, limit: 1, columns: [field] })) {
    const value = r.values[field];
    return value instanceof Uint8Array ? new MemorySource(value, field) : undefined;
  }
  return undefined;
}

/** `binscope get FILE KEY [--field F]`: through the plugin's lookup and value sources. */
export async function getCommand(
  ctx: Context,
  filePath: string,
  key: string,
  options: GetOptions,
): Promise<ExitCode> {
  const field = options.field ?? options.ext?.replace(/^\./, '').toLowerCase();
  if (options.json && field !== undefined && (options.output === undefined || options.output === '-'))
    throw new CliError('--json with --field needs -o OUT: the bytes would go to stdout', EXIT.usage);
  if (options.output !== undefined && field === undefined)
    throw new CliError('-o writes one value: say which with --field (e.g. --field jpg)', EXIT.usage);
  const folder = options.siblings ?? options.shards;
  const base =
    folder ??
    (inputKind(filePath) === 'path' ? path.dirname(path.resolve(filePath)) : filePath.replace(/[^/]*$/, ''));
  const opened: string[] = [];
  const siblings = folder === undefined ? undefined : await forPath(folder, async () => openFolder(folder));
  const input = await forPath(filePath, () =>
    openInput(ctx, filePath, { byExtension: true, siblings: siblings && recording(siblings, base, opened) }),
  );
  if (input.target.kind === 'file' && input.target.siblings && !siblings)
    input.target = { ...input.target, siblings: recording(input.target.siblings, base, opened) };
  try {
    if (!input.plugin) throw unreadable(ctx, input);
    const plugin = input.plugin;
    const reader = await forPath(filePath, () => plugin.open(input.target));
    try {
      return await forPath(filePath, () =>
        getFrom(ctx, plugin, reader, { filePath, key, field, opened, options }),
      );
    } finally {
      await reader.close?.();
    }
  } finally {
    await input.close();
  }
}

interface GetRequest {
  filePath: string;
  key: string;
  field: string | undefined;
  /** Files opened through the siblings folder (inputs an output may not replace). */
  opened: string[];
  options: GetOptions;
}

async function getFrom(
  ctx: Context,
  plugin: AnyFormatPlugin,
  reader: FormatReader,
  request: GetRequest,
): Promise<ExitCode> {
  const { filePath, key, field, options } = request;
  const { table, schema, key: keyField } = keyedTable(reader, options.table, field, filePath);
  const index = await find(plugin, reader, key, table, keyField);
  if (index === undefined) {
    if (options.json) await printJson(ctx.out, { index: filePath, key, found: false });
    ctx.messages.line(`binscope: ${filePath}: no record with key ${JSON.stringify(key)}`);
    return EXIT.failed;
  }
  if (field === undefined) {
    let record: Record<string, unknown> | undefined;
    for await (const r of plugin.records(reader, { table, offset: index, limit: 1 }))
      record = await recordToJson(schema, r);
    // Today's shape (`get` of a TARIDX printed {index, key, crashid, members, found}): the
    // file as `index`, then the record's own fields, so scripts written against it keep working.
    if (options.json)
      await printJson(ctx.out, {
        index: filePath,
        key,
        ...(table ? { table } : {}),
        ...record,
        found: true,
      });
    else {
      await ctx.out.line(`${key}: record ${index}${table ? ` of table ${table}` : ''}`);
      for (const line of outline((record ?? {}) as never, '  ')) await ctx.out.line(line);
    }
    await ctx.out.flush();
    return EXIT.ok;
  }
  const source = await valueBytes(plugin, reader, index, field, table);
  if (!source) {
    if (options.json) await printJson(ctx.out, { index: filePath, key, field, found: false });
    ctx.messages.line(`binscope: ${filePath}: record ${JSON.stringify(key)} has no ${field} value`);
    return EXIT.failed;
  }
  try {
    return await writeValue(ctx, source, request, index);
  } finally {
    await source.close?.();
  }
}

async function writeValue(
  ctx: Context,
  source: ByteSource,
  request: GetRequest,
  index: number,
): Promise<ExitCode> {
  const { filePath, key, field, options } = request;
  const chunks = sourceChunks(source, 1 << 20);
  if (options.output === undefined || options.output === '-') {
    for await (const chunk of chunks) {
      await ctx.out.bytes(chunk);
      // The reader of stdout went away (`| head -c`): stop reading.
      if (ctx.out.closed) break;
    }
    await ctx.out.flush();
    return EXIT.ok;
  }
  const output = options.output;
  const hash = createHash('sha256');
  const sink = await openFileOutput(ctx, output, {
    force: options.force,
    inputs: [filePath, ...request.opened],
    expectedSize: source.size,
  });
  await writeInto(sink, async (out) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      await out.write(chunk);
    }
  });
  if (options.json)
    await printJson(ctx.out, {
      index: filePath,
      key,
      field: field ?? null,
      record: index,
      output,
      size: source.size,
      sha256: hash.digest('hex'),
      found: true,
    });
  else ctx.messages.line(`wrote ${output}: ${source.size.toLocaleString('en-US')} bytes`);
  return EXIT.ok;
}
