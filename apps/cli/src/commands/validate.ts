import { isBinscopeError, type Problem, type ValidationReport } from '@binscope/core';
import type { Command } from 'commander';
import type { CommonOptions, Context } from '../context.js';
import { CliError, describeError, EXIT, type ExitCode } from '../errors.js';
import { jsonError } from '../json-errors.js';
import { howToRead, type Input, openInput, pluginOrNearMiss } from '../open.js';
import { type Action, asOption, examples, withCommon } from '../options.js';
import { printJson } from '../render.js';

export function registerValidate(program: Command, ctx: Context, action: Action): void {
  withCommon(
    program
      .command('validate')
      .summary('check files against their format rules')
      .description(
        'Check each path against every rule of its format and list every error and warning with its class ' +
          '(BadMagic, Truncated, OutOfBounds, ...), byte offset and file. Exits 0 when all are valid, 1 when any ' +
          'is invalid (including unrecognised files), 2 on I/O errors. --json prints an array of ' +
          '{path, format, valid, errors: [{code, message, offset, file}], warnings}.',
      )
      .argument('<path...>', 'files or archive directories')
      .option(
        '--deep',
        'also check payloads against their containers where reachable (files a format points into)',
      )
      .addOption(asOption(ctx.registry)),
  )
    .addHelpText('after', examples('$ binscope validate data/*', '$ binscope validate --deep --json FILE'))
    .action(
      action((paths: string[], options: ValidateCommandOptions) => validateCommand(ctx, paths, options)),
    );
}

export interface ValidateCommandOptions extends CommonOptions {
  as?: string;
  deep?: boolean;
}

interface JsonProblem {
  code: string;
  message: string;
  offset: number | null;
  file: string | null;
}

/** One entry of the `validate --json` array (a contract other tools rely on). */
export interface ValidateResult {
  path: string;
  format: string | null;
  valid: boolean;
  errors: JsonProblem[];
  warnings: JsonProblem[];
}

function toJsonProblem(problem: Problem, defaultFile: string | null): JsonProblem {
  return {
    code: problem.code,
    message: problem.message,
    offset: problem.offset ?? null,
    file: problem.file ?? defaultFile,
  };
}

/** What a path no plugin reads fails with: there is no format whose rules it meets. */
function unrecognised(ctx: Context, input: Input): ValidationReport {
  const file = input.target.kind === 'file' ? input.target.source.name : undefined;
  const { info, role, title } = input.detection;
  if (info && role !== 'format') {
    const message = `${title} (${role}): no rules of its own to check; ${howToRead(ctx.registry, info)}`;
    return { valid: false, errors: [{ code: 'UnsupportedFeature', message, file }], warnings: [] };
  }
  const what =
    input.target.kind === 'directory'
      ? 'no format recognises this directory'
      : `no known format's signature matches (first bytes: ${input.detection.headHex.slice(0, 32) || 'none, the file is empty'})`;
  return {
    valid: false,
    errors: [{ code: 'BadMagic', message: what, offset: file === undefined ? undefined : 0, file }],
    warnings: [],
  };
}

async function validateOne(
  ctx: Context,
  filePath: string,
  options: ValidateCommandOptions,
): Promise<ValidateResult> {
  const input = await openInput(ctx, filePath, { as: options.as, byExtension: true });
  try {
    const defaultFile = input.target.kind === 'file' ? input.target.source.name : null;
    let report: ValidationReport;
    // A near miss is checked by the format it nearly is: its own reader names the damage.
    const plugin =
      input.plugin ?? (input.detection.nearMiss ? await pluginOrNearMiss(ctx, input) : undefined);
    if (!plugin) report = unrecognised(ctx, input);
    else {
      try {
        report = await plugin.validate(input.target, { deep: options.deep });
      } catch (error) {
        // validate() reports bad input rather than throwing; if a FormatError escapes anyway
        // it is still a finding about the file, not a crash.
        if (!isBinscopeError(error, 'FormatError')) throw error;
        report = { valid: false, errors: [error.toProblem()], warnings: [] };
      }
    }
    return {
      path: filePath,
      format: plugin?.id ?? input.detection.format,
      valid: report.valid && report.errors.length === 0,
      errors: report.errors.map((p) => toJsonProblem(p, defaultFile)),
      warnings: report.warnings.map((p) => toJsonProblem(p, defaultFile)),
    };
  } finally {
    await input.close();
  }
}

function where(p: JsonProblem): string {
  const parts = [p.file, p.offset === null ? undefined : `byte ${p.offset}`].filter(Boolean);
  return parts.length > 0 ? ` (at ${parts.join(', ')})` : '';
}

export async function validateCommand(
  ctx: Context,
  paths: string[],
  options: ValidateCommandOptions,
): Promise<ExitCode> {
  const results: ValidateResult[] = [];
  let code: ExitCode = EXIT.ok;
  for (const p of paths) {
    let result: ValidateResult;
    try {
      result = await validateOne(ctx, p, options);
    } catch (error) {
      // A missing path or a bad --as is not a finding about a file: say so, go on, exit 2.
      if (options.debug) ctx.messages.line(String((error as Error)?.stack ?? error));
      const message = error instanceof CliError ? error.message : describeError(error, p);
      ctx.messages.line(`binscope: ${message}`);
      code = EXIT.usage;
      // --json: an unreadable path is an entry of the array like any other, never dropped.
      const { error: e } = jsonError(error, p);
      results.push({
        path: p,
        format: null,
        valid: false,
        errors: [{ code: e.code, message, offset: e.offset, file: e.file ?? p }],
        warnings: [],
      });
      continue;
    }
    results.push(result);
    if (!result.valid && code === EXIT.ok) code = EXIT.failed;
    if (!options.json) {
      const status = result.valid ? 'valid' : 'INVALID';
      const counts = `${result.errors.length} error${result.errors.length === 1 ? '' : 's'}, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}`;
      await ctx.out.line(`${p}: ${status} (${result.format ?? 'unknown format'}), ${counts}`);
      for (const e of result.errors) await ctx.out.line(`  error ${e.code}: ${e.message}${where(e)}`);
      for (const w of result.warnings) await ctx.out.line(`  warning ${w.code}: ${w.message}${where(w)}`);
    }
  }
  if (options.json) await printJson(ctx.out, results);
  await ctx.out.flush();
  return code;
}
