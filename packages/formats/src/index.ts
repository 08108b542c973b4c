import {
  type ConverterInfo,
  createRegistry,
  type LazyFormat,
  type Registry,
  type RegistryEntry,
} from '@binscope/core';
import { arrowConverters, arrowFormat, arrowsFormat } from '@binscope/arrow/magic';
import { mldfFormat } from '@binscope/mldf/magic';
import { parquetConverters, parquetFormat } from '@binscope/parquet/magic';
import { scbfConverters, scbfFormat } from '@binscope/scbf/magic';
import { scdlFormat } from '@binscope/scdl/magic';
import { h5adConverters, h5adFormat } from '@binscope/scdl-h5ad/magic';
import { taridxConverters, tarShardFormat, taridxFormat } from '@binscope/taridx/magic';
import { taridxMldfConverters } from '@binscope/taridx-mldf/magic';
import { udfFormat } from '@binscope/udf/magic';

/**
 * Every format binscope knows, in the order that breaks detection ties: the five formats,
 * Parquet, then the entries only detected (a tar shard is read through its index, an `.h5ad`
 * is converted). Each is its package's `/magic` entry: metadata now, the parser on first use.
 */
export const formats: readonly LazyFormat[] = [
  scbfFormat,
  udfFormat,
  mldfFormat,
  taridxFormat,
  scdlFormat,
  parquetFormat,
  arrowFormat,
  arrowsFormat,
  tarShardFormat,
  h5adFormat,
];

/** Every conversion the packages provide, declared by the package that provides it. */
export const converters: readonly ConverterInfo[] = [
  ...scbfConverters,
  ...taridxConverters,
  ...taridxMldfConverters,
  ...h5adConverters,
  ...parquetConverters,
  ...arrowConverters,
];

/**
 * A registry of every format and converter, plus any given (third-party plugins, tests),
 * which come first so they can claim what the built-in formats do not.
 */
export function createFormatRegistry(
  extra: { formats?: readonly RegistryEntry[]; converters?: readonly ConverterInfo[] } = {},
): Registry {
  return createRegistry([...(extra.formats ?? []), ...formats], [...(extra.converters ?? []), ...converters]);
}
