import { removeTempsOnSignals } from '@binscope/core/node';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { convertCommand } from './commands/convert.js';
import { demoCommand } from './commands/demo.js';
import { detectCommand } from './commands/detect.js';
import { diffCommand } from './commands/diff.js';
import { getCommand } from './commands/get.js';
import { indexCommand } from './commands/index.js';
import { infoCommand } from './commands/info.js';
import { inspectCommand } from './commands/inspect.js';
import { recordsCommand } from './commands/records.js';
import { validateCommand } from './commands/validate.js';
import { type CommonOptions, type Context, createContext } from './context.js';
import { CliError, describeError, EXIT, type ExitCode, exitCodeFor } from './errors.js';
import type { CliStreams } from './io.js';
import { jsonError } from './json-errors.js';
import { FORMATS, formatLabel, spokenList } from './plugins.js';
import { printJson, RECORD_FORMATS, type RecordFormat } from './render.js';

function wholeNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
    }
    return n;
  };
}

function list(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...(previous ?? []), ...items];
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success (valid, equal, found)
  1  a file is invalid, the files differ, or a lookup found nothing
  2  usage or I/O error (bad option, missing file, write failed)`;

// Every format name in the help comes from FORMATS, so a new format cannot be left out.
const FORMAT_IDS = FORMATS.map((f) => f.id);
const FORMAT_NAMES = spokenList(FORMAT_IDS.map((id) => id.toUpperCase()));
const DIRECTORY_FORMATS = spokenList(
  FORMATS.filter((f) => f.kind === 'directory').map((f) => f.id.toUpperCase()),
);

const ROOT_HELP = `
Formats:
${FORMATS.map((f) => `  ${formatLabel(f).padEnd(22)} ${f.title}`).join('\n')}

Every verb detects the format by its magic bytes; --as FORMAT overrides detection.

Output: data goes to stdout, messages and progress to stderr. --json prints one JSON
document on stdout. Errors are one line on stderr; --debug adds the stack trace.
${EXIT_CODES_HELP}

Examples:
  $ binscope demo                      write a sample of every format and describe it
  $ binscope detect data/*             which format is each file
  $ binscope info train.mldf --json    counts and schema as JSON
  $ binscope head table.scbf -n 5      the first rows
  $ binscope validate shards/*.taridx  every error with class and byte offset`;

function withCommon(cmd: Command): Command {
  return cmd
    .option('--json', 'print one JSON document on stdout (for scripts)')
    .option('--debug', 'show stack traces for errors');
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n${EXIT_CODES_HELP}\n`;
}

const asOption = () =>
  new Option('--as <format>', `read as this format instead of detecting it (${FORMAT_IDS.join(', ')})`);

/**
 * Builds the `binscope` program. `setExit` receives each verb's exit code; errors inside a
 * verb become one stderr line (stack only with --debug).
 */
export function createProgram(ctx: Context, setExit: (code: ExitCode) => void): Command {
  const program = new Command('binscope')
    .description(`Detect, inspect, validate, read, convert and compare ${FORMAT_NAMES} files.`)
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for binscope or a verb (binscope help VERB)')
    .showSuggestionAfterError(true)
    .addHelpText('after', ROOT_HELP);

  const run =
    <A extends unknown[]>(work: (...args: A) => Promise<ExitCode>) =>
    async (...args: A): Promise<void> => {
      const command = args[args.length - 1] as Command;
      const options = command.opts<CommonOptions>();
      try {
        setExit(await work(...args));
      } catch (error) {
        if (options.debug) {
          const original = error instanceof CliError && error.cause ? error.cause : error;
          ctx.messages.lines(String((original as Error)?.stack ?? original));
        }
        ctx.messages.line(`binscope: ${describeError(error)}`);
        // --json: the error is a JSON document too, unless the verb already closed one holding it.
        if (options.json && !ctx.out.started)
          await printJson(ctx.out, jsonError(error, typeof args[0] === 'string' ? args[0] : null));
        setExit(exitCodeFor(error));
      }
    };

  withCommon(
    program
      .command('detect')
      .summary('name the format of each path')
      .description(
        'Name the format of each path from its magic bytes (a small head window; nothing is parsed). ' +
          `A directory is checked as an archive (${DIRECTORY_FORMATS}). A plain tar file is reported as a tar shard ("tar"). ` +
          'An unrecognised file is reported as unknown with its first bytes in hex. Exits 1 when any path is unknown.',
      )
      .argument('<path...>', 'files or archive directories')
      .option('-v, --verbose', 'list every candidate format and why it matched'),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope detect table.scbf train.taridx archive/',
        '$ binscope detect --json *.bin      # [{"path": "a.bin", "format": "mldf"}, ...]',
      ),
    )
    .action(
      run((paths: string[], options: CommonOptions & { verbose?: boolean }) =>
        detectCommand(ctx, paths, options),
      ),
    );

  withCommon(
    program
      .command('info')
      .summary('summarise a file: version, counts, schema, sizes')
      .description(
        'Summarise a file or archive: format and version, its counts (rows, columns, samples, fields, ' +
          'datasets, tables, arrays), schema / fields / tables / arrays and sizes. Reads headers and metadata only.',
      )
      .argument('<path>', 'a file or archive directory')
      .addOption(asOption()),
  )
    .addHelpText(
      'after',
      examples('$ binscope info table.scbf', '$ binscope info archive/ --json | jq .rows'),
    )
    .action(run((p: string, options) => infoCommand(ctx, p, options)));

  withCommon(
    program
      .command('inspect')
      .summary('show the structure tree with byte offsets and lengths')
      .description(
        'Show the structure of a file as a tree: every header field, table, block and row with its byte offset ' +
          'and length (and file, inside an archive). With --hex NODE, print the bytes of one node instead. ' +
          'NODE is a path of child names or positions below the root, e.g. "header/magic" or "columns/2". ' +
          'A broken file shows the tree as far as it parses, each problem marked on its node; exit 1 when it has errors.',
      )
      .argument('<path>', 'a file or archive directory')
      .option('-d, --depth <n>', 'show only this many levels below the root', wholeNumber('--depth'))
      .option(
        '--children <n>',
        'show at most this many children of each node',
        wholeNumber('--children'),
        100,
      )
      .option('--hex <node>', 'print the bytes of this node as a hex dump')
      .option(
        '--bytes <n>',
        'with --hex: print at most this many bytes (0 = all)',
        wholeNumber('--bytes'),
        4096,
      )
      .addOption(asOption()),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope inspect table.scbf --depth 2',
        '$ binscope inspect table.scbf --hex header',
        '$ binscope inspect train.taridx --hex rows/0 --json',
      ),
    )
    .action(run((p: string, options) => inspectCommand(ctx, p, options)));

  withCommon(
    program
      .command('validate')
      .summary('check files against their format rules')
      .description(
        'Check each path against every rule of its format and list every error and warning with its class ' +
          '(BadMagic, Truncated, OutOfBounds, ...), byte offset and file. Exits 0 when all are valid, 1 when any ' +
          'is invalid (including unrecognised files), 2 on I/O errors. --json prints an array of ' +
          '{path, format, valid, errors: [{code, message, offset, file}], warnings}.',
      )
      .argument('<path...>', 'files or archive directories')
      .option(
        '--deep',
        'also check payloads against their containers where reachable (tar shards beside a .taridx)',
      )
      .addOption(asOption()),
  )
    .addHelpText(
      'after',
      examples('$ binscope validate data/*.mldf', '$ binscope validate --deep --json train.taridx'),
    )
    .action(run((paths: string[], options) => validateCommand(ctx, paths, options)));

  const recordOptions = (cmd: Command): Command =>
    withCommon(
      cmd
        .addOption(
          new Option(
            '--format <format>',
            'output: table (terminal default), jsonl (pipe default), csv, json',
          ).choices(RECORD_FORMATS as string[]),
        )
        .option('--columns <names>', 'only these columns / fields, comma-separated (repeatable)', list)
        .option('--fields <names>', 'same as --columns', list)
        .addOption(asOption()),
    );
  const recordText =
    'Records are SCBF rows ({column: value}), MLDF samples ({"sample", field: value}, bytes as {"size", "sha256"}), ' +
    'SCDL rows ({"row", "indices", "values"}), TARIDX samples ({"key", "crashid", "members": [...]}) and UDF tables. ' +
    'A table on a terminal, JSON Lines when piped; 64-bit integers above 2^53 are decimal strings and ' +
    'non-finite floats "NaN"/"Infinity"/"-Infinity". Output streams: nothing is read beyond what is printed.';

  recordOptions(
    program
      .command('head')
      .summary('print the first records')
      .description(`Print the first records of a file. ${recordText}`)
      .argument('<path>', 'a file or archive directory')
      .option('-n, --lines <n>', 'how many records', wholeNumber('-n'), 10)
      .option('--offset <k>', 'skip the first K records', wholeNumber('--offset'), 0),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope head table.scbf -n 5',
        '$ binscope head train.mldf --fields label,text --format jsonl',
      ),
    )
    .action(
      run((p: string, options: RecordCliOptions) =>
        recordsCommand(ctx, p, {
          ...options,
          format: options.format as RecordFormat,
          limit: options.lines,
          columns: columnsOf(options),
        }),
      ),
    );

  recordOptions(
    program
      .command('cat')
      .summary('print records, all or a window')
      .description(`Print records, all of them or the window --offset K -n N. ${recordText}`)
      .argument('<path>', 'a file or archive directory')
      .option('--offset <k>', 'skip the first K records', wholeNumber('--offset'), 0)
      .option('-n, --lines <n>', 'print at most N records', wholeNumber('-n'))
      .option(
        '--where <predicate>',
        'SCBF: only rows matching e.g. "score >= 2.5 and name != \'x\'" (blocks its statistics exclude are skipped)',
      ),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope cat table.scbf --format csv > table.csv',
        '$ binscope cat archive/ --offset 1000 -n 10 | jq .indices',
        '$ binscope cat table.scbf --where "id >= 100 and city = \'Oslo\'"',
      ),
    )
    .action(
      run((p: string, options: RecordCliOptions) =>
        recordsCommand(ctx, p, {
          ...options,
          format: options.format as RecordFormat,
          limit: options.lines,
          columns: columnsOf(options),
        }),
      ),
    );

  withCommon(
    program
      .command('convert')
      .summary('convert CSV ↔ SCBF, tar shards → MLDF, and AnnData .h5ad → SCDL')
      .description(
        'Convert by extension: IN.csv → OUT.scbf (types inferred, or given with --types); IN.scbf → OUT.csv ' +
          '(the exact CSV dialect, so CSV → SCBF → CSV is byte-identical); IN.h5ad, or a folder of .h5ad files, ' +
          '→ an SCDL archive directory OUT. The output appears only when complete (written under a temp name, ' +
          'then renamed). Progress on stderr when it is a terminal.',
      )
      .argument('<in>', 'input: .csv, .scbf, .h5ad, or a folder of .h5ad files')
      .argument('<out>', 'output: .scbf, .csv, or an archive directory')
      .option(
        '--types <spec>',
        'CSV → SCBF: column types, e.g. "id:int32,price:float64,name:utf8" (others inferred)',
      )
      .option('--level <n>', 'CSV → SCBF: zlib compression level 0-9 (default 6)', wholeNumber('--level'))
      .option(
        '--max-columns <n>',
        'CSV → SCBF: refuse a CSV with more columns (default 100000; memory grows about 3 KB per column)',
        wholeNumber('--max-columns'),
      )
      .option(
        '--extensions',
        'CSV → SCBF: append the extension footer (block checksums, column statistics); upstream readers ignore it',
      )
      .option(
        '--nulls',
        'CSV → SCBF: empty cells in otherwise int32/float64 columns become nulls (null bitmap extension) instead of making the column utf8',
      )
      .addOption(
        new Option(
          '--dictionary <mode>',
          'CSV → SCBF: auto dictionary-encodes utf8 columns with few distinct values (extension footer); upstream readers then see int32 codes instead of the text',
        )
          .choices(['auto', 'off'])
          .default('off'),
      )
      .addOption(
        new Option(
          '--zlib <impl>',
          'CSV → SCBF: "python" deflates as Python\'s zlib.compress (byte-identical to the upstream writer, slower); "node" is the fast default',
        ).choices(['node', 'python']),
      )
      .addOption(
        new Option('--data-dtype <dtype>', '.h5ad → SCDL: dtype of the data array')
          .choices(['float32', 'float16', 'float64', 'uint8', 'uint16', 'uint32', 'uint64'])
          .default('float32'),
      )
      .option('--use-x', '.h5ad → SCDL: read X instead of raw.X')
      .option(
        '--lossy-cast',
        '.h5ad → SCDL: cast values the data dtype cannot hold (NaN, ±inf, fractions, out of range) one ' +
          "by one as numpy's scalar cast does on x86-64, instead of refusing them",
      )
      .option('--neighbors <key>', '.h5ad → SCDL: write neighbor files from obsp[KEY]')
      .option(
        '-f, --force',
        'replace an existing OUT (a folder only when it is an SCDL archive; never an input)',
      )
      .option('--fold <name>', 'shard folder → MLDF: the fold whose NAME_*.tar shards to convert')
      .option('--keep-encoded', '.taridx → MLDF: store .jpg/.png as BYTES instead of decoding to IMAGE_RAW')
      .option('--checksum', '→ MLDF: store CRC-32s of the data and metadata regions (FLAG_CHECKSUMMED)'),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope convert sales.csv sales.scbf --types id:int32',
        '$ binscope convert sales.csv sales.scbf --zlib python',
        '$ binscope convert sales.scbf roundtrip.csv',
        '$ binscope convert pbmc.h5ad pbmc_scdl --data-dtype float16 --neighbors connectivities',
        '$ binscope convert h5ads/ collection_scdl --use-x',
        '$ binscope convert data/train.taridx train.mldf --checksum',
        '$ binscope convert shards/ train.mldf --fold train --keep-encoded',
      ),
    )
    .action(run((input: string, output: string, options) => convertCommand(ctx, input, output, options)));

  withCommon(
    program
      .command('index')
      .summary('index a fold of tar shards into a .taridx')
      .description(
        'Index the tar shards DIR/NAME_*.tar (one fold, in sorted order) into a .taridx file for random access, ' +
          'reading only the 512-byte member headers. Writes DIR/NAME.taridx unless -o says otherwise; the file ' +
          'appears only when complete. Progress on stderr when it is a terminal.',
      )
      .argument('<dir>', 'the folder holding the shards')
      .requiredOption('--fold <name>', 'the fold name: shards are NAME_*.tar')
      .option('-o, --output <file>', 'where to write the index (default DIR/NAME.taridx)')
      .option('--shard-name <name>', 'with DIR -: the name of the shard streamed on stdin (NAME_0000.tar)')
      .option('-f, --force', 'replace an existing index (never one of the shards)'),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope index shards/ --fold train',
        '$ binscope index shards/ --fold val -o /tmp/val.taridx --json',
      ),
    )
    .action(run((dir: string, options) => indexCommand(ctx, dir, options)));

  withCommon(
    program
      .command('diff')
      .summary('compare two files of the same format by content')
      .description(
        'Compare two files (or archives) of the same format by content: header fields, schema / fields / ' +
          'tables / arrays, counts, then records in order, reporting the first differing records. Each ' +
          'difference names its location in both files (byte range, inspect node or record number). Encoding ' +
          'details are not content: SCBF files that differ only in compressed bytes are equal, and so are ' +
          'files that store the same values at other offsets; --layout compares where each value is ' +
          'stored too. Exits 0 when equal, 1 when they differ, 2 when either cannot be read.',
      )
      .argument('<a>', 'first file or archive')
      .argument('<b>', 'second file or archive')
      .option('--max-records <n>', 'stop after this many differing records', wholeNumber('--max-records'), 5)
      .option('--no-records', 'compare header, structure and counts only')
      .option('--layout', 'compare the layout too: offsets and sizes of the values compared')
      .addOption(asOption()),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope diff old.scbf new.scbf',
        '$ binscope diff a_scdl/ b_scdl/ --json | jq .differences',
        '$ binscope diff a.udf b.udf --layout',
      ),
    )
    .action(run((a: string, b: string, options) => diffCommand(ctx, a, b, options)));

  withCommon(
    program
      .command('get')
      .summary("fetch a sample's members, or one member's bytes, from tar shards")
      .description(
        'Look a sample up by key in a .taridx and list its members (extension, shard, offset, size), or with ' +
          "--ext write that member's payload bytes to stdout or to -o FILE. Shards are found beside the index " +
          '(FOLD_*.tar, FOLD being the index name without .taridx) unless --shards DIR says otherwise. Exits 1 ' +
          'when the key or extension is not there.',
      )
      .argument('<index>', 'a .taridx file')
      .argument('<key>', "the sample's key (the member names' stem)")
      .option('--ext <ext>', "write this member's payload (e.g. jpg, json, seg.png)")
      .option('-o, --output <file>', 'with --ext: write the payload here instead of stdout')
      .option('--shards <dir>', 'the folder holding the shards (default: beside the index)')
      .option('-f, --force', 'with -o: replace an existing FILE (never the index or a shard)'),
  )
    .addHelpText(
      'after',
      examples(
        '$ binscope get train.taridx sample_000042',
        '$ binscope get train.taridx sample_000042 --ext jpg -o cat.jpg',
        '$ binscope get train.taridx sample_000042 --ext json | jq .',
      ),
    )
    .action(run((index: string, key: string, options) => getCommand(ctx, index, key, options)));

  withCommon(
    program
      .command('demo')
      .summary('write a sample file of every format and describe each')
      .description(
        "Write a small sample of every format with binscope's own writers into DIR (default: a new temp " +
          'folder): an SCBF file from a CSV, a UDF file, an MLDF file, a fold of tar shards with its .taridx, ' +
          'and an SCDL archive. Then detect each one and print its summary (info).',
      )
      .argument('[dir]', 'where to write the samples (created if missing)')
      .option('-f, --force', 'write into a folder that already holds files, replacing samples there'),
  )
    .addHelpText('after', examples('$ binscope demo', '$ binscope demo ./samples --json'))
    .action(run((dir: string | undefined, options) => demoCommand(ctx, dir, options)));

  return program;
}

interface RecordCliOptions extends CommonOptions {
  where?: string;
  as?: string;
  lines?: number;
  offset: number;
  format?: string;
  columns?: string[];
  fields?: string[];
}

function columnsOf(options: RecordCliOptions): string[] | undefined {
  const all = [...(options.columns ?? []), ...(options.fields ?? [])];
  return all.length > 0 ? all : undefined;
}

/** Runs the CLI on `args` (without "node binscope"); resolves to the exit code. */
export async function run(
  args: readonly string[],
  streams: CliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const ctx = createContext(streams);
  let exitCode: ExitCode = EXIT.ok;
  const program = createProgram(ctx, (code) => {
    exitCode = code;
  });
  program.exitOverride();
  program.configureOutput({
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
    outputError: (text, write) => write(`binscope: ${text.replace(/^error: /, '')}`),
  });
  for (const sub of program.commands) {
    sub.exitOverride();
    sub.configureOutput(program.configureOutput());
  }
  if (args.length === 0) {
    streams.stderr.write(program.helpInformation());
    return EXIT.usage;
  }
  try {
    await program.parseAsync(args as string[], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other parse error is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    ctx.messages.line(`binscope: ${describeError(error)}`);
    return exitCodeFor(error);
  }
  await ctx.out.flush();
  const failure = ctx.out.failure();
  if (failure) {
    ctx.messages.line(`binscope: ${failure.message}`);
    return EXIT.usage;
  }
  return exitCode;
}

/** The `binscope` executable's entry point. */
export function main(args: readonly string[]): Promise<number> {
  // Ctrl-C or a kill mid-write: the temp files, spill folders and locks under way go too.
  removeTempsOnSignals();
  return run(args);
}
