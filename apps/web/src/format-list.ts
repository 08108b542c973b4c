/**
 * The formats the site knows, as metadata only (each package's `/magic` entry: no parser
 * code). The worker's registry adds a loader to each; the page names formats from here.
 * Order breaks detection ties.
 */
import type { FormatInfo } from '@binscope/core';
import { mldfFormat } from '@binscope/mldf/magic';
import { scbfFormat } from '@binscope/scbf/magic';
import { scdlFormat } from '@binscope/scdl/magic';
import { taridxFormat } from '@binscope/taridx/magic';
import { udfFormat } from '@binscope/udf/magic';

export const FORMAT_INFOS = [
  scbfFormat,
  udfFormat,
  mldfFormat,
  taridxFormat,
  scdlFormat,
] as const satisfies readonly FormatInfo[];

/** "SCBF, UDF, MLDF, TARIDX and SCDL", or only the formats of one kind. */
export function formatNames(kind?: FormatInfo['kind']): string {
  const names = FORMAT_INFOS.filter((f) => !kind || f.kind === kind).map((f) => f.id.toUpperCase());
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
