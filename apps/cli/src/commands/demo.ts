import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DirectorySink, JsonValue, Summary } from '@binscope/core';
import { folderSink } from '@binscope/core/node';
import { isS3Url } from '@binscope/core/s3';
import type { Command } from 'commander';
import type { CommonOptions, Context } from '../context.js';
import { CliError, describeError, EXIT, type ExitCode } from '../errors.js';
import { readableFormats } from '../format-list.js';
import { openInput, withReader } from '../open.js';
import { type Action, examples, withCommon } from '../options.js';
import { openFolderOutput, writeInto } from '../outputs.js';
import { printJson } from '../render.js';
import { infoDocument, summaryLines } from './info.js';

/** On object storage, the file written last: the samples are complete when it exists. */
const MANIFEST = 'binscope-demo.json';

export function registerDemo(program: Command, ctx: Context, action: Action): void {
  withCommon(
    program
      .command('demo')
      .summary('write a sample file of every format and describe each')
      .description(
        "Write a small sample of every format with the format's own writer (its declared sample) into DIR " +
          '(default: a new temp folder; an s3:// prefix, where binscope-demo.json is written last). Then detect ' +
          'each one and print its summary (info).',
      )
      .argument('[dir]', 'where to write the samples (created if missing): a folder or an s3:// prefix')
      .option('-f, --force', 'write into a folder that already holds files, replacing samples there'),
  )
    .addHelpText(
      'after',
      examples('$ binscope demo', '$ binscope demo ./samples --json', '$ binscope demo s3://bucket/demo/'),
    )
    .action(action((dir: string | undefined, options: DemoOptions) => demoCommand(ctx, dir, options)));
}

interface DemoOptions extends CommonOptions {
  force?: boolean;
}

interface DemoEntry {
  path: string;
  format: string | null;
  title: string;
  info?: ReturnType<typeof infoDocument>;
  error?: string;
}

/** Where the samples go: `join(rel)` names a written file as the user will read it back. */
interface DemoTarget {
  dir: string;
  sink: DirectorySink;
  join(rel: string): string;
  /** Writes the manifest and commits (object storage); nothing for a local folder. */
  finish(manifest: JsonValue): Promise<void>;
  abort(): Promise<void>;
}

function folderHoldsFiles(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

async function demoTarget(
  ctx: Context,
  dirArg: string | undefined,
  options: DemoOptions,
): Promise<DemoTarget> {
  if (dirArg !== undefined && isS3Url(dirArg)) {
    const dir = dirArg.endsWith('/') ? dirArg : `${dirArg}/`;
    const output = await openFolderOutput(ctx, dir, { force: options.force, inputs: [], marker: MANIFEST });
    return {
      dir,
      sink: output,
      join: (rel) => `${dir}${rel}`,
      finish: (manifest) =>
        writeInto(output, (sink) =>
          sink.write(MANIFEST, new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`)),
        ),
      abort: () => output.abort(),
    };
  }
  // The samples have fixed names: in a folder that holds files, they could replace the user's.
  if (dirArg !== undefined && !options.force && folderHoldsFiles(dirArg))
    throw new CliError(
      `${dirArg} is not empty; demo writes its samples there: choose a new or empty folder, or pass --force`,
      EXIT.usage,
    );
  const dir = dirArg ?? fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-demo-'));
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new CliError(describeError(error, dir), EXIT.usage);
  }
  return {
    dir,
    sink: folderSink(dir),
    join: (rel) => path.join(dir, rel),
    finish: async () => {},
    abort: async () => {},
  };
}

/**
 * `binscope demo [DIR]`: writes each format's declared sample (capabilities.sample, the
 * format's own writer), then runs detect and info on each file, as a newcomer's first look.
 */
export async function demoCommand(
  ctx: Context,
  dirArg: string | undefined,
  options: DemoOptions,
): Promise<ExitCode> {
  const target = await demoTarget(ctx, dirArg, options);
  let code: ExitCode = EXIT.ok;
  const entries: DemoEntry[] = [];
  const written: string[] = [];
  try {
    for (const format of readableFormats(ctx.registry)) {
      try {
        const plugin = await ctx.registry.load(format.id);
        if (!plugin.capabilities?.sample) continue;
        written.push(...(await plugin.capabilities.sample(target.sink)).map(target.join));
      } catch (error) {
        if (options.debug) ctx.messages.line(String((error as Error)?.stack ?? error));
        const message = `cannot write the ${format.id} sample: ${describeError(error)}`;
        ctx.messages.line(`binscope: ${message}`);
        entries.push({
          path: target.join(`(${format.id})`),
          format: null,
          title: 'not written',
          error: message,
        });
        code = EXIT.usage;
      }
    }
    await target.finish({ files: written });
  } catch (error) {
    await target.abort();
    throw error;
  }
  if (!options.json) await ctx.out.line(`binscope demo: sample files in ${target.dir}\n`);
  for (const file of written) {
    const { entry, summary } = await describe(ctx, file);
    entries.push(entry);
    if (entry.error) {
      ctx.messages.line(`binscope: ${entry.error}`);
      code = EXIT.usage;
    }
    if (!options.json) {
      await ctx.out.line(`${file}: ${entry.format ? `${entry.format} (${entry.title})` : 'unknown'}`);
      if (summary) for (const line of summaryLines(file, summary).slice(1)) await ctx.out.line(line);
      await ctx.out.line('');
    }
  }
  if (options.json) await printJson(ctx.out, { dir: target.dir, files: entries });
  else {
    const first = entries.find((e) => e.info)?.path;
    await ctx.out.line(
      `Next: binscope inspect FILE, binscope head FILE, binscope validate FILE${first ? ` (e.g. ${first})` : ''}`,
    );
  }
  await ctx.out.flush();
  return code;
}

/** detect, then info, exactly as the verbs do. */
async function describe(ctx: Context, file: string): Promise<{ entry: DemoEntry; summary?: Summary }> {
  try {
    const input = await openInput(ctx, file, { loadParser: false });
    const { format, title, role } = input.detection;
    await input.close();
    if (!format || role !== 'format') return { entry: { path: file, format, title } };
    const summary = await withReader(ctx, file, {}, (i, reader) => i.plugin.info(reader));
    return { entry: { path: file, format, title, info: infoDocument(file, summary) }, summary };
  } catch (error) {
    return { entry: { path: file, format: null, title: 'unreadable', error: describeError(error, file) } };
  }
}
