// What a JavaScript or TypeScript file loads, read with the TypeScript parser (never with patterns): every
// static import and export-from, `import x = require()`, `import()`, `require()`, `require.resolve()`,
// `import.meta.resolve()`, a require made by `createRequire()`, and `new URL('./x', import.meta.url)`. A
// specifier written as a literal (a template literal without substitutions counts) is followed; one built
// at run time (a variable, a template with substitutions) cannot be, and is named with its line so that
// `check` can refuse it. Loaded only where a file needs it: a Kane run never parses JavaScript.
import ts from 'typescript';

/** A module a file names by a literal specifier, with the 1-based line it is on. */
export interface ModuleReference {
  specifier: string;
  line: number;
}

/** A load whose target is only known at run time. */
export interface DynamicReference {
  line: number;
  /** The expression as written (clipped), to show the user. */
  text: string;
}

export interface ModuleReferences {
  references: ModuleReference[];
  dynamic: DynamicReference[];
}

/** Every module `source` (a file named `fileName`, for its dialect) loads, and every load it names at run time. */
export function moduleReferences(source: string, fileName: string): ModuleReferences {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const references: ModuleReference[] = [];
  const dynamic: DynamicReference[] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const requires = requireNames(file);
  const take = (node: ts.Node, argument: ts.Expression | undefined) => {
    if (argument && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)))
      references.push({ specifier: argument.text, line: lineOf(argument) });
    else dynamic.push({ line: lineOf(node), text: clip(node.getText(file)) });
  };
  const walk = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) take(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      take(node, node.moduleReference.expression);
    else if (ts.isCallExpression(node) && isLoadCall(node, requires)) take(node, node.arguments[0]);
    else if (ts.isNewExpression(node) && isFileURL(node)) take(node, node.arguments?.[0]);
    else if (ts.isIdentifier(node) && requires.has(node.text) && isLoaderAsValue(node))
      dynamic.push({ line: lineOf(node), text: clip(node.parent.getText(file)) });
    ts.forEachChild(node, walk);
  };
  walk(file);
  return { references, dynamic };
}

/**
 * `require` and every name bound to a require made by `createRequire(…)` (`const load = createRequire(import.meta.url)`):
 * a call of one of them loads a module.
 */
function requireNames(file: ts.SourceFile): Set<string> {
  const names = new Set(['require']);
  const walk = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isCreateRequire(node.initializer))
      names.add(node.name.text);
    ts.forEachChild(node, walk);
  };
  walk(file);
  return names;
}

function isCreateRequire(node: ts.Expression): boolean {
  if (!ts.isCallExpression(node)) return false;
  const callee = node.expression;
  return (
    (ts.isIdentifier(callee) && callee.text === 'createRequire') ||
    (ts.isPropertyAccessExpression(callee) && callee.name.text === 'createRequire')
  );
}

/** `import(…)`, `require(…)`, `require.resolve(…)`, `module.require(…)`, `import.meta.resolve(…)`, `createRequire(…)(…)`. */
function isLoadCall(node: ts.CallExpression, requires: ReadonlySet<string>): boolean {
  const callee = node.expression;
  if (callee.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isIdentifier(callee)) return requires.has(callee.text);
  if (isCreateRequire(callee)) return true;
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const owner = callee.expression;
  const name = callee.name.text;
  if (ts.isIdentifier(owner) && requires.has(owner.text)) return name === 'resolve';
  if (ts.isIdentifier(owner) && owner.text === 'module') return name === 'require';
  return isImportMeta(owner) && name === 'resolve';
}

/** `new URL('./data.json', import.meta.url)`: a file of the repository named next to the module. */
function isFileURL(node: ts.NewExpression): boolean {
  const base = node.arguments?.[1];
  return (
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'URL' &&
    base !== undefined &&
    ts.isPropertyAccessExpression(base) &&
    isImportMeta(base.expression) &&
    base.name.text === 'url'
  );
}

function isImportMeta(node: ts.Expression): boolean {
  return ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword && node.name.text === 'meta';
}

/**
 * A require taken as a value (`const load = require`, `[require][0](…)`, `fn(require)`): whatever it is
 * called with later is out of sight. Its own calls, `require.resolve`/`.cache`/`.main`, `typeof require`
 * and a declaration's own name are not.
 */
function isLoaderAsValue(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && parent.expression === node) return false;
  // `require.call(null, './x')` loads; `require.resolve` is followed above, `.cache` and `.main` load nothing.
  if (ts.isPropertyAccessExpression(parent)) return parent.expression === node && ['call', 'apply', 'bind'].includes(parent.name.text);
  if (ts.isTypeOfExpression(parent)) return false;
  if (
    (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isBindingElement(parent) || ts.isFunctionDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isPropertyAssignment(parent) && parent.name === node) return false;
  if (ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isExportSpecifier(parent)) return false;
  if (
    ts.isBinaryExpression(parent) &&
    [
      ts.SyntaxKind.EqualsEqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsToken,
    ].includes(parent.operatorToken.kind)
  )
    return false;
  return !ts.isTypeReferenceNode(parent) && !ts.isTypeQueryNode(parent) && !ts.isQualifiedName(parent);
}

function scriptKind(fileName: string): ts.ScriptKind {
  if (/\.[cm]?jsx?$/.test(fileName)) return fileName.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
  if (/\.json$/.test(fileName)) return ts.ScriptKind.JSON;
  return fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
