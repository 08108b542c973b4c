import * as fs from 'node:fs';
import { MemorySource, type ProgressCallback } from '@binscope/core';
import { forPath } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import type { ConvertOptions } from './convert.js';

/**
 * `convert train.taridx out.mldf` (shards beside the index) or `convert shards/ out.mldf
 * --fold train` (indexed in memory first, reading only tar headers).
 */
export async function convertShards(
  input: string,
  output: string,
  options: ConvertOptions,
  onProgress: ProgressCallback,
): Promise<Record<string, unknown>> {
  if (
    options.types ||
    options.level !== undefined ||
    options.extensions ||
    options.nulls ||
    options.dictionary === 'auto'
  )
    throw new CliError(
      '--types, --level, --extensions, --nulls and --dictionary are for CSV → SCBF',
      EXIT.usage,
    );
  if (fs.existsSync(output) && !options.force)
    throw new CliError(`${output} exists; pass --force to replace it`, EXIT.usage);
  if (fs.existsSync(output) && fs.statSync(output).isDirectory())
    throw new CliError(`${output} is a folder; an MLDF output is a file`, EXIT.usage);
  const directoryInput = fs.statSync(input).isDirectory();
  if (directoryInput && !options.fold)
    throw new CliError(
      `${input} is a folder: say which fold of shards to convert with --fold NAME`,
      EXIT.usage,
    );
  if (!directoryInput && options.fold) throw new CliError('--fold is for a shard folder input', EXIT.usage);
  const { openTaridx, indexShards } = await import('@binscope/taridx');
  const { openTaridxFile } = await import('@binscope/taridx/node');
  const { openDirectory } = await import('@binscope/core/node');
  const reader = await forPath(input, async () => {
    if (!directoryInput) return openTaridxFile(input);
    const directory = openDirectory(input);
    const { bytes } = await indexShards({ directory, fold: options.fold! });
    return openTaridx(new MemorySource(bytes, `${options.fold}.taridx`), {
      shards: directory,
      fold: options.fold,
    });
  });
  const { convertTaridxToMldfFile } = await import('@binscope/taridx-mldf/node');
  try {
    const result = await forPath(input, () =>
      convertTaridxToMldfFile(reader, output, {
        keepEncoded: options.keepEncoded,
        checksum: options.checksum,
        onProgress,
      }),
    );
    return {
      input,
      output,
      conversion: 'taridx→mldf',
      samples: result.samples,
      fields: result.fields.map((f) => (f.dtype ? { ...f, shape: [...(f.shape ?? [])] } : { ...f })),
      mldfBytes: result.bytes,
      checksum: options.checksum === true,
    };
  } finally {
    await reader.close();
  }
}
