// What turns a Playwright test into one that cannot prove anything, however it is spelled: `test.skip()`,
// an alias of it (`const { skip } = test`, `const i = test.info(); i.fail()`, `test['skip']()`), a test
// told to expect failure (`testInfo.expectedStatus = 'failed'`), or an annotation Playwright honours
// (`test('t', { annotation: { type: 'skip' } }, …)`, which skips it before its body runs).
import ts from 'typescript';
import { printNode } from './assertion-path.js';

/** The modifiers that stop a test from proving its criteria. */
export const WEAKENING = new Set(['skip', 'fixme', 'fail']);

// Calls that write a property of their first argument: `Object.assign(testInfo, { expectedStatus: 'failed' })`.
export const PROPERTY_WRITERS = new Set([
  'Object.assign',
  'Object.defineProperty',
  'Object.defineProperties',
  'Object.setPrototypeOf',
  'Reflect.set',
  'Reflect.defineProperty',
  'Reflect.setPrototypeOf',
]);

/**
 * The names that stand for `test` or the test's TestInfo inside `body`: `test`, the second fixture
 * parameter (`testInfo`), and every local bound to one of them or to `test.info()`, followed to a fixpoint.
 */
export function testInfoNames(body: ts.Node, infoParameter: string | null): Set<string> {
  const names = new Set(['test', ...(infoParameter ? [infoParameter] : [])]);
  for (let grew = true; grew;) {
    grew = false;
    const add = (name: string) => {
      if (names.has(name)) return;
      names.add(name);
      grew = true;
    };
    const walk = (n: ts.Node) => {
      if (ts.isVariableDeclaration(n) && n.initializer) {
        const from = unwrap(n.initializer);
        if (ts.isIdentifier(n.name) && isTestOrInfo(from, names)) add(n.name.text);
        // `const f = test.info` and `const { info: f } = test`: `f()` is the test's info. Such a name is
        // kept as `f()`, so that only a call of it counts.
        if (
          ts.isIdentifier(n.name) &&
          ts.isPropertyAccessExpression(from) &&
          from.name.text === 'info' &&
          isTestOrInfo(from.expression, names)
        )
          add(`${n.name.text}()`);
        if (ts.isObjectBindingPattern(n.name) && isTestOrInfo(from, names)) {
          for (const element of n.name.elements) {
            const key = element.propertyName ?? element.name;
            if (ts.isIdentifier(key) && key.text === 'info' && ts.isIdentifier(element.name)) add(`${element.name.text}()`);
          }
        }
      }
      ts.forEachChild(n, walk);
    };
    walk(body);
  }
  return names;
}

/** `test`, `testInfo`, `test.info()`, an alias of one (also parenthesised or cast). */
export function isTestOrInfo(expression: ts.Expression, names: ReadonlySet<string>): boolean {
  const e = unwrap(expression);
  if (ts.isIdentifier(e)) return names.has(e.text);
  if (ts.isCallExpression(e) && e.arguments.length === 0) {
    const callee = unwrap(e.expression);
    if (ts.isIdentifier(callee)) return names.has(`${callee.text}()`);
    return ts.isPropertyAccessExpression(callee) && callee.name.text === 'info' && isTestOrInfo(callee.expression, names);
  }
  return false;
}

/**
 * Why `node` weakens the test it is in, or null: a reference to `skip`/`fail`/`fixme` on `test` or its
 * info (called or not: a reference is only taken to be called), such a method picked by a computed key,
 * one destructured from them, or a write of `expectedStatus`.
 */
export function weakeningAt(node: ts.Node, names: ReadonlySet<string>): string | null {
  if (ts.isPropertyAccessExpression(node) && WEAKENING.has(node.name.text) && isTestOrInfo(node.expression, names))
    return `${printNode(node)}()`;
  if (ts.isElementAccessExpression(node) && isTestOrInfo(node.expression, names)) {
    const key = node.argumentExpression;
    if (ts.isStringLiteralLike(key) && WEAKENING.has(key.text)) return `${printNode(node)}()`;
    if (!ts.isStringLiteralLike(key) && !ts.isNumericLiteral(key)) return `${printNode(node)}() (a method picked at run time)`;
  }
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
    const declaration = node.parent.parent;
    const key = node.propertyName ?? node.name;
    const keyText = ts.isIdentifier(key) || ts.isStringLiteralLike(key) ? key.text : null;
    const from = ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
    const copiesAll = node.dotDotDotToken !== undefined; // `const { ...t } = test`: every method, skip included
    if (from && isTestOrInfo(from, names) && (copiesAll || keyText === null || WEAKENING.has(keyText) || keyText === 'expectedStatus'))
      return `const { ${copiesAll ? '...' : ''}${printNode(key)} } = ${printNode(from)}`;
  }
  // `{ ...test }`, `Object.assign({}, testInfo)` below: a copy whose `skip` no name above follows.
  if (ts.isSpreadAssignment(node) && isTestOrInfo(node.expression, names)) return `{ ...${printNode(node.expression)} }`;
  if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && writesExpectedStatus(node.left, names))
    return printNode(node);
  if (ts.isCallExpression(node) && PROPERTY_WRITERS.has(printNode(node.expression))) {
    if (node.arguments.some((a) => isTestOrInfo(a, names))) return printNode(node);
  }
  return null;
}

/**
 * A weakening in a `test(…)` or `test.describe(…)` call's details: an annotation of type `skip`, `fixme`
 * or `fail` (Playwright applies it before the body runs), or one whose type is computed.
 */
export function detailsWeakening(call: ts.CallExpression): string | null {
  const details = call.arguments.find((a, i) => i > 0 && ts.isObjectLiteralExpression(unwrap(a)));
  if (!details) return null;
  const annotation = propertyOf(unwrap(details) as ts.ObjectLiteralExpression, 'annotation');
  if (!annotation) return null;
  const value = unwrap(annotation);
  const entries = ts.isArrayLiteralExpression(value) ? value.elements : [value];
  for (const entry of entries) {
    const e = unwrap(entry);
    if (!ts.isObjectLiteralExpression(e)) return `an annotation computed at run time (${printNode(entry)})`;
    const type = propertyOf(e, 'type');
    if (!type || !ts.isStringLiteralLike(unwrap(type))) return `an annotation of a computed type (${printNode(entry)})`;
    const text = (unwrap(type) as ts.StringLiteralLike).text;
    if (WEAKENING.has(text)) return `annotation { type: '${text}' }`;
  }
  return null;
}

function propertyOf(object: ts.ObjectLiteralExpression, name: string): ts.Expression | null {
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) && p.name.text === name)
      return p.initializer;
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
  }
  return null;
}

/** `x.expectedStatus`, `x['expectedStatus']`, or any computed key of the test's info, as an assignment target. */
function writesExpectedStatus(target: ts.Expression, names: ReadonlySet<string>): boolean {
  const e = unwrap(target);
  if (ts.isPropertyAccessExpression(e)) return e.name.text === 'expectedStatus';
  if (ts.isElementAccessExpression(e)) {
    const key = e.argumentExpression;
    return ts.isStringLiteralLike(key) ? key.text === 'expectedStatus' : isTestOrInfo(e.expression, names);
  }
  return false;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** The expression inside parentheses, `as`, `!` and `satisfies`. */
export function unwrap(expression: ts.Expression): ts.Expression {
  let e = expression;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isTypeAssertionExpression(e)
  )
    e = e.expression;
  return e;
}
