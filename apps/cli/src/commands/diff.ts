import {
  type AnyFormatPlugin,
  type Comparison,
  compareContent,
  type Difference,
  type DifferenceLocation,
  type DifferenceSide,
  type FormatReader,
  type Summary,
} from '@binscope/core';
import type { Command } from 'commander';
import type { CommonOptions, Context } from '../context.js';
import { CliError, describeError, EXIT, type ExitCode } from '../errors.js';
import { type Input, openInput, unreadable } from '../open.js';
import { type Action, asOption, examples, exampleFile, wholeNumber, withCommon } from '../options.js';
import { printJson } from '../render.js';

export function registerDiff(program: Command, ctx: Context, action: Action): void {
  const [a, b] = [exampleFile(ctx.registry, 'old'), exampleFile(ctx.registry, 'new')];
  withCommon(
    program
      .command('diff')
      .summary('compare two files of the same format by content')
      .description(
        'Compare two files (or archives) of the same format by content: header fields, schema / fields / ' +
          'tables / arrays, counts, then records in order, reporting the first differing records. Each ' +
          'difference names its location in both files (byte range, inspect node or record number). Encoding ' +
          'details are not content: files that differ only in compressed bytes are equal, and so are ' +
          'files that store the same values at other offsets; --layout compares where each value is ' +
          'stored too. Exits 0 when equal, 1 when they differ, 2 when either cannot be read.',
      )
      .argument('<a>', 'first file or archive')
      .argument('<b>', 'second file or archive')
      .option('--max-records <n>', 'stop after this many differing records', wholeNumber('--max-records'), 5)
      .option('--no-records', 'compare header, structure and counts only')
      .option('--layout', 'compare the layout too: offsets and sizes of the values compared')
      .addOption(asOption(ctx.registry)),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope diff ${a} ${b}`,
        '$ binscope diff a/ b/ --json | jq .differences',
        `$ binscope diff ${a} ${b} --layout`,
      ),
    )
    .action(action((x: string, y: string, options: DiffOptions) => diffCommand(ctx, x, y, options)));
}

export interface DiffOptions extends CommonOptions {
  as?: string;
  /** Stop after this many differing records. */
  maxRecords: number;
  /** Compare only header, structure and counts. */
  records: boolean;
  /** Compare the layout too: the plugin's layout fields and records' layout fields. */
  layout?: boolean;
}

/** The comparison's types are core's (`compareContent`); these names stay for the CLI's callers. */
export type DiffLocation = DifferenceLocation;
export type DiffSide = DifferenceSide;
export type { Difference };

export interface DiffReport {
  equal: boolean;
  a: { path: string; format: string | null };
  b: { path: string; format: string | null };
  differences: Difference[];
  /** True when layout was compared too (--layout). */
  layout: boolean;
  /** Records compared before stopping (at the end, or after --max-records differences). */
  recordsCompared: number;
  /** True when comparison stopped early at --max-records differing records. */
  truncated: boolean;
}

interface Side {
  input: Input;
  plugin: AnyFormatPlugin;
  reader: FormatReader;
  summary: Summary;
}

function describeLocation(loc: DifferenceLocation | null): string {
  if (!loc) return 'location unknown';
  const parts: string[] = [];
  if (loc.record !== undefined) parts.push(`record ${loc.record}`);
  if (loc.field) parts.push(`field ${loc.field}`);
  if (loc.node) parts.push(`node ${loc.node}`);
  if (loc.offset !== undefined)
    parts.push(`bytes ${loc.offset}${loc.length !== undefined ? `..${loc.offset + loc.length}` : ''}`);
  if (loc.file) parts.push(`in ${loc.file}`);
  return parts.join(', ');
}

function show(side: DifferenceSide): string {
  if (!side.present) return '(absent)';
  // JSON writes -0 as 0; a difference of sign must show.
  const text = Object.is(side.value, -0) ? '-0' : JSON.stringify(side.value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

async function openSide(
  ctx: Context,
  filePath: string,
  options: DiffOptions,
): Promise<Omit<Side, 'reader' | 'summary'> & { input: Input }> {
  const input = await openInput(ctx, filePath, { as: options.as, byExtension: true });
  if (!input.plugin) {
    await input.close();
    const reason = unreadable(ctx, input).message;
    throw new CliError(reason, EXIT.usage);
  }
  return { input, plugin: input.plugin };
}

/**
 * Compares content, not bytes: header fields, structure and counts from the plugins, then
 * records in order until the first --max-records differences. With --layout, also the
 * plugins' layout fields and records' layout fields (where and how values are stored). Exit
 * 0 equal, 1 differ, 2 when either file cannot be compared.
 */
export async function diffCommand(
  ctx: Context,
  pathA: string,
  pathB: string,
  options: DiffOptions,
): Promise<ExitCode> {
  const sides: Side[] = [];
  let report: DiffReport;
  try {
    for (const p of [pathA, pathB]) {
      try {
        const { input, plugin } = await openSide(ctx, p, options);
        const partial: Partial<Side> & { input: Input; plugin: AnyFormatPlugin } = { input, plugin };
        sides.push(partial as Side);
        partial.reader = await plugin.open(input.target);
        partial.summary = await plugin.info(partial.reader);
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(describeError(error, p), EXIT.usage, { cause: error });
      }
    }
    const [a, b] = sides;
    let comparison: Comparison;
    try {
      comparison = await compareContent(a, b, {
        maxRecords: options.maxRecords,
        records: options.records,
        layout: options.layout,
      });
    } catch (error) {
      throw new CliError(describeError(error, `${pathA} vs ${pathB}`), EXIT.usage, { cause: error });
    }
    // Saying "equal in layout" for a format that lists no layout would claim what was not compared.
    if (options.layout && a.plugin.id === b.plugin.id && !comparison.describesLayout)
      throw new CliError(
        `diff --layout: ${a.plugin.id} files do not describe their layout (offsets, sizes) to compare; ` +
          'leave out --layout to compare their content',
        EXIT.usage,
      );
    report = {
      equal: comparison.equal,
      a: { path: pathA, format: a.plugin.id },
      b: { path: pathB, format: b.plugin.id },
      differences: comparison.differences,
      layout: Boolean(options.layout),
      recordsCompared: comparison.recordsCompared,
      truncated: comparison.truncated,
    };
  } finally {
    for (const side of sides) {
      await side.reader?.close?.();
      await side.input.close();
    }
  }

  if (options.json) await printJson(ctx.out, report);
  else {
    if (report.equal) {
      await ctx.out.line(
        `${pathA} and ${pathB}: equal in content${report.layout ? ' and layout' : ''} (${report.a.format}${options.records ? `, ${report.recordsCompared} records` : ''})`,
      );
    } else {
      await ctx.out.line(`${pathA} (A) and ${pathB} (B) differ:`);
      for (const d of report.differences) {
        await ctx.out.line(
          `  ${d.kind === d.path ? d.path : `${d.kind} ${d.path}`}: A ${show(d.a)}  B ${show(d.b)}`,
        );
        await ctx.out.line(
          `      A: ${describeLocation(d.a.location)}; B: ${describeLocation(d.b.location)}`,
        );
      }
      if (report.truncated)
        await ctx.out.line(`  … stopped after ${options.maxRecords} differing records (--max-records)`);
    }
  }
  await ctx.out.flush();
  return report.equal ? EXIT.ok : EXIT.failed;
}
