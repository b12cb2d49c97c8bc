#!/usr/bin/env node
// Lists the exports of src/ that nothing but tests uses: no module of src/, scripts/, bench/ or bin/
// imports the name, its own file never uses it, and the library API (src/index.ts) does not re-export
// it. Such an export is dead code kept alive by its tests (or a fixture): remove it, tests included.
//
//   node scripts/unused-exports.js [--json] [--root DIR]
//
// Exits 1 when it lists any. Reads source with the TypeScript parser (no type check): an import of
// `dist/x.js` counts for `src/x.ts`; `import * as ns` and a dynamic import the script cannot follow to
// named bindings count as using every export of that module.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import ts from 'typescript';

const ALL = '*';

/**
 * Exports kept for tests on purpose, each with why: a seam a test needs to observe what no caller can
 * (keep this list short; an export only a test calls is otherwise dead).
 */
const TEST_SEAMS = {
  'src/process/wait-ready.ts': { waitOnLoaded: 'a fast app must never load wait-on: only this process knows what it loaded' },
};

/** The src/ module (relative path, `.ts`) a specifier written in `fromRel` points at, or null. */
function resolveModule(fromRel, specifier, srcFiles) {
  if (!specifier.startsWith('.')) return null;
  let rel = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  if (rel.startsWith('dist/')) rel = `src/${rel.slice('dist/'.length)}`;
  const ts_ = rel.replace(/\.js$/, '.ts');
  return srcFiles.has(ts_) ? ts_ : null;
}

/** A src/ module a dynamic import's string names, matched by its tail (`core/verify/verify-all.js`). */
function resolveByTail(text, srcFiles) {
  const tail = text
    .replace(/^\.*\/?/, '')
    .replace(/^(dist|src)\//, '')
    .replace(/\.js$/, '.ts');
  if (!tail.includes('/') && !tail.endsWith('.ts')) return null;
  for (const file of srcFiles) if (file.endsWith(`/${tail}`) || file === `src/${tail}`) return file;
  return null;
}

// `export default` is left out: such a module is loaded by path (Playwright's reporter), not imported.
function isExported(node) {
  const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
  return modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && !modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

/** The names a src/ file exports by declaration (`export function f`, `export const a, b`, `export { x }`). */
function declaredExports(file) {
  const names = new Map(); // name → line
  const line = (node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const decl of statement.declarationList.declarations) if (ts.isIdentifier(decl.name)) names.set(decl.name.text, line(decl));
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      isExported(statement) &&
      statement.name
    ) {
      names.set(statement.name.text, line(statement));
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.moduleSpecifier &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const el of statement.exportClause.elements) names.set(el.name.text, line(el));
    }
  }
  return names;
}

/** How many times each identifier appears in `file` (a declaration is one; `export { x }` is none). */
function identifierCounts(file) {
  const counts = new Map();
  const visit = (node) => {
    if (ts.isIdentifier(node) && !ts.isExportSpecifier(node.parent)) counts.set(node.text, (counts.get(node.text) ?? 0) + 1);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return counts;
}

/** Records every name `file` (at `rel`) takes from a src/ module: into `used` as module → Set of names or ALL. */
function collectImports(file, rel, srcFiles, used) {
  const use = (module, name) => {
    if (!module) return;
    if (!used.has(module)) used.set(module, new Set());
    used.get(module).add(name);
  };
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const module = resolveModule(rel, node.moduleSpecifier.text, srcFiles);
      if (ts.isImportDeclaration(node)) {
        const bindings = node.importClause?.namedBindings;
        if (node.importClause?.name) use(module, 'default');
        if (bindings && ts.isNamespaceImport(bindings)) use(module, ALL);
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) use(module, (el.propertyName ?? el.name).text);
      } else if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) {
        use(module, ALL);
      } else {
        for (const el of node.exportClause.elements) use(module, (el.propertyName ?? el.name).text);
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      dynamicImport(node, rel, srcFiles, use);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

function dynamicImport(call, rel, srcFiles, use) {
  const strings = [];
  const find = (node) => {
    if (ts.isStringLiteralLike(node)) strings.push(node.text);
    ts.forEachChild(node, find);
  };
  call.arguments.forEach(find);
  const modules = strings
    .map((text) => (text.startsWith('.') ? resolveModule(rel, text, srcFiles) : null) ?? resolveByTail(text, srcFiles))
    .filter(Boolean);
  // `const { a, b } = await import(...)`: those names; anything else: the whole module.
  let parent = call.parent;
  if (parent && ts.isAwaitExpression(parent)) parent = parent.parent;
  const pattern = parent && ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name) ? parent.name : null;
  for (const module of modules) {
    if (!pattern) use(module, ALL);
    else for (const el of pattern.elements) use(module, (el.propertyName ?? el.name).getText());
  }
}

/** Names the library API exports from each module, following `export *` chains from src/index.ts. */
function publicApi(parsed, srcFiles, used) {
  const seen = new Set();
  const walk = (rel) => {
    if (seen.has(rel) || !parsed.has(rel)) return;
    seen.add(rel);
    const file = parsed.get(rel);
    if (!used.has(rel)) used.set(rel, new Set());
    for (const name of declaredExports(file).keys()) used.get(rel).add(name);
    for (const statement of file.statements) {
      if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.exportClause) {
        walk(resolveModule(rel, statement.moduleSpecifier.text, srcFiles));
      }
    }
  };
  walk('src/index.ts');
}

/** Every export of src/ nothing outside the tests uses, as `{ file, line, name }`, sorted. */
export function unusedExports(root) {
  const srcList = fg.sync('src/**/*.ts', { cwd: root, ignore: ['**/*.d.ts'] });
  const srcFiles = new Set(srcList);
  const users = fg.sync(['src/**/*.ts', 'scripts/**/*.{js,mjs,ts}', 'bench/**/*.{js,mjs,ts}', 'bin/**/*.{js,mjs}'], {
    cwd: root,
    ignore: ['**/*.d.ts', '**/node_modules/**'],
  });
  const parsed = new Map();
  const used = new Map();
  for (const rel of users) {
    const file = ts.createSourceFile(rel, readFileSync(path.join(root, rel), 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(rel, file);
    collectImports(file, rel, srcFiles, used);
  }
  publicApi(parsed, srcFiles, used);
  const unused = [];
  for (const rel of srcList.sort()) {
    const names = used.get(rel) ?? new Set();
    if (names.has(ALL) || rel === 'src/index.ts') continue;
    const file = parsed.get(rel);
    const counts = identifierCounts(file);
    for (const [name, line] of declaredExports(file)) {
      if (names.has(name) || (counts.get(name) ?? 0) > 1 || TEST_SEAMS[rel]?.[name]) continue;
      unused.push({ file: rel, line, name });
    }
  }
  return unused;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? path.resolve(args[at + 1]) : path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const unused = unusedExports(root);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(unused, null, 2)}\n`);
  else for (const u of unused) process.stdout.write(`${u.file}:${u.line} ${u.name} is exported and used by nothing but tests\n`);
  process.exitCode = unused.length > 0 ? 1 : 0;
}
