#!/usr/bin/env node
// Lists the functions of src/ by length in lines, longest first: declarations, methods, accessors,
// constructors, function expressions and arrow functions (a function inside another counts on its own
// and inside its parent too: the parent's lines are what a reader reads). The style guide allows 100.
//
//   node scripts/function-lengths.js [--top N] [--over N] [--json] [files or folders…]
//
// --over N lists only the functions longer than N lines and exits 1 when there is one.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import ts from 'typescript';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** A name people can find the function by: its own, its variable's, its property's, or `<anonymous>`. */
function nameOf(node, file) {
  if (node.name) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(file);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(file).slice(0, 40)}>`;
  return '<anonymous>';
}

/** Every function of one source text, with its first line and its length in lines. */
export function functionLengths(text, fileName = 'x.ts') {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({ name: nameOf(node, file), line: start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every function of the TypeScript files under `targets` (default: src/), longest first. */
export function listFunctions(targets = ['src']) {
  const files = targets.flatMap((target) => {
    const absolute = path.resolve(root, target);
    if (statSync(absolute).isFile()) return [path.relative(root, absolute)];
    return fg.sync(`${path.relative(root, absolute) || '.'}/**/*.ts`, { cwd: root });
  });
  return files
    .flatMap((file) => functionLengths(readFileSync(path.join(root, file), 'utf8'), file).map((f) => ({ file, ...f })))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
  const top = option('--top');
  const over = option('--over');
  const targets = args.filter((a, i) => !a.startsWith('--') && !['--top', '--over'].includes(args[i - 1] ?? ''));
  let rows = listFunctions(targets.length > 0 ? targets : ['src']);
  if (over !== undefined) rows = rows.filter((r) => r.lines > over);
  if (top !== undefined) rows = rows.slice(0, top);
  if (args.includes('--json')) console.log(JSON.stringify(rows, null, 2));
  else for (const r of rows) console.log(`${String(r.lines).padStart(5)}  ${r.file}:${r.line}  ${r.name}`);
  if (over !== undefined && rows.length > 0) process.exitCode = 1;
}
