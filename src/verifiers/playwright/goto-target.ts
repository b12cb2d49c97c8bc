// Whether a `page.goto(…)` stays on the app. Playwright resolves the URL against `use.baseURL` (the app's
// URL, which Elenchos sets) with the WHATWG URL parser, so a relative path stays on the app and anything
// else may not: an absolute or protocol-relative URL (`//elsewhere`, `/\elsewhere`), `data:`/`file:`, or
// a value built at run time (a variable, a concatenation, a template with substitutions) that could be any
// of these. What stays: a literal that resolves to the app's origin, the app's URL (`baseURL`,
// `process.env.ELENCHOS_BASE_URL`) alone or followed by a path, a literal path followed by anything
// (`/tasks/${id}`), `new URL('/x', baseURL)`, and a `const` holding one of these.
import ts from 'typescript';
import { printNode } from './assertion-path.js';
import { unwrap } from './test-weakening.js';

const APP = 'http://elenchos-app.invalid';
const MAX_DEPTH = 8;

/** True when `call` (a `goto`) may open something other than the app. */
export function gotoLeavesTheApp(call: ts.CallExpression, callback: ts.FunctionLikeDeclaration): boolean {
  const target = call.arguments[0];
  if (!target) return false;
  return !staysOnApp(target, callback, 0);
}

function staysOnApp(expression: ts.Expression, callback: ts.FunctionLikeDeclaration, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  const e = unwrap(expression);
  if (ts.isStringLiteralLike(e)) return resolvesToApp(e.text);
  if (isAppURL(e, callback, depth)) return true;
  if (ts.isIdentifier(e)) {
    const value = constValue(e.text, callback);
    return value !== null && staysOnApp(value, callback, depth + 1);
  }
  if (ts.isTemplateExpression(e)) {
    if (e.head.text !== '') return isPathPrefix(e.head.text);
    const [first, ...rest] = e.templateSpans;
    if (!first || !isAppURL(first.expression, callback, depth)) return false;
    return first.literal.text === '' ? rest.length === 0 : afterAppURL(first.literal.text);
  }
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [head, next] = concatenated(e);
    if (ts.isStringLiteralLike(head)) return next === undefined ? resolvesToApp(head.text) : isPathPrefix(head.text);
    return isAppURL(head, callback, depth) && next !== undefined && ts.isStringLiteralLike(next) && afterAppURL(next.text);
  }
  // `new URL('/tasks', baseURL)`, `.href` or `.toString()` of it: a literal resolved against the app.
  const url = ts.isPropertyAccessExpression(e) && e.name.text === 'href' ? unwrap(e.expression) : stringOf(e);
  if (ts.isNewExpression(url) && ts.isIdentifier(url.expression) && url.expression.text === 'URL') {
    const [what, base] = (url.arguments ?? []).map(unwrap);
    return (
      what !== undefined &&
      base !== undefined &&
      ts.isStringLiteralLike(what) &&
      resolvesToApp(what.text) &&
      isAppURL(base, callback, depth)
    );
  }
  return false;
}

/** The app's URL: the `baseURL` fixture or `process.env.ELENCHOS_BASE_URL`, never reassigned in the test (or a const of it). */
function isAppURL(expression: ts.Expression, callback: ts.FunctionLikeDeclaration, depth: number): boolean {
  const e = unwrap(expression);
  if (printNode(e) === 'process.env.ELENCHOS_BASE_URL') return !writesEnv(callback);
  if (!ts.isIdentifier(e)) return false;
  if (e.text === 'baseURL' && isBaseURLFixture(callback)) return true;
  const value = constValue(e.text, callback);
  return value !== null && depth < MAX_DEPTH && isAppURL(value, callback, depth + 1);
}

/** What may follow the app's URL: a path, a query or a fragment (never `@host` or `:port`). */
function afterAppURL(text: string): boolean {
  return /^[/?#]/.test(text);
}

/** A literal relative URL that lands on the app, as Playwright's URL parser reads it. */
function resolvesToApp(text: string): boolean {
  try {
    return new URL(text, `${APP}/base/`).origin === APP;
  } catch {
    return false;
  }
}

/** A literal start that fixes the origin whatever follows: a path (`/x`, `./`, `x/`), a query or a fragment. */
function isPathPrefix(text: string): boolean {
  // The URL parser drops leading spaces and control characters and every tab and newline; `\` is `/`.
  // eslint-disable-next-line no-control-regex
  const bare = text.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
  return /^(\/[^/\\]|\.{1,2}[/\\]|[?#]|[^:/\\?#]+[/\\?#])/.test(bare) && resolvesToApp(bare);
}

/** The leftmost two operands of `a + b + c`, unwrapped. */
function concatenated(e: ts.BinaryExpression): [ts.Expression, ts.Expression | undefined] {
  const parts: ts.Expression[] = [];
  const flatten = (x: ts.Expression) => {
    const u = unwrap(x);
    if (ts.isBinaryExpression(u) && u.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      flatten(u.left);
      flatten(u.right);
    } else parts.push(u);
  };
  flatten(e);
  return [parts[0]!, parts[1]];
}

/** `x.toString()` → `x`. */
function stringOf(e: ts.Expression): ts.Expression {
  const callee = ts.isCallExpression(e) && e.arguments.length === 0 ? e.expression : null;
  return callee && ts.isPropertyAccessExpression(callee) && callee.name.text === 'toString' ? unwrap(callee.expression) : e;
}

/**
 * The initializer of `const name = …` when that is the only binding of `name` the test can see: the
 * test's own (none other in the test) or the file's top level (none in the test at all). A name bound
 * twice (a parameter, a loop variable, a `let`) may hold anything.
 */
function constValue(name: string, callback: ts.FunctionLikeDeclaration): ts.Expression | null {
  const inTest = bindingsOf(name, callback);
  if (inTest.length > 0) return inTest.length === 1 ? constInitializer(inTest[0]!) : null;
  const topLevel = callback
    .getSourceFile()
    .statements.flatMap((s) =>
      ts.isVariableStatement(s) ? s.declarationList.declarations.filter((d) => ts.isIdentifier(d.name) && d.name.text === name) : [],
    );
  return topLevel.length === 1 ? constInitializer(topLevel[0]!.name as ts.Identifier) : null;
}

function constInitializer(name: ts.Identifier): ts.Expression | null {
  const declaration = name.parent;
  if (!ts.isVariableDeclaration(declaration) || declaration.name !== name || !declaration.initializer) return null;
  return (declaration.parent.flags & ts.NodeFlags.Const) !== 0 ? declaration.initializer : null;
}

/** The identifiers that bind `name` in `callback` (its parameters included). */
function bindingsOf(name: string, callback: ts.FunctionLikeDeclaration): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const walk = (n: ts.Node) => {
    if (ts.isIdentifier(n) && n.text === name && isDeclarationName(n)) found.push(n);
    ts.forEachChild(n, walk);
  };
  for (const p of callback.parameters) walk(p);
  if (callback.body) walk(callback.body);
  return found;
}

function isDeclarationName(n: ts.Identifier): boolean {
  const p = n.parent;
  return (
    ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p)) && p.name === n) ||
    (ts.isBindingElement(p) && p.name === n)
  );
}

/** `baseURL` is the fixture: destructured from the test's first parameter, bound nowhere else, never assigned. */
function isBaseURLFixture(callback: ts.FunctionLikeDeclaration): boolean {
  const first = callback.parameters[0];
  if (!first || !ts.isObjectBindingPattern(first.name)) return false;
  const fixture = first.name.elements.find((e) => ts.isIdentifier(e.name) && e.name.text === 'baseURL');
  if (!fixture || (fixture.propertyName && printNode(fixture.propertyName) !== 'baseURL') || fixture.initializer) return false;
  return bindingsOf('baseURL', callback).length === 1 && !assigns(callback, 'baseURL');
}

/** Whether the test writes `process.env` (an assignment into it, or hands it to a call that may). */
function writesEnv(callback: ts.FunctionLikeDeclaration): boolean {
  let found = false;
  const walk = (n: ts.Node) => {
    if (ts.isBinaryExpression(n) && isAssignment(n.operatorToken.kind) && printNode(unwrap(n.left)).startsWith('process.env')) found = true;
    if (ts.isCallExpression(n) && n.arguments.some((a) => printNode(unwrap(a)) === 'process.env')) found = true;
    if (ts.isDeleteExpression(n) && printNode(n.expression).startsWith('process.env')) found = true;
    ts.forEachChild(n, walk);
  };
  if (callback.body) walk(callback.body);
  return found;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** Whether the test assigns `name` anywhere (also through a destructuring assignment). */
function assigns(callback: ts.FunctionLikeDeclaration, name: string): boolean {
  let found = false;
  const mentions = (n: ts.Node): boolean => (ts.isIdentifier(n) && n.text === name) || (ts.forEachChild(n, mentions) ?? false);
  const walk = (n: ts.Node) => {
    if (ts.isBinaryExpression(n) && isAssignment(n.operatorToken.kind)) {
      const left = unwrap(n.left);
      if (
        ts.isIdentifier(left)
          ? left.text === name
          : (ts.isArrayLiteralExpression(left) || ts.isObjectLiteralExpression(left)) && mentions(left)
      )
        found = true;
    }
    ts.forEachChild(n, walk);
  };
  if (callback.body) walk(callback.body);
  return found;
}
