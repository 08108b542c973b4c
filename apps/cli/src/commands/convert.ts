import * as fs from 'node:fs';
import { ANY_FORMAT, type ConverterInfo, type Registry } from '@binscope/core';
import { isS3Url } from '@binscope/core/s3';
import type { Command } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import {
  closeInputs,
  converterInput,
  convertersFor,
  type OpenedInput,
  openConvertInput,
  openRecordsInput,
  readFiles,
} from '../convert-inputs.js';
import { addConverterOptions, converterValues } from '../convert-options.js';
import { reportConversion, runConversion } from '../convert-run.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { extensionOf } from '../format-list.js';
import { type Action, examples, withCommon } from '../options.js';

export interface ConvertCommandOptions extends CommonOptions {
  force?: boolean;
  /** The output's format id, when its name does not say (`-`, a folder). */
  to?: string;
  [declared: string]: unknown;
}

/** "CSV → SCBF (.scbf)" for each conversion the list has. */
function conversions(registry: Registry): string {
  return registry.converters
    .map(
      (c) =>
        `${c.title} (${c.output === 'directory' ? 'a folder' : c.extensions.map((e) => `.${e}`).join(', ')})`,
    )
    .join('; ');
}

function exampleLine(registry: Registry, c: ConverterInfo): string {
  const info = registry.info(c.from);
  // A folder format's input is a folder; an export's, any file binscope reads.
  const from =
    c.from === ANY_FORMAT ? 'IN' : info?.kind === 'directory' ? 'in/' : `in.${info?.extensions[0] ?? c.from}`;
  const to = c.output === 'directory' ? 'out/' : `out.${c.extensions[0] ?? c.to}`;
  return `$ binscope convert ${from} ${to}`.padEnd(44) + `# ${c.title}`;
}

export function registerConvert(program: Command, ctx: Context, action: Action): void {
  const { registry } = ctx;
  const cmd = withCommon(
    program
      .command('convert')
      .summary('convert between formats (every conversion the format list declares)')
      .description(
        `Convert IN to OUT, chosen by what IN is (its detected format; a folder of files of one; standard input ` +
          `as a stream) and OUT's extension (or --to): ${conversions(registry)}. OUT is a path, an s3://bucket/key ` +
          '(or an s3:// prefix for a folder output), or - (standard output). The output appears only when ' +
          'complete (a temp file renamed; an upload completed); a failure, Ctrl-C or SIGTERM leaves nothing. ' +
          'Progress on stderr when it is a terminal.',
      )
      .argument('<in>', 'input: a path, URL or folder, or - (standard input)')
      .argument('<out>', 'output: a path, s3:// URL or prefix, or - (standard output)')
      .option('--to <format>', "the output's format, when OUT's name does not say")
      .option(
        '-f, --force',
        'replace an existing OUT (a folder only when it holds the same format; never an input)',
      ),
  );
  addConverterOptions(cmd, registry.converters);
  cmd
    .addHelpText('after', examples(...registry.converters.map((c) => exampleLine(registry, c))))
    .action(
      action((input: string, output: string, options: ConvertCommandOptions) =>
        convertCommand(ctx, input, output, options),
      ),
    );
}

/** Whether OUT names a folder: a trailing slash, an existing folder, or no extension. */
function namesFolder(output: string): boolean {
  if (output.endsWith('/')) return true;
  if (!isS3Url(output) && fs.existsSync(output)) return fs.statSync(output).isDirectory();
  return extensionOf(output) === '';
}

/** The converters whose output OUT can be: by --to, else by OUT's extension or being a folder. */
function byOutput(registry: Registry, output: string, to: string | undefined): ConverterInfo[] {
  if (to !== undefined) {
    // One output format may be written as a file or as a folder (one file per table): OUT says which.
    const named = registry.converters.filter((c) => c.to === to);
    const kind = output !== '-' && namesFolder(output) ? 'directory' : 'file';
    const ofKind = named.filter((c) => c.output === kind);
    return ofKind.length > 0 ? ofKind : named;
  }
  if (output === '-') return registry.converters.filter((c) => c.output === 'file');
  const ext = extensionOf(output);
  const files = registry.converters.filter((c) => c.output === 'file' && c.extensions.includes(ext));
  if (files.length > 0 || !namesFolder(output)) return files;
  return registry.converters.filter((c) => c.output === 'directory');
}

export function noConversion(registry: Registry, input: OpenedInput, output: string): CliError {
  const what = input.formats?.length ? ` (${input.formats.join(' or ')})` : '';
  return new CliError(
    `cannot convert ${input.location}${what} → ${output}: binscope converts ${conversions(registry)}`,
    EXIT.usage,
  );
}

/** `binscope convert IN OUT`: one of the list's converters, chosen by IN and OUT. */
export async function convertCommand(
  ctx: Context,
  inputPath: string,
  output: string,
  options: ConvertCommandOptions,
): Promise<ExitCode> {
  const input = await forPath(inputPath, () => openConvertInput(ctx, inputPath));
  try {
    const fitting = convertersFor(byOutput(ctx.registry, output, options.to), [input]);
    // A conversion with a verb of its own (`index`) is convert's only when nothing else fits;
    // one the input's own format declares comes before the exports any format has.
    const plain = fitting.filter((c) => !c.verb);
    const unverbed = plain.length > 0 ? plain : fitting;
    const own = unverbed.filter((c) => c.from !== ANY_FORMAT);
    const candidates = own.length > 0 ? own : unverbed;
    // `-` takes whatever the input converts to, when that is one thing.
    const ambiguous = output === '-' && new Set(candidates.map((c) => c.to)).size > 1;
    if (candidates.length === 0) throw noConversion(ctx.registry, input, output);
    if (ambiguous)
      throw new CliError(
        `${inputPath} converts to ${candidates.map((c) => c.to).join(', ')}: say which with --to`,
        EXIT.usage,
      );
    const converter = candidates[0];
    // An export reads the input's records through its plugin; any other converter reads the file.
    const opened = converter.from === ANY_FORMAT ? await openRecordsInput(ctx, input) : undefined;
    const run = {
      converter,
      input: opened?.records ?? converterInput(ctx, [input]),
      inputs: [inputPath],
      reads: readFiles(ctx.registry, converter.from, [input]),
      output,
      values: converterValues(converter, ctx.registry.converters, options),
      force: options.force,
      json: options.json,
    };
    try {
      const report = await forPath(inputPath, () => runConversion(ctx, run));
      await reportConversion(ctx, run, report);
    } finally {
      await opened?.close();
    }
    return EXIT.ok;
  } finally {
    await closeInputs([input]);
  }
}
