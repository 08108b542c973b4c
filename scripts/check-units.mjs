#!/usr/bin/env node
/**
 * Units stay small (CONTRIBUTING): no function over 150 lines, no file over 550, in the source
 * of every package and app (packages/*\/src, apps/*\/src). Functions are found with the
 * TypeScript compiler API, so arrow functions, methods, accessors and React components count
 * alike; a function's length runs from its first line to its last, nested functions included.
 *
 *   node scripts/check-units.mjs [--json] [--functions N] [--files N] [root]
 *
 * Lists every unit over its limit, longest first, and exits 1 when there is any.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    functions: { type: 'string', default: '150' },
    files: { type: 'string', default: '550' },
  },
});
const FUNCTION_LIMIT = Number(values.functions);
const FILE_LIMIT = Number(values.files);
const root = path.resolve(positionals[0] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));

const SOURCE = /\.(ts|tsx|mts|cts)$/;

/** Every TypeScript source file under packages/*\/src and apps/*\/src. */
function sourceFiles() {
  const out = [];
  for (const group of ['packages', 'apps']) {
    const base = path.join(root, group);
    if (!fs.existsSync(base)) continue;
    for (const entry of fs.readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const src = path.join(base, entry.name, 'src');
      if (fs.existsSync(src)) walk(src, out);
    }
  }
  return out.sort();
}

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
}

/** What a function is called: its own name, the variable or property it is assigned to, or its kind. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name && (ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)))
    return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression.getText();
    return `<callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee}>`;
  }
  return '<anonymous>';
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

function check(file) {
  const text = fs.readFileSync(file, 'utf8');
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const rel = path.relative(root, file);
  const found = [];
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (lines > FILE_LIMIT)
    found.push({ kind: 'file', file: rel, line: 1, name: rel, lines, limit: FILE_LIMIT });
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > FUNCTION_LIMIT)
        found.push({
          kind: 'function',
          file: rel,
          line: first + 1,
          name: nameOf(node),
          lines: length,
          limit: FUNCTION_LIMIT,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const over = sourceFiles()
  .flatMap(check)
  .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));

if (values.json) process.stdout.write(`${JSON.stringify(over, null, 2)}\n`);
else if (over.length === 0)
  process.stdout.write(`check-units: no function over ${FUNCTION_LIMIT} lines, no file over ${FILE_LIMIT}\n`);
else {
  process.stdout.write(
    `check-units: ${over.length} unit(s) over the limits (functions ${FUNCTION_LIMIT} lines, files ${FILE_LIMIT}):\n`,
  );
  for (const u of over)
    process.stdout.write(
      `  ${u.file}:${u.line}  ${u.kind} ${u.kind === 'function' ? u.name : ''}  ${u.lines} lines\n`,
    );
}
process.exitCode = over.length > 0 ? 1 : 0;
