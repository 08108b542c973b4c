// Proves "install only what you need": packs @binscope/core and one format package, installs
// the two tarballs with plain npm into a fresh project outside the workspace, and reads a file
// through the installed package. No other @binscope package may come along.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pnpmVersion = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1];
const format = process.argv[2] ?? 'mldf';
const vectors = path.resolve(root, process.env.BINSCOPE_VECTORS ?? '../shared/vectors');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'binscope-install-'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

try {
  const tarballs = [];
  for (const name of ['core', format]) {
    const out = run(
      'npx',
      ['-y', `pnpm@${pnpmVersion}`, 'pack', '--pack-destination', work],
      path.join(root, 'packages', name),
    );
    tarballs.push(out.trim().split('\n').pop().trim());
  }
  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'install-test', private: true, type: 'module' }),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], project);

  const installed = fs.readdirSync(path.join(project, 'node_modules', '@binscope')).sort();
  const wanted = ['core', format].sort();
  if (JSON.stringify(installed) !== JSON.stringify(wanted)) {
    throw new Error(`expected only @binscope/{${wanted}} to be installed, found ${installed}`);
  }

  const caseDir = fs.existsSync(path.join(vectors, format))
    ? fs
        .readdirSync(path.join(vectors, format))
        .find((d) => d !== 'invalid' && fs.existsSync(path.join(vectors, format, d, 'expected.json')))
    : undefined;
  if (!caseDir) throw new Error(`no ${format} vector under ${vectors} to read (set BINSCOPE_VECTORS)`);
  const dir = path.join(vectors, format, caseDir);
  const file = fs.readdirSync(dir).find((f) => f.endsWith(`.${format}`)) ?? '';
  const target = path.join(dir, file);
  fs.writeFileSync(
    path.join(project, 'read.mjs'),
    `import { ${format}Plugin } from '@binscope/${format}';
import { openPath } from '@binscope/core/node';
const plugin = ${format}Plugin;
const reader = await plugin.open(openPath(process.argv[2]));
const info = await plugin.info(reader);
let records = 0;
for await (const _ of plugin.records(reader)) records++;
const report = await plugin.validate(openPath(process.argv[2]));
console.log(JSON.stringify({ format: info.format, counts: info.counts, records, valid: report.valid }));
`,
  );
  const result = JSON.parse(run('node', ['read.mjs', target], project));
  if (result.format !== format || !result.valid)
    throw new Error(`unexpected result ${JSON.stringify(result)}`);
  console.log(
    `install test: @binscope/core + @binscope/${format} installed alone with npm and read ${path.relative(vectors, target)}: ${JSON.stringify(result)}`,
  );
  console.log('1 passed, 0 failed');
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
