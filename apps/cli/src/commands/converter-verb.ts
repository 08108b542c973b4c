import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConverterInfo, OptionValues } from '@binscope/core';
import type { Command } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import {
  closeInputs,
  converterInput,
  convertersFor,
  type OpenedInput,
  openConvertInput,
  readFiles,
} from '../convert-inputs.js';
import { addConverterOptions, converterValues, optionValue } from '../convert-options.js';
import { reportConversion, runConversion } from '../convert-run.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { type Action, examples, withCommon } from '../options.js';
import { inputKind } from '../remote.js';
import { noConversion } from './convert.js';

interface VerbOptions extends CommonOptions {
  output?: string;
  force?: boolean;
  [declared: string]: unknown;
}

/** The verbs converters name (`index` for tar shards → TARIDX), each with the converters naming it. */
function verbs(converters: readonly ConverterInfo[]): Map<string, ConverterInfo[]> {
  const out = new Map<string, ConverterInfo[]>();
  for (const c of converters) if (c.verb) out.set(c.verb, [...(out.get(c.verb) ?? []), c]);
  return out;
}

/** Verbs the CLI has of its own: a converter cannot take them over. */
const OWN_VERBS = new Set([
  'detect',
  'info',
  'inspect',
  'validate',
  'head',
  'cat',
  'convert',
  'diff',
  'get',
  'demo',
  'help',
]);

export function registerConverterVerbs(program: Command, ctx: Context, action: Action): void {
  for (const [verb, converters] of verbs(ctx.registry.converters)) {
    if (OWN_VERBS.has(verb)) continue;
    const titles = converters.map((c) => c.title).join('; ');
    const cmd = withCommon(
      program
        .command(verb)
        .summary(titles)
        .description(
          `${titles}. Reads INPUT (a path, URL or folder; - for standard input where the conversion reads a stream; ` +
            'several inputs where it joins them) and writes -o OUTPUT (a path or s3:// URL; ' +
            'a default beside the input where the conversion names one). The output appears only when complete; ' +
            'a failure, Ctrl-C or SIGTERM leaves nothing. Progress on stderr when it is a terminal.',
        )
        .argument('<input...>', 'what to read')
        .option('-o, --output <where>', 'where to write (a path, s3:// URL, or -)')
        .option('-f, --force', 'replace an existing output (never an input)'),
    );
    addConverterOptions(cmd, converters);
    cmd
      .addHelpText(
        'after',
        examples(...converters.map((c) => `$ binscope ${verb} INPUT -o OUT.${c.extensions[0] ?? c.to}`)),
      )
      .action(
        action((inputs: string[], options: VerbOptions) => verbCommand(ctx, converters, inputs, options)),
      );
  }
}

/**
 * The output a converter names when -o is left out (ConverterInfo.defaultOutput): `{input}`
 * is the input folder when it is local (the folder holding a local file), else the current
 * folder; `{name}` a declared option's value.
 */
function defaultOutput(converter: ConverterInfo, input: string, values: OptionValues): string {
  const template = converter.defaultOutput;
  if (!template) throw new CliError(`${converter.title}: name the output with -o`, EXIT.usage);
  let folder = '.';
  if (inputKind(input) === 'path')
    folder = fs.existsSync(input) && fs.statSync(input).isDirectory() ? input : path.dirname(input);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'input') return folder.replace(/\/+$/, '') || '/';
    const value = values[name];
    if (value === undefined || value === '')
      throw new CliError(`${converter.title}: give --${name} or name the output with -o`, EXIT.usage);
    return String(value);
  });
}

async function verbCommand(
  ctx: Context,
  candidates: readonly ConverterInfo[],
  locations: string[],
  options: VerbOptions,
): Promise<ExitCode> {
  const inputs: OpenedInput[] = [];
  try {
    for (const location of locations)
      inputs.push(await forPath(location, () => openConvertInput(ctx, location)));
    // A flag only some of the verb's converters declare (`--merge`) narrows the choice to them.
    const flagged = candidates.filter((c) =>
      (c.options ?? []).some((o) => o.type === 'boolean' && optionValue(options, o.name) === true),
    );
    const pool = flagged.length > 0 ? flagged : candidates;
    // The verb names the conversion: with one left, it reads what it was given (partial
    // indexes to merge are not the shards it indexes) and says itself what it cannot read.
    const fitting = convertersFor(pool, inputs);
    if (fitting.length === 0 && pool.length === 1) fitting.push(pool[0]);
    if (fitting.length === 0) throw noConversion(ctx.registry, inputs[0], options.output ?? '-o');
    const converter = fitting[0];
    const values = converterValues(converter, candidates, options);
    const run = {
      converter,
      input: converterInput(ctx, inputs),
      inputs: locations,
      reads: readFiles(ctx.registry, converter.from, inputs),
      output: options.output ?? defaultOutput(converter, locations[0], values),
      values,
      force: options.force,
      json: options.json,
    };
    const report = await forPath(locations[0], () => runConversion(ctx, run));
    await reportConversion(ctx, run, report, { path: run.output });
    return EXIT.ok;
  } finally {
    await closeInputs(inputs);
  }
}
