import {
  type Finding,
  type InspectNode,
  type InspectResult,
  inspectResult,
  markProblem,
  node,
  type Problem,
  ProblemList,
  type Target,
  unparsedResult,
  type ValidateOptions,
} from '@binscope/core';
import { indexTree } from './inspect.js';
import { FORMAT, TAR_BLOCK } from './layout.js';
import { shardScope } from './shard-check.js';
import type { ShardSet } from './shards.js';
import { NOT_A_FILE, parseTaridx } from './validate.js';

/**
 * Inspect mode: the same parse as read and validate, building the tree of whatever the file
 * holds, each problem marked on its node. Shards are checked only with `deep: true` (inspect
 * stays a look at the index); their problems are then marked on the shard or member.
 */
export async function inspectTaridxTarget(
  target: Target,
  options: ValidateOptions = {},
): Promise<InspectResult> {
  if (target.kind !== 'file') {
    const problem = {
      code: 'InvalidValue',
      message: NOT_A_FILE,
      format: FORMAT,
    };
    return unparsedResult(target.directory.name, 0, { valid: false, errors: [problem], warnings: [] });
  }
  const { source } = target;
  const problems = new ProblemList(FORMAT, { mode: 'inspect', file: source.name });
  const parse = await parseTaridx(source, target.siblings, problems, {
    ...options,
    deep: options.deep === true,
  });
  const index = parse.index;
  const report = problems.report();
  const root = indexTree(
    {
      source,
      header: index?.header,
      layoutKnown: index?.layoutKnown ?? false,
      region: index?.region,
      extensions: index?.extensions,
      crashStems: index?.crashStems,
      rowProblems: report.errors,
    },
    options,
  );
  const header = root.children?.[0];
  // A header cut short has no field to hold its Truncated: the header node itself is at fault.
  if (header && !index?.header) for (const e of problems.errors) markProblem(header, plain(e));
  if (parse.shards) markShards(root, parse.shards, problems.errors);
  return inspectResult(root, report);
}

/**
 * A `shards` node, when a shard has problems: every shard (so the good ones keep their place),
 * the bad ones marked on the member at fault, or on the shard when the member cannot be located.
 */
function markShards(root: InspectNode, shards: ShardSet, errors: readonly Finding[]): void {
  const scoped = errors.filter((e) => e.scope?.startsWith('shard '));
  if (scoped.length === 0) return;
  const shardNodes = new Map<string, InspectNode>();
  shards.names.forEach((name, fid) => {
    const size = shards.peek(fid)?.size ?? 0;
    shardNodes.set(shardScope(name), node(name, 'shard', 0, size, { file: name, value: `fid ${fid}` }));
  });
  for (const finding of scoped) {
    let shard = shardNodes.get(finding.scope!);
    if (!shard) {
      const name = finding.scope!.slice('shard '.length);
      shard = node(name, 'shard', 0, 0, { file: name, value: 'missing' });
      shardNodes.set(finding.scope!, shard);
    }
    const problem = plain(finding);
    const inShard = finding.file === shard.name && finding.offset !== undefined;
    if (!inShard) {
      markProblem(shard, problem);
      continue;
    }
    const at = Math.min(finding.offset!, shard.length);
    const member = node(`member at ${finding.offset}`, 'member', at, Math.min(TAR_BLOCK, shard.length - at), {
      file: shard.name,
    });
    markProblem(member, problem);
    (shard.children ??= []).push(member);
  }
  const group = node('shards', 'group', 0, 0, {
    value: `${shards.count} shards`,
    children: [...shardNodes.values()],
  });
  root.children?.push(group);
}

function plain({ phase: _phase, scope: _scope, ...problem }: Finding): Problem {
  return problem;
}
