import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProgressCallback } from '@binscope/core';
import type { ScbfType } from '@binscope/scbf';
import type { DataDtype } from '@binscope/scdl-h5ad';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { ConvertEnds, urlPath } from '../convert-io.js';
import { openInput } from '../open.js';
import { guardOutput } from '../output-guard.js';
import { progressBar } from '../progress.js';
import { inputKind } from '../remote.js';
import { printJson } from '../render.js';
import { convertShards } from './convert-shards.js';
import { addScbfExtensions } from './convert-extensions.js';

export interface ConvertOptions extends CommonOptions {
  types?: string;
  level?: number;
  maxColumns?: number;
  /** CSV → SCBF deflater: 'python' for the upstream writer's exact bytes. */
  zlib?: 'node' | 'python';
  dataDtype: string;
  useX?: boolean;
  lossyCast?: boolean;
  neighbors?: string;
  force?: boolean;
  extensions?: boolean;
  nulls?: boolean;
  dictionary?: string;
  fold?: string;
  keepEncoded?: boolean;
  checksum?: boolean;
}

type Conversion = 'csv→scbf' | 'scbf→csv' | 'h5ad→scdl' | 'taridx→mldf';

function extension(p: string): string {
  const base = path.basename(urlPath(p));
  return base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Which conversion IN → OUT asks for, by extension (and, for a folder IN, its .h5ad files). */
function chooseConversion(input: string, output: string): Conversion {
  // Standard input can only be CSV (the one format read in a single forward pass); `-` as
  // output takes the other side of the pair.
  const from = input === '-' ? 'csv' : isDirectory(input) ? 'dir' : extension(input);
  const to = output === '-' ? ({ csv: 'scbf', scbf: 'csv' }[from] ?? '-') : extension(output);
  if (to === 'mldf' && (from === 'taridx' || from === 'dir')) return 'taridx→mldf';
  if (from === 'csv' && to === 'scbf') return 'csv→scbf';
  if (from === 'scbf' && to === 'csv') return 'scbf→csv';
  if (from === 'h5ad' || from === 'dir') return 'h5ad→scdl';
  throw new CliError(
    `cannot convert ${input} → ${output}: binscope converts .csv → .scbf, .scbf → .csv, .taridx (or a shard folder with --fold) → .mldf, and .h5ad (or a folder of .h5ad files) → an SCDL archive folder`,
    EXIT.usage,
  );
}

/** "id:int32,price:float64" → { id: 'int32', price: 'float64' }. */
function parseTypes(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of spec.split(',')) {
    const at = part.lastIndexOf(':');
    if (at <= 0 || at === part.length - 1) {
      throw new CliError(
        `--types: ${JSON.stringify(part)} is not NAME:TYPE (e.g. id:int32,price:float64,name:utf8)`,
        EXIT.usage,
      );
    }
    out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

/**
 * `binscope convert IN OUT`, through the format packages' converters. Each writes OUT
 * atomically (temp name, then rename), so OUT is never half-written.
 */
export async function convertCommand(
  ctx: Context,
  input: string,
  output: string,
  options: ConvertOptions,
): Promise<ExitCode> {
  if (inputKind(input) === 'path' && !fs.existsSync(input))
    throw new CliError(`${input}: no such file or directory`, EXIT.usage);
  const conversion = chooseConversion(input, output);
  const ends = new ConvertEnds(input, output, ctx.out);
  if (ends.toStdout && (options.json || conversion === 'h5ad→scdl'))
    throw new CliError(
      'output - (stdout) takes the converted bytes: not with --json, and not for an SCDL folder',
      EXIT.usage,
    );
  // Standard output and inputs by URL or on stdin cannot be overwritten; a local output can.
  if (!ends.toStdout)
    guardOutput({
      output,
      inputs: inputKind(input) === 'path' ? [input] : [],
      force: options.force,
      folder: conversion === 'h5ad→scdl',
      onWarning: (message) => ctx.messages.line(`binscope: warning: ${message}`),
    });
  const progress = progressBar(ctx.streams.stderr, `converting ${path.basename(input)}`, !options.json);
  let report: Record<string, unknown>;
  try {
    switch (conversion) {
      case 'csv→scbf': {
        const { csvToScbf } = await import('@binscope/scbf/node');
        const types = options.types ? parseTypes(options.types) : undefined;
        const result = await forPath(input, async () =>
          csvToScbf(await ends.csvInput(), ends.outputPath('scbf'), {
            inputName: path.basename(urlPath(input)),
            types: types as Record<string, ScbfType> | undefined,
            level: options.level,
            pythonZlib: options.zlib === 'python',
            maxColumns: options.maxColumns,
            onProgress: progress.onProgress,
          }),
        );
        // The footer pass rewrites the staged or final file before it is delivered.
        const rewritten = await addScbfExtensions(ends.outputPath('scbf'), options);
        await ends.deliver(ends.outputPath('scbf'));
        report = {
          input,
          output,
          conversion,
          extensions: options.extensions === true || options.nulls === true || options.dictionary === 'auto',
          ...(rewritten && options.nulls ? { nullColumns: rewritten.nullColumns } : {}),
          ...(rewritten && options.dictionary === 'auto'
            ? { dictionaryColumns: rewritten.dictionaryColumns }
            : {}),
          rows: result.rows,
          columns: result.columns,
          csvBytes: result.csvBytes,
          scbfBytes: result.scbfBytes,
        };
        break;
      }
      case 'scbf→csv': {
        if (options.types || options.level !== undefined || options.zlib)
          throw new CliError('--types, --level and --zlib are for CSV → SCBF', EXIT.usage);
        const detected = await forPath(input, async () => {
          const opened = await openInput(input);
          await opened.close();
          return opened.detection.format;
        });
        if (detected !== 'scbf')
          throw new CliError(
            `${input}: not an SCBF file (detected: ${detected ?? 'unknown format'})`,
            EXIT.failed,
          );
        const { scbfToCsv } = await import('@binscope/scbf/node');
        const { warnings } = await forPath(input, async () =>
          scbfToCsv((await ends.remoteSource()) ?? input, ends.outputPath('csv')),
        );
        for (const w of warnings) ctx.messages.line(`binscope: warning: ${w.code}: ${w.message}`);
        await ends.deliver(ends.outputPath('csv'));
        report = { input, output, conversion, bytes: fs.statSync(ends.outputPath('csv')).size, warnings };
        break;
      }
      case 'h5ad→scdl':
        report = {
          ...(await convertH5ad(
            ctx,
            await forPath(input, () => ends.localInput()),
            output,
            options,
            progress.onProgress,
          )),
          input,
        };
        break;
      case 'taridx→mldf':
        if (inputKind(input) !== 'path')
          throw new CliError('tar shards → MLDF reads a local .taridx or shard folder', EXIT.usage);
        report = await convertShards(input, output, options, progress.onProgress);
        break;
    }
  } finally {
    progress.stop();
    ends.cleanup();
  }
  if (options.json) await printJson(ctx.out, report);
  // A stdout reader that went away (`| head`) took what it wanted: nothing more to say.
  else if (!(ends.toStdout && ctx.out.closed)) ctx.messages.line(`wrote ${output} (${conversion})`);
  return EXIT.ok;
}

/**
 * An existing OUT folder (which guardOutput let through only with --force) is replaced only
 * when it is an SCDL archive: a typo must never delete an unrelated folder.
 */
async function checkArchiveTarget(output: string): Promise<void> {
  if (!fs.existsSync(output)) return;
  const opened = await forPath(output, () => openInput(output));
  await opened.close();
  if (opened.detection.format !== 'scdl') {
    throw new CliError(`${output} exists and is not an SCDL archive; refusing to replace it`, EXIT.usage);
  }
}

async function convertH5ad(
  ctx: Context,
  input: string,
  output: string,
  options: ConvertOptions,
  onProgress: ProgressCallback,
): Promise<Record<string, unknown>> {
  if (options.types || options.level !== undefined || options.zlib)
    throw new CliError('--types, --level and --zlib are for CSV → SCBF', EXIT.usage);
  await checkArchiveTarget(output);
  const { convertH5adToScdl } = await import('@binscope/scdl-h5ad/node');
  const result = await forPath(input, () =>
    convertH5adToScdl(input, output, {
      dataDtype: options.dataDtype as DataDtype,
      useX: options.useX,
      lossyCast: options.lossyCast,
      neighbors: options.neighbors,
      onProgress,
      onWarning: (message) => ctx.messages.line(`binscope: warning: ${message}`),
      // guardOutput checked before converting; a convert running beside this one may put
      // an archive there meanwhile, which only --force may replace.
      replace: options.force === true,
    }),
  );
  return {
    input,
    output,
    conversion: 'h5ad→scdl',
    rows: result.rows,
    nnz: result.nnz,
    columns: result.numCols,
    dataDType: result.dataDType,
    rowPtrDType: result.rowPtrDType,
    colPtrDType: result.colPtrDType,
    inputs: result.inputs,
    warnings: result.warnings,
  };
}
