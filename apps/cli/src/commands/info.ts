import type { JsonValue, Summary } from '@binscope/core';
import type { Command } from 'commander';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { EXIT, type ExitCode } from '../errors.js';
import { type OpenInputOptions, withReader } from '../open.js';
import { type Action, asOption, examples, exampleFile, withCommon } from '../options.js';
import { outline, printJson } from '../render.js';

export function registerInfo(program: Command, ctx: Context, action: Action): void {
  withCommon(
    program
      .command('info')
      .summary('summarise a file: version, counts, schema, sizes')
      .description(
        'Summarise a file or archive: format and version, its counts (rows, columns, samples, fields, ' +
          'datasets, tables, arrays), schema / fields / tables / arrays and sizes. Reads headers and metadata only.',
      )
      .argument('<path>', 'a file or archive directory')
      .addOption(asOption(ctx.registry)),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope info ${exampleFile(ctx.registry, 'table')}`,
        '$ binscope info archive/ --json | jq .rows',
      ),
    )
    .action(action((p: string, options: InfoOptions) => infoCommand(ctx, p, options)));
}

export interface InfoOptions extends CommonOptions {
  as?: string;
}

/**
 * The `info --json` document: the plugin's Summary with its counts also at the top level,
 * so `jq .rows` works on every format.
 */
export function infoDocument(filePath: string, summary: Summary): { [key: string]: JsonValue } {
  const doc: { [key: string]: JsonValue } = {
    path: filePath,
    format: summary.format,
    title: summary.title,
  };
  if (summary.version !== undefined) doc.version = summary.version;
  for (const [key, value] of Object.entries(summary.counts)) if (!(key in doc)) doc[key] = value;
  doc.counts = summary.counts;
  doc.properties = Object.fromEntries(summary.properties);
  if (summary.details) doc.details = summary.details;
  return doc;
}

function label(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The human summary: the plugin's properties (its chosen display), counts it left out, then details. */
export function summaryLines(filePath: string, summary: Summary): string[] {
  const lines = [
    `${filePath}: ${summary.title} (${summary.format})${summary.version ? `, version ${summary.version}` : ''}`,
  ];
  const shown = new Set(summary.properties.map(([l]) => label(l)));
  for (const [key, value] of Object.entries(summary.counts)) {
    if (!shown.has(label(key))) lines.push(`  ${key}: ${value.toLocaleString('en-US')}`);
  }
  for (const [name, value] of summary.properties) {
    if (label(name) === 'version' && value === summary.version) continue;
    if (value !== null && typeof value === 'object') {
      lines.push(`  ${name}:`);
      lines.push(...outline(value, '    '));
    } else lines.push(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  if (summary.details && Object.keys(summary.details).length > 0) {
    lines.push('  details:');
    lines.push(...outline(summary.details, '    '));
  }
  return lines;
}

export async function infoCommand(ctx: Context, filePath: string, options: InfoOptions): Promise<ExitCode> {
  const openOptions: OpenInputOptions = { as: options.as };
  const summary = await forPath(filePath, () =>
    withReader(ctx, filePath, openOptions, (input, reader) => input.plugin.info(reader)),
  );
  if (options.json) await printJson(ctx.out, infoDocument(filePath, summary));
  else for (const line of summaryLines(filePath, summary)) await ctx.out.line(line);
  await ctx.out.flush();
  return EXIT.ok;
}
