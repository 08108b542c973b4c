import type { NearMiss } from '@binscope/core';
import type { Command } from 'commander';
import type { CommonOptions, Context } from '../context.js';
import { describeError, EXIT, type ExitCode } from '../errors.js';
import { formatLabel, spokenList } from '../format-list.js';
import { openInput } from '../open.js';
import { type Action, examples, exampleFile, withCommon } from '../options.js';
import { printJson } from '../render.js';

export function registerDetect(program: Command, ctx: Context, action: Action): void {
  const { registry } = ctx;
  const folders = registry.formats.filter((f) => f.kind === 'directory').map((f) => f.id.toUpperCase());
  const detectedOnly = registry.formats.filter((f) => (f.role ?? 'format') !== 'format').map(formatLabel);
  withCommon(
    program
      .command('detect')
      .summary('name the format of each path')
      .description(
        'Name the format of each path from its magic bytes (a small head window; nothing is parsed). ' +
          `A directory is checked as an archive (${spokenList(folders)}). ` +
          (detectedOnly.length > 0
            ? `Files read through another format are named too: ${spokenList(detectedOnly)}. `
            : '') +
          'An unrecognised file is reported as unknown with its first bytes in hex. Exits 1 when any path is unknown.',
      )
      .argument('<path...>', 'files or archive directories')
      .option('-v, --verbose', 'list every candidate format and why it matched'),
  )
    .addHelpText(
      'after',
      examples(
        `$ binscope detect ${exampleFile(registry, 'table')} archive/`,
        '$ binscope detect --json *.bin      # [{"path": "a.bin", "format": "…"}, ...]',
      ),
    )
    .action(
      action((paths: string[], options: CommonOptions & { verbose?: boolean }) =>
        detectCommand(ctx, paths, options),
      ),
    );
}

export interface DetectOptions extends CommonOptions {
  verbose?: boolean;
}

interface DetectResult {
  path: string;
  /** The detected entry's id (a detection-only entry's too), null when unknown (or unreadable). */
  format: string | null;
  title: string;
  kind?: 'file' | 'directory';
  /** Why it matched, best first. */
  candidates?: Array<{ id: string; score: number; reason: string }>;
  /** The first bytes in hex, for an unknown file. */
  head?: string;
  /** For an unknown file: the format it nearly is (most magic bytes, or its extension). */
  nearMiss?: NearMiss;
  error?: string;
}

function spacedHex(hex: string): string {
  return hex.replace(/(..)(?!$)/g, '$1 ');
}

/** Detection only reads a small head window (or a directory's listing): never parses. */
export async function detectCommand(
  ctx: Context,
  paths: string[],
  options: DetectOptions,
): Promise<ExitCode> {
  const results: DetectResult[] = [];
  let code: ExitCode = EXIT.ok;
  for (const p of paths) {
    let result: DetectResult;
    try {
      const input = await openInput(ctx, p, { loadParser: false });
      try {
        const d = input.detection;
        result = {
          path: p,
          format: d.format,
          title: d.title,
          kind: input.target.kind,
          candidates: d.candidates,
        };
        if (!d.format && input.target.kind === 'file') result.head = d.headHex;
        if (d.nearMiss) result.nearMiss = d.nearMiss;
      } finally {
        await input.close();
      }
      if (!result.format && code === EXIT.ok) code = EXIT.failed;
    } catch (error) {
      result = { path: p, format: null, title: 'unreadable', error: describeError(error, p) };
      code = EXIT.usage;
      if (!options.json) ctx.messages.line(`binscope: ${result.error}`);
    }
    results.push(result);
    if (!options.json && !result.error) await ctx.out.line(humanLine(result, options.verbose));
  }
  if (options.json) await printJson(ctx.out, results);
  await ctx.out.flush();
  return code;
}

function humanLine(r: DetectResult, verbose?: boolean): string {
  if (!r.format) {
    const near = r.nearMiss ? ` — ${r.nearMiss.message}` : '';
    if (r.kind === 'directory') return `${r.path}: unknown${near} (a directory no format recognises)`;
    return `${r.path}: unknown${near} (first bytes: ${r.head ? spacedHex(r.head.slice(0, 64)) : 'none, the file is empty'})`;
  }
  const best = r.candidates?.[0];
  let line = `${r.path}: ${r.format} (${r.title})`;
  if (verbose && r.candidates)
    line += r.candidates.map((c) => `\n  ${c.id}: ${c.reason} (score ${c.score})`).join('');
  else if (best) line += ` — ${best.reason}`;
  return line;
}
