// The release dry run, and proof of "install only what you need". Packs every published
// package as `changeset publish` would (pnpm pack rewrites workspace: ranges), checks what
// each tarball ships, then installs tarballs with plain npm into fresh projects outside the
// workspace: @binscope/core + one format package alone (no other @binscope package may come
// along) reading a vector, for every format; the tar shards → MLDF converter with only the
// packages it joins, converting a vector; @binscope/parquet with core alone, writing and reading
// a Parquet file; and the CLI with all of them, run on a vector (and exporting one to Parquet).
//   node scripts/install-test.mjs [format ...]   (default: every format)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pnpmVersion = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1];
const FORMATS = ['mldf', 'scbf', 'udf', 'taridx', 'scdl'];
const formats = process.argv.length > 2 ? process.argv.slice(2) : FORMATS;
const vectors = path.resolve(root, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-install-'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

/** Every file a published tarball must carry, besides its build. */
const REQUIRED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'];

function publishedPackages() {
  return ['packages', 'apps']
    .flatMap((group) => fs.readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)))
    .filter((dir) => fs.existsSync(path.join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private);
}

/** Packs one package; checks the tarball's files and manifest. Returns the tarball's path. */
function packAndCheck({ dir, manifest }) {
  const out = run('npx', ['-y', `pnpm@${pnpmVersion}`, 'pack', '--pack-destination', work], dir);
  const tarball = out.trim().split('\n').pop().trim();
  const files = run('tar', ['-tzf', tarball], work)
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  const missing = REQUIRED.filter((f) => !files.includes(f));
  if (missing.length) throw new Error(`${manifest.name}: the tarball lacks ${missing.join(', ')}`);
  const stray = files.filter((f) => /^(src|test|e2e)\//.test(f) || f.endsWith('.test.js'));
  if (stray.length)
    throw new Error(`${manifest.name}: the tarball ships sources or tests: ${stray.join(', ')}`);
  const license = run('tar', ['-xzOf', tarball, 'package/LICENSE'], work);
  if (license !== fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'))
    throw new Error(`${manifest.name}: its LICENSE differs from the repository's`);
  const packed = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], work));
  const text = JSON.stringify(packed);
  if (text.includes('workspace:'))
    throw new Error(`${manifest.name}: the packed manifest keeps a workspace: range`);
  if (/example\.(invalid|com)|TODO|placeholder/i.test(text))
    throw new Error(`${manifest.name}: the packed manifest has a placeholder: ${text}`);
  if (packed.license !== 'MIT') throw new Error(`${manifest.name}: license is ${packed.license}, not MIT`);
  console.log(
    `packed ${manifest.name}@${manifest.version}: ${files.length} files, ${REQUIRED.join(', ')} included`,
  );
  return tarball;
}

function freshProject(name) {
  const project = path.join(work, name);
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module' }),
  );
  return project;
}

function npmInstall(project, tarballs) {
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], project);
}

/** The first valid vector of a format: the file (or SCDL archive folder) a reader opens. */
function vectorOf(format) {
  const dir = path.join(vectors, format);
  const caseDir = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .sort()
        .find((d) => d !== 'invalid' && fs.existsSync(path.join(dir, d, 'expected.json')))
    : undefined;
  if (!caseDir) throw new Error(`no ${format} vector under ${vectors} to read (set BINSCOPE_VECTORS)`);
  const expected = JSON.parse(fs.readFileSync(path.join(dir, caseDir, 'expected.json'), 'utf8'));
  if (typeof expected.archive_dir === 'string') return path.join(dir, caseDir, expected.archive_dir);
  const file = fs.readdirSync(path.join(dir, caseDir)).find((f) => f.endsWith(`.${format}`));
  if (!file) throw new Error(`no .${format} file in ${path.join(dir, caseDir)}`);
  return path.join(dir, caseDir, file);
}

/** @binscope/core + one format package, alone, read a vector through the installed package. */
function formatAlone(format, tarballOf) {
  const project = freshProject(`install-${format}`);
  npmInstall(project, [tarballOf('@binscope/core'), tarballOf(`@binscope/${format}`)]);
  const installed = fs.readdirSync(path.join(project, 'node_modules', '@binscope')).sort();
  const wanted = ['core', format].sort();
  if (JSON.stringify(installed) !== JSON.stringify(wanted)) {
    throw new Error(`expected only @binscope/{${wanted}} to be installed, found ${installed}`);
  }
  const target = vectorOf(format);
  fs.writeFileSync(
    path.join(project, 'read.mjs'),
    `import { ${format}Plugin } from '@binscope/${format}';
import { openPath } from '@binscope/core/node';
const plugin = ${format}Plugin;
const reader = await plugin.open(openPath(process.argv[2]));
const info = await plugin.info(reader);
let records = 0;
for await (const _ of plugin.records(reader)) records++;
await reader.close?.();
const report = await plugin.validate(openPath(process.argv[2]));
console.log(JSON.stringify({ format: info.format, counts: info.counts, records, valid: report.valid }));
`,
  );
  const result = JSON.parse(run('node', ['read.mjs', target], project));
  if (result.format !== format || !result.valid || result.records < 1)
    throw new Error(`unexpected result ${JSON.stringify(result)}`);
  console.log(
    `install test: @binscope/core + @binscope/${format} installed alone with npm and read ${path.relative(vectors, target)}: ${JSON.stringify(result)}`,
  );
}

/**
 * The tar shards → MLDF converter with only the packages it joins: its browser entry loads in
 * Node, and its /node entry converts the TARIDX vector (images kept encoded: the vectors' .jpg
 * members are not real JPEGs) into an MLDF file that @binscope/mldf then validates. Its JPEG
 * decoder (libjpeg-turbo in WebAssembly, inlined) decodes a 16×12 4:2:0 JPEG from the installed
 * tarball to the pixels Pillow 12.3 gives (their sha256), with nothing fetched.
 */
const PILLOW_JPEG =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAMABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCL4h+MtZ0+aQzSCYg/8soyn82NJ8PPGes6hNGYZBCSf+WsZf8Akwr0Xxt4c02a6fzIc8+tJ4K8OabDcp5cOOfWg29vLsvuX+R//9k=';
const PILLOW_SHA256 = '29f5a34fc32c4db463a2f22def9cbecee2c4ef55771db6f4b86a76c9d3c1bb84';
function converterAlone(tarballOf) {
  const project = freshProject('install-taridx-mldf');
  const wanted = ['core', 'mldf', 'taridx', 'taridx-mldf'];
  npmInstall(
    project,
    wanted.map((name) => tarballOf(`@binscope/${name}`)),
  );
  const installed = fs.readdirSync(path.join(project, 'node_modules', '@binscope')).sort();
  if (JSON.stringify(installed) !== JSON.stringify(wanted))
    throw new Error(`expected only @binscope/{${wanted}} to be installed, found ${installed}`);
  fs.writeFileSync(
    path.join(project, 'convert.mjs'),
    `import { convertTaridxToMldf } from '@binscope/taridx-mldf';
import { convertTaridxToMldfFile } from '@binscope/taridx-mldf/node';
import { openTaridxFile } from '@binscope/taridx/node';
import { validateMldf } from '@binscope/mldf';
import { openFile } from '@binscope/core/node';
import { decodeImage } from '@binscope/taridx-mldf';
import { createHash } from 'node:crypto';
if (typeof convertTaridxToMldf !== 'function') throw new Error('no browser entry');
const jpeg = await decodeImage(Buffer.from('${PILLOW_JPEG}', 'base64'), { file: 'x.tar', offset: 0, key: 'k', ext: 'jpg' });
const pixels = createHash('sha256').update(jpeg.pixels).digest('hex');
if (pixels !== '${PILLOW_SHA256}') throw new Error('JPEG pixels differ from Pillow: ' + pixels);
const reader = await openTaridxFile(process.argv[2]);
const result = await convertTaridxToMldfFile(reader, 'out.mldf', { keepEncoded: true, checksum: true });
await reader.close();
const report = await validateMldf(openFile('out.mldf'));
console.log(JSON.stringify({ samples: result.samples, fields: result.fields.length, valid: report.valid, jpeg: [jpeg.width, jpeg.height, jpeg.channels] }));
`,
  );
  const target = vectorOf('taridx');
  const result = JSON.parse(run('node', ['convert.mjs', target], project));
  if (!result.valid || result.samples < 1) throw new Error(`unexpected result ${JSON.stringify(result)}`);
  console.log(
    `install test: @binscope/taridx-mldf installed with core, taridx and mldf alone converted ${path.relative(vectors, target)}: ${JSON.stringify(result)}`,
  );
}

/**
 * @binscope/parquet with core alone: its export writes records to a Parquet file (through a
 * RecordsInput of its own, since no format package is installed), and its plugin reads the
 * file back, lazily, and validates it.
 */
function parquetAlone(tarballOf) {
  const project = freshProject('install-parquet');
  const wanted = ['core', 'parquet'];
  npmInstall(
    project,
    wanted.map((name) => tarballOf(`@binscope/${name}`)),
  );
  const installed = fs.readdirSync(path.join(project, 'node_modules', '@binscope')).sort();
  if (JSON.stringify(installed) !== JSON.stringify(wanted))
    throw new Error(`expected only @binscope/{${wanted}} to be installed, found ${installed}`);
  fs.writeFileSync(
    path.join(project, 'roundtrip.mjs'),
    `import { fileTarget, memoryScratch } from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { MemorySource } from '@binscope/core';
import { parquetExport, parquetPlugin } from '@binscope/parquet';
const schema = { fields: [{ name: 'id', type: { kind: 'int', bits: 64, signed: false } }, { name: 'name', type: { kind: 'string' }, nullable: true }] };
const input = {
  kind: 'records', name: 'generated', format: 'test', schema,
  tables: async function* () {},
  records: async function* () { for (let i = 0; i < 1000; i++) yield { index: i, values: { id: 2n ** 63n + BigInt(i), name: i % 3 ? 'n' + i : null } }; },
  summary: async () => ({ format: 'test', title: 'test', counts: {}, properties: [] }),
};
const sink = new MemorySink();
await parquetExport.convertRecords(input, { kind: 'file', sink }, { scratch: memoryScratch(), values: { rowGroupSize: 300 } });
const target = () => fileTarget(new MemorySource(sink.bytes(), 'x.parquet'));
const reader = await parquetPlugin.open(target());
let last;
for await (const r of parquetPlugin.records(reader, { offset: 999 })) last = r.values;
const report = await parquetPlugin.validate(target());
console.log(JSON.stringify({ counts: (await parquetPlugin.info(reader)).counts, last: String(last.id), valid: report.valid }));
`,
  );
  const result = JSON.parse(run('node', ['roundtrip.mjs'], project));
  if (!result.valid || result.counts.rows !== 1000 || result.last !== String(2n ** 63n + 999n))
    throw new Error(`unexpected result ${JSON.stringify(result)}`);
  console.log(
    `install test: @binscope/parquet installed with core alone wrote and read Parquet: ${JSON.stringify(result)}`,
  );
}

/** The CLI from its tarball (with the other tarballs for its @binscope dependencies). */
function cliInstalled(tarballs) {
  const project = freshProject('install-cli');
  npmInstall(project, tarballs);
  const bin = path.join(project, 'node_modules', '.bin', 'binscope');
  const targets = formats.map(vectorOf);
  const report = JSON.parse(run(bin, ['validate', '--json', ...targets], project));
  const entries = Array.isArray(report) ? report : [report];
  if (entries.length !== targets.length || !entries.every((e) => e.valid))
    throw new Error(`binscope validate on the installed CLI: ${JSON.stringify(report)}`);
  if (fs.existsSync(path.join(project, 'node_modules', 'tar-stream')))
    throw new Error('the CLI install pulled tar-stream');
  // Any format's records export to Parquet, which the installed CLI reads back.
  run(bin, ['convert', targets[0], 'export.parquet'], project);
  const exported = JSON.parse(run(bin, ['validate', '--json', 'export.parquet'], project));
  // `validate --json` prints one report per file, as a list.
  const [exportReport] = Array.isArray(exported) ? exported : [exported];
  if (!exportReport?.valid)
    throw new Error(`the exported Parquet does not validate: ${JSON.stringify(exported)}`);
  // A third-party format: a module beside the project (importing the installed core), loaded
  // with --plugin, is detected and read like a built-in one.
  const plugin = path.join(project, 'toy-format');
  fs.cpSync(path.join(root, 'apps/cli/test/fixtures/toy-format'), plugin, { recursive: true });
  fs.writeFileSync(
    path.join(project, 'make-toy.mjs'),
    "import * as fs from 'node:fs';\nimport { toyBytes } from './toy-format/index.mjs';\nfs.writeFileSync('x.toy', toyBytes([{ id: 1, name: 'a', score: 2 }]));\n",
  );
  run('node', ['make-toy.mjs'], project);
  const records = run(bin, ['head', 'x.toy', '--plugin', './toy-format/index.mjs'], project);
  if (JSON.parse(records.trim().split('\n')[0]).name !== 'a')
    throw new Error(`binscope head --plugin on the installed CLI printed ${records}`);
  console.log(
    `install test: @binscope/cli installed with npm validated ${targets.length} vectors and read a --plugin format`,
  );
}

let passed = 0;
try {
  const packages = publishedPackages();
  const tarballs = new Map(packages.map((p) => [p.manifest.name, packAndCheck(p)]));
  passed++;
  const tarballOf = (name) => {
    const tarball = tarballs.get(name);
    if (!tarball) throw new Error(`${name} is not a published package here`);
    return tarball;
  };
  for (const format of formats) {
    formatAlone(format, tarballOf);
    passed++;
  }
  converterAlone(tarballOf);
  passed++;
  parquetAlone(tarballOf);
  passed++;
  cliInstalled([...tarballs.values()]);
  passed++;
  console.log(`${passed} passed, 0 failed`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  console.log(`${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
