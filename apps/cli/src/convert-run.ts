import * as path from 'node:path';
import {
  type ConverterInfo,
  type ConvertInput,
  type ConvertReport,
  type JsonValue,
  type OptionValues,
  type RecordsInput,
  runConverter,
} from '@binscope/core';
import { fileScratch } from '@binscope/core/node';
import { isS3Url } from '@binscope/core/s3';
import type { Context } from './context.js';
import { CliError, EXIT } from './errors.js';
import { openFileOutput, openFolderOutput, writeInto } from './outputs.js';
import { progressBar } from './progress.js';
import { inputKind } from './remote.js';
import { printJson } from './render.js';

export interface ConversionRun {
  converter: ConverterInfo;
  /** A target or stream; for a converter from any format, the opened input's records. */
  input: ConvertInput | RecordsInput;
  /** What the user named: paths, URLs or `-`. */
  inputs: readonly string[];
  /** Every file the conversion reads (the inputs, and a folder input's files it takes): never an output. */
  reads?: readonly string[];
  output: string;
  values: OptionValues;
  force?: boolean;
  json?: boolean;
}

/** Spills go beside a local output (same disk, removed with its temps), else to the temp folder. */
function scratchFor(output: string) {
  return output === '-' || isS3Url(output) ? fileScratch() : fileScratch(output);
}

/** Local inputs are refused as outputs by what they are, remote ones by URL. */
function refusedInputs(inputs: readonly string[]): string[] {
  return inputs.filter((i) => i !== '-' && inputKind(i) !== 'http');
}

/**
 * Runs one converter from the opened input to OUTPUT: the output is opened first (an
 * existing one, or one of the inputs, is refused before any work), written by the converter,
 * and committed only when the conversion succeeded; any failure, Ctrl-C or SIGTERM aborts it,
 * leaving nothing. Prints the report (a JSON document with --json) and its warnings.
 */
export async function runConversion(ctx: Context, run: ConversionRun): Promise<ConvertReport> {
  const { converter, output } = run;
  if (output === '-' && (run.json || converter.output === 'directory'))
    throw new CliError(
      'output - (stdout) takes the converted bytes: not with --json, and not for a folder output',
      EXIT.usage,
    );
  const controller = new AbortController();
  const common = {
    force: run.force,
    inputs: refusedInputs(run.reads ?? run.inputs),
    signal: controller.signal,
  };
  const progress = progressBar(
    ctx.streams.stderr,
    `${converter.title}: ${path.basename(run.inputs[0] ?? '')}`,
    !run.json && output !== '-',
  );
  const scratch = scratchFor(output);
  try {
    const load = converter.load();
    const report =
      converter.output === 'directory'
        ? await writeInto(
            await openFolderOutput(ctx, output, {
              ...common,
              marker: converter.marker,
              format: converter.to,
            }),
            async (sink) =>
              runConverter(
                converter,
                await load,
                run.input,
                { kind: 'directory', sink },
                options(run.values, scratch, controller, progress),
              ),
          )
        : await writeInto(await openFileOutput(ctx, output, common), async (sink) =>
            runConverter(
              converter,
              await load,
              run.input,
              { kind: 'file', sink },
              options(run.values, scratch, controller, progress),
            ),
          );
    for (const w of report.warnings) ctx.messages.line(`binscope: warning: ${w.code}: ${w.message}`);
    return report;
  } catch (error) {
    controller.abort();
    throw error;
  } finally {
    progress.stop();
    scratch.close();
  }
}

function options(
  values: OptionValues,
  scratch: ReturnType<typeof fileScratch>,
  controller: AbortController,
  progress: ReturnType<typeof progressBar>,
) {
  return { values, scratch, signal: controller.signal, onProgress: progress.onProgress };
}

/** The conversion's report: a JSON document with --json, one line on stderr otherwise. */
export async function reportConversion(
  ctx: Context,
  run: ConversionRun,
  report: ConvertReport,
  extra: Record<string, JsonValue> = {},
): Promise<void> {
  // An export names the format it read, not "any format".
  const from = run.input.kind === 'records' ? run.input.format : run.converter.from;
  const conversion = `${from}→${run.converter.to}`;
  if (run.json) {
    const input: JsonValue = run.inputs.length === 1 ? run.inputs[0] : [...run.inputs];
    await printJson(ctx.out, {
      input,
      output: run.output,
      conversion,
      ...extra,
      ...report.details,
      warnings: report.warnings.map((w) => ({ code: w.code, message: w.message, offset: w.offset ?? null })),
    });
  } else if (run.output !== '-') ctx.messages.line(`wrote ${run.output} (${conversion})`);
}
