import type { Registry } from '@binscope/core';
import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { registerConvert } from './commands/convert.js';
import { registerConverterVerbs } from './commands/converter-verb.js';
import { registerDemo } from './commands/demo.js';
import { registerDetect } from './commands/detect.js';
import { registerDiff } from './commands/diff.js';
import { registerGet } from './commands/get.js';
import { registerInfo } from './commands/info.js';
import { registerInspect } from './commands/inspect.js';
import { registerRecords } from './commands/records.js';
import { registerValidate } from './commands/validate.js';
import type { CommonOptions, Context } from './context.js';
import { CliError, describeError, type ExitCode, exitCodeFor } from './errors.js';
import { formatLabel, readableFormats, spokenList } from './format-list.js';
import { jsonError } from './json-errors.js';
import { type Action, EXIT_CODES_HELP, exampleFile, type RegisterVerb } from './options.js';
import { printJson } from './render.js';

/** The root help: every format and conversion the list has, then how output works. */
function rootHelp(registry: Registry): string {
  const formats = readableFormats(registry);
  const detected = registry.formats.filter((f) => (f.role ?? 'format') !== 'format');
  const file = exampleFile(registry, 'data');
  const lines = ['', 'Formats:', ...formats.map((f) => `  ${formatLabel(f).padEnd(22)} ${f.title}`)];
  if (detected.length > 0) {
    lines.push('', 'Also detected (read or converted through another format):');
    lines.push(...detected.map((f) => `  ${formatLabel(f).padEnd(22)} ${f.title}`));
  }
  return `${lines.join('\n')}

Every verb detects the format by its magic bytes; --as FORMAT overrides detection.
--plugin MODULE (repeatable; or BINSCOPE_PLUGINS) adds the formats and converters of a
format plugin package or module, in every verb.

Output: data goes to stdout, messages and progress to stderr. --json prints one JSON
document on stdout. Errors are one line on stderr; --debug adds the stack trace.
${EXIT_CODES_HELP}

Examples:
  $ binscope demo                      write a sample of every format and describe it
  $ binscope detect data/*             which format is each file
  $ binscope info ${file.padEnd(20)} counts and schema
  $ binscope head ${file} -n 5${' '.repeat(Math.max(1, 16 - file.length))}the first records
  $ binscope validate data/*           every error with class and byte offset`;
}

const VERBS: readonly RegisterVerb[] = [
  registerDetect,
  registerInfo,
  registerInspect,
  registerValidate,
  registerRecords,
  registerConvert,
  registerConverterVerbs,
  registerDiff,
  registerGet,
  registerDemo,
];

/**
 * Builds the `binscope` program over the context's format list. `setExit` receives each
 * verb's exit code; errors inside a verb become one stderr line (stack only with --debug).
 */
export function createProgram(ctx: Context, setExit: (code: ExitCode) => void): Command {
  const names = spokenList(readableFormats(ctx.registry).map((f) => f.id.toUpperCase()));
  const program = new Command('binscope')
    .description(`Detect, inspect, validate, read, convert and compare ${names} files.`)
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for binscope or a verb (binscope help VERB)')
    .option(
      '--plugin <module>',
      'load the formats and converters of a format plugin (a package name, or a path starting with ./ or /); repeatable',
    )
    .showSuggestionAfterError(true)
    .addHelpText('after', rootHelp(ctx.registry));

  const action: Action =
    (work) =>
    async (...args) => {
      const command = args[args.length - 1] as Command;
      const options = command.opts<CommonOptions>();
      try {
        setExit(await work(...args));
      } catch (error) {
        if (options.debug) {
          const original = error instanceof CliError && error.cause ? error.cause : error;
          ctx.messages.line(String((original as Error)?.stack ?? original));
        }
        ctx.messages.line(`binscope: ${describeError(error)}`);
        // --json: the error is a JSON document too, unless the verb already closed one holding it.
        if (options.json && !ctx.out.started)
          await printJson(ctx.out, jsonError(error, typeof args[0] === 'string' ? args[0] : null));
        setExit(exitCodeFor(error));
      }
    };

  for (const register of VERBS) register(program, ctx, action);
  return program;
}
