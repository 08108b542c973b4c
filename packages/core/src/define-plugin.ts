import type { ReadOptions } from './bytes.js';
import {
  FormatError,
  isFormatError,
  isSourceError,
  type ParseMode,
  ProblemList,
  type ValidationReport,
} from './errors.js';
import {
  type InspectNode,
  type InspectResult,
  inspectResult,
  locateInLazy,
  parserMarks,
  unparsedResult,
} from './inspect.js';
import type {
  ContentField,
  FormatInfo,
  FormatPlugin,
  FormatReader,
  OpenOptions,
  PluginCapabilities,
  RecordOptions,
  Summary,
  Target,
  ValidateOptions,
} from './plugin.js';
import type { ByteLocation, DataRecord } from './schema.js';

/** The target of a format of kind K, once the kind is checked. */
export type TargetOf<K extends Target['kind']> = Extract<Target, { kind: K }>;

/**
 * What a format package hands to definePlugin: its metadata, its one parser, the reader and
 * the tree built from what the parser found, and the reader-side verbs. Core derives `open`,
 * `validate` and `inspectTarget` from them, so every format checks the target kind, creates
 * its ProblemList and marks problems on nodes the same way.
 */
export interface PluginDefinition<Parsed, R extends FormatReader, K extends Target['kind'] = Target['kind']>
  extends FormatInfo {
  readonly kind: K;
  /**
   * The target the parser gets: by default the target itself when its kind is the format's,
   * else none (and every verb reports "<FORMAT> is a single file, not a directory" or the
   * reverse). Override to accept more: SCDL takes its header.sch given as a file, via `siblings`.
   */
  input?(target: Target): TargetOf<K> | undefined;
  /**
   * The format's one parser, in the mode `problems.mode` says: `read` stops at the first error
   * (throw it, or record it and let `checkpoint()` throw); `validate` and `inspect` record every
   * problem and return what they got as far as the file allowed (inspect draws it). A
   * FormatError that escapes is recorded once; the tree then shows the file as one node.
   */
  parse(input: TargetOf<K>, problems: ProblemList, options: ValidateOptions): Promise<Parsed>;
  /** Read mode, after a parse with no error: the reader users get from `open`. */
  reader(parsed: Parsed, input: TargetOf<K>, options: OpenOptions): R | Promise<R>;
  /** Inspect mode: the tree of whatever was parsed (partial trees allowed), marking what it knows. */
  tree(parsed: Parsed, problems: ProblemList): InspectNode | Promise<InspectNode>;
  /** Validate and inspect modes: the checks a lazy reader leaves out (payloads, checksums, shards). */
  deepChecks?(
    parsed: Parsed,
    input: TargetOf<K>,
    problems: ProblemList,
    options: ValidateOptions,
  ): Promise<void>;
  inspect(reader: R, options?: ReadOptions): Promise<InspectNode>;
  info(reader: R, options?: ReadOptions): Promise<Summary>;
  records(reader: R, options?: RecordOptions): AsyncIterable<DataRecord>;
  contentFields(reader: R, options?: ReadOptions): Promise<ContentField[]>;
  locateRecord(reader: R, index: number, options?: ReadOptions & { table?: string }): Promise<ByteLocation[]>;
  readonly layoutFields?: readonly string[];
  readonly capabilities?: PluginCapabilities<R>;
}

/** A target's name and size, for messages and the one-node tree of an unparsable target. */
function describeTarget(target: Target): { name: string; size: number; file: string | undefined } {
  return target.kind === 'file'
    ? { name: target.source.name, size: target.source.size, file: target.source.name }
    : { name: target.directory.name, size: 0, file: undefined };
}

/** The one error for a target of the wrong kind, whatever the format and the verb. */
function wrongKind(info: FormatInfo, target: Target): FormatError {
  const format = info.id.toUpperCase();
  const message =
    info.kind === 'file'
      ? `${format} is a single file, not a directory`
      : `${format} is a folder, not a single file`;
  return new FormatError('BadMagic', message, { file: describeTarget(target).name, format: info.id });
}

export function definePlugin<Parsed, R extends FormatReader, K extends Target['kind']>(
  definition: PluginDefinition<Parsed, R, K>,
): FormatPlugin<R> {
  const { input: inputHook, parse, reader, tree, deepChecks, ...rest } = definition;
  const inputOf = (target: Target): TargetOf<K> | undefined =>
    inputHook ? inputHook(target) : target.kind === definition.kind ? (target as TargetOf<K>) : undefined;

  const problemsFor = (input: TargetOf<K>, mode: ParseMode) =>
    new ProblemList(definition.id, { mode, file: describeTarget(input).file });

  /** Validate and inspect modes: the parse and the deep checks, every FormatError recorded. */
  async function check(input: TargetOf<K>, problems: ProblemList, options: ValidateOptions) {
    let parsed: Parsed | undefined;
    try {
      parsed = await parse(input, problems, options);
      if (deepChecks) await deepChecks(parsed, input, problems, options);
    } catch (error) {
      problems.capture(error);
    }
    return parsed;
  }

  return {
    ...rest,
    async open(target, options = {}) {
      const input = inputOf(target);
      if (!input) throw wrongKind(definition, target);
      const problems = problemsFor(input, 'read');
      let parsed: Parsed;
      try {
        parsed = await parse(input, problems, options);
      } catch (error) {
        // A defect that stopped the parse may rank after one found before it (A2).
        if (isFormatError(error)) problems.throwFirst();
        throw error;
      }
      problems.checkpoint();
      return reader(parsed, input, options);
    },

    async validate(target, options = {}) {
      const input = inputOf(target);
      if (!input) return { valid: false, errors: [wrongKind(definition, target).toProblem()], warnings: [] };
      const problems = problemsFor(input, 'validate');
      try {
        await check(input, problems, options);
      } catch (error) {
        return sourceFailure(definition.id, error, options);
      }
      return problems.report();
    },

    async inspectTarget(target, options = {}): Promise<InspectResult> {
      const { name, size } = describeTarget(target);
      const input = inputOf(target);
      if (!input) {
        const error = wrongKind(definition, target).toProblem();
        return unparsedResult(name, size, { valid: false, errors: [error], warnings: [] });
      }
      const problems = problemsFor(input, 'inspect');
      const parsed = await check(input, problems, options);
      const root = parsed === undefined ? undefined : await tree(parsed, problems);
      const report = problems.report();
      if (!root) return unparsedResult(name, size, report);
      const marked = parserMarks(root);
      return locateInLazy(inspectResult(root, report), options.signal, marked);
    },
  } as FormatPlugin<R>;
}

/**
 * validate() reports, it does not throw: an I/O failure part-way (a dropped HTTP connection, a
 * server that stalls or changes the file) becomes an error of code `SourceError` in the report.
 * Only the caller's own abort is thrown, since nobody is waiting for a report then.
 */
function sourceFailure(format: string, error: unknown, options: ValidateOptions): ValidationReport {
  if (!isSourceError(error) || options.signal?.aborted) throw error;
  return {
    valid: false,
    errors: [{ code: 'SourceError', message: error.message, file: error.path, format }],
    warnings: [],
  };
}
