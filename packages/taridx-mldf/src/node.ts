/** @binscope/taridx-mldf/node: the conversion into a file, atomically, values spilled to disk. */
import { statSync } from 'node:fs';
import { MldfFileWriter } from '@binscope/mldf/node';
import { convertInto, type TaridxToMldfOptions, type TaridxToMldfResult } from './convert.js';
import type { ShardsInput } from './input.js';

export * from './index.js';

/**
 * `convertTaridxToMldf` into the file at `output`: values spill to a scratch file beside it
 * (memory holds one sample and the metadata rows whatever the fold's size), and the file
 * appears by rename once complete; on failure `output` is left as it was.
 */
export async function convertTaridxToMldfFile(
  input: ShardsInput,
  output: string,
  options: TaridxToMldfOptions = {},
): Promise<TaridxToMldfResult> {
  const result = await convertInto(
    input,
    (fields, writerOptions) => MldfFileWriter.create(output, fields, writerOptions),
    options,
  );
  return { ...result, bytes: statSync(output).size };
}
