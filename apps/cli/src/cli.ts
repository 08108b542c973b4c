import type { Registry } from '@binscope/core';
import { removeTempsOnSignals } from '@binscope/core/node';
import { CommanderError } from 'commander';
import { createContext } from './context.js';
import { describeError, EXIT, type ExitCode, exitCodeFor } from './errors.js';
import { BUILT_IN_IDS, createCliRegistry } from './format-list.js';
import type { CliStreams } from './io.js';
import { loadPluginModules, pluginSpecs } from './plugin-modules.js';
import { createProgram } from './program.js';

export { createProgram } from './program.js';

export interface RunOptions {
  /** The format list to use instead of the built-in one and the --plugin modules (tests). */
  registry?: Registry;
  /** Where `--plugin` package names resolve from; default the current folder. */
  cwd?: string;
}

/** The built-in list plus the --plugin / BINSCOPE_PLUGINS modules named for this run. */
async function registryFor(args: readonly string[], options: RunOptions): Promise<Registry> {
  if (options.registry) return options.registry;
  return createCliRegistry(await loadPluginModules(pluginSpecs(args), options.cwd, BUILT_IN_IDS));
}

/** Runs the CLI on `args` (without "node binscope"); resolves to the exit code. */
export async function run(
  args: readonly string[],
  streams: CliStreams = { stdout: process.stdout, stderr: process.stderr },
  options: RunOptions = {},
): Promise<number> {
  let registry: Registry;
  try {
    registry = await registryFor(args, options);
  } catch (error) {
    streams.stderr.write(`binscope: ${describeError(error)}\n`);
    return EXIT.usage;
  }
  const ctx = createContext(streams, registry);
  let exitCode: ExitCode = EXIT.ok;
  const program = createProgram(ctx, (code) => {
    exitCode = code;
  });
  program.exitOverride();
  program.configureOutput({
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
    outputError: (text, write) => write(`binscope: ${text.replace(/^error: /, '')}`),
  });
  for (const sub of program.commands) {
    sub.exitOverride();
    sub.configureOutput(program.configureOutput());
  }
  if (args.length === 0) {
    streams.stderr.write(program.helpInformation());
    return EXIT.usage;
  }
  try {
    await program.parseAsync(args as string[], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other parse error is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    ctx.messages.line(`binscope: ${describeError(error)}`);
    return exitCodeFor(error);
  }
  await ctx.out.flush();
  if (ctx.out.error) {
    ctx.messages.line(`binscope: cannot write to stdout: ${ctx.out.error.message}`);
    return EXIT.usage;
  }
  return exitCode;
}

/** The `binscope` executable's entry point. */
export function main(args: readonly string[]): Promise<number> {
  // Ctrl-C or a kill mid-write: temp files, spill folders and uploads under way are undone too.
  removeTempsOnSignals();
  return run(args);
}
