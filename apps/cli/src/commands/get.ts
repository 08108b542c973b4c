import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Target } from '@binscope/core';
import { writeFileAtomic } from '@binscope/core/node';
import { type CommonOptions, type Context, forPath } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { openInput } from '../open.js';
import { guardOutput } from '../output-guard.js';
import { openFolder } from '../remote.js';
import { printJson } from '../render.js';

export interface GetOptions extends CommonOptions {
  ext?: string;
  output?: string;
  shards?: string;
  force?: boolean;
}

/**
 * `binscope get INDEX KEY`: a sample's members, or one member's payload, through the taridx
 * package's reader (O(1) key lookup; one positional read of the shard for the payload).
 */
export async function getCommand(
  ctx: Context,
  indexPath: string,
  key: string,
  options: GetOptions,
): Promise<ExitCode> {
  if (options.json && options.ext !== undefined && (options.output === undefined || options.output === '-')) {
    throw new CliError('--json with --ext needs -o FILE: the payload bytes would go to stdout', EXIT.usage);
  }
  if (options.output !== undefined && options.ext === undefined) {
    throw new CliError('-o writes one member: say which with --ext (e.g. --ext jpg)', EXIT.usage);
  }
  const input = await forPath(indexPath, () => openInput(indexPath));
  const detected = input.detection.format;
  if (detected !== 'taridx' || input.target.kind !== 'file') {
    await input.close();
    throw new CliError(
      `${indexPath}: not a .taridx index (detected: ${detected ?? 'unknown format'})`,
      EXIT.failed,
    );
  }
  const { TaridxReader } = await import('@binscope/taridx');
  const shardDir =
    options.shards !== undefined
      ? forPath(options.shards, async () => openFolder(options.shards!))
      : undefined;
  const shards = await shardDir;

  return forPath(indexPath, async () => {
    const { source, siblings } = input.target as Extract<Target, { kind: 'file' }>;
    const reader = await TaridxReader.open(source, { shards: shards ?? siblings });
    try {
      const found = await reader.find(key);
      // Tar extended headers (PAX, GNU long names) are rows of the index but never members:
      // each row's header says which; a key that only they have (`@PaxHeader`) is no sample.
      const reachable = ((await reader.shards())?.count ?? 0) > 0;
      const members = found && reachable ? await reader.listMembers(found) : found?.members;
      const sample = members?.length ? found : undefined;
      if (!sample || !members) {
        if (options.json) await printJson(ctx.out, { index: indexPath, key, found: false });
        ctx.messages.line(`binscope: ${indexPath}: no sample with key ${JSON.stringify(key)}`);
        return EXIT.failed;
      }
      const set = await reader.shards();
      if (options.output !== undefined && options.output !== '-') {
        const shardFolder = options.shards ?? path.dirname(path.resolve(indexPath));
        guardOutput({
          output: options.output,
          inputs: [indexPath, ...(set?.names ?? []).map((name) => path.join(shardFolder, name))],
          force: options.force,
        });
      }
      const shardName = (fid: number) => set?.names[fid] ?? null;
      if (options.ext === undefined) {
        const doc = {
          index: indexPath,
          key,
          crashid: sample.crashid,
          members: members.map((m) => ({
            ext: m.ext,
            fid: m.fid,
            shard: shardName(m.fid),
            offset: m.offset,
            size: m.size,
          })),
        };
        if (options.json) await printJson(ctx.out, { ...doc, found: true });
        else {
          await ctx.out.line(
            `${key}${sample.crashid ? ` (crash id ${sample.crashid})` : ''}: ${members.length} member${members.length === 1 ? '' : 's'}`,
          );
          for (const m of doc.members) {
            await ctx.out.line(
              `  .${m.ext || '(no extension)'}  ${m.size.toLocaleString('en-US')} B  in ${m.shard ?? `shard ${m.fid}`} at byte ${m.offset + 512}`,
            );
          }
        }
        await ctx.out.flush();
        return EXIT.ok;
      }
      const ext = options.ext.replace(/^\./, '').toLowerCase();
      const withExt = members.filter((m) => m.ext === ext);
      if (withExt.length === 0) {
        const has = members.map((m) => m.ext || '(none)').join(', ');
        if (options.json) await printJson(ctx.out, { index: indexPath, key, ext, found: false });
        ctx.messages.line(
          `binscope: ${indexPath}: sample ${JSON.stringify(key)} has no .${ext} member (it has: ${has})`,
        );
        return EXIT.failed;
      }
      const member = withExt[0];
      if (withExt.length > 1) {
        ctx.messages.line(
          `binscope: note: sample ${JSON.stringify(key)} has ${withExt.length} .${ext} members; this is the first (row ${member.row})`,
        );
      }
      // Streamed in bounded chunks (members can be many GiB), with the member's tar header
      // checked against the sample first (size, extension and stem), so a rewritten shard is an
      // error, not another sample's bytes. `-o -` is standard output, as no -o is.
      const chunks = reader.streamMember(member, { sample });
      if (options.output !== undefined && options.output !== '-') {
        const hash = createHash('sha256');
        await writeFileAtomic(options.output, async (file) => {
          for await (const chunk of chunks) {
            hash.update(chunk);
            await file.write(chunk);
          }
        });
        if (options.json) {
          await printJson(ctx.out, {
            index: indexPath,
            key,
            ext,
            fid: member.fid,
            shard: shardName(member.fid),
            offset: member.offset,
            size: member.size,
            output: options.output,
            sha256: hash.digest('hex'),
            found: true,
          });
        } else ctx.messages.line(`wrote ${options.output}: ${member.size.toLocaleString('en-US')} bytes`);
      } else {
        for await (const chunk of chunks) {
          await ctx.out.bytes(chunk);
          // The reader of stdout went away (`| head -c`): stop reading the shard.
          if (ctx.out.closed) break;
        }
        await ctx.out.flush();
      }
      return EXIT.ok;
    } finally {
      await reader.close();
      await input.close();
    }
  });
}
