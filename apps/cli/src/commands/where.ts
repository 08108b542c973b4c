import type { JsonRecord } from '@binscope/core';
import type { Context } from '../context.js';
import { CliError, EXIT } from '../errors.js';

/** `cat --where`: SCBF rows filtered by a predicate, skipping what the file's statistics exclude. */
export async function whereRecords(
  ctx: Context,
  format: string | null | undefined,
  reader: unknown,
  where: string,
  window: { offset?: number; limit?: number; columns?: string[] },
): Promise<AsyncIterable<JsonRecord>> {
  if (format !== 'scbf')
    throw new CliError(`--where works on SCBF files (this is ${format ?? 'unknown'})`, EXIT.usage);
  const { parseWhere, scbfWhereRecords, WhereSyntaxError } = await import('@binscope/scbf');
  let conditions: ReturnType<typeof parseWhere>;
  try {
    conditions = parseWhere(where);
  } catch (error) {
    if (error instanceof WhereSyntaxError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  return scbfWhereRecords(reader as Parameters<typeof scbfWhereRecords>[0], conditions, {
    ...window,
    onSkip: ({ reason }) => ctx.messages.line(`binscope: no column block read: ${reason}`),
  });
}
