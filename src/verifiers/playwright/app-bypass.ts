// What in a Playwright test can put something other than the app in front of its assertions, or change
// what an assertion means: a page written by the test, a faked network, a script run in the page, a
// navigation away from the app, a matcher redefined with `expect.extend`. A locked test that gains one no
// longer proves its criterion against the app.
import ts from 'typescript';
import { gotoLeavesTheApp } from './goto-target.js';
import { unwrap } from './test-weakening.js';

// Methods that write the page, fake what the app answers, or run the test's own code in the page.
const APP_BYPASS = new Set([
  'setContent',
  'route',
  'routeFromHAR',
  'routeWebSocket',
  'fulfill',
  'addInitScript',
  'addScriptTag',
  'addStyleTag',
  'evaluate',
  'evaluateAll',
  'evaluateHandle',
  'waitForFunction',
  '$eval',
  '$$eval',
  'exposeFunction',
  'exposeBinding',
  'dispatchEvent',
  'newCDPSession',
]);

/**
 * Whether `node` bypasses the app: a reference to one of the methods above (called or not: `page.route`,
 * `page['setContent']`, `const { evaluate } = page`), a method picked by a computed key and called, a
 * `goto` that may leave the app, or `expect` used as a value other than to assert (`expect.extend(…)`,
 * `const e = expect`).
 */
export function bypassesTheApp(node: ts.Node, callback: ts.FunctionLikeDeclaration): boolean {
  if (ts.isPropertyAccessExpression(node) && APP_BYPASS.has(node.name.text)) return true;
  if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression))
    return APP_BYPASS.has(node.argumentExpression.text) || (node.argumentExpression.text === 'goto' && isCallee(node));
  if (ts.isElementAccessExpression(node) && isCallee(node) && !ts.isNumericLiteral(node.argumentExpression)) return true;
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
    const key = node.propertyName ?? node.name;
    if (ts.isComputedPropertyName(key)) return true;
    if ((ts.isIdentifier(key) || ts.isStringLiteralLike(key)) && (APP_BYPASS.has(key.text) || key.text === 'goto')) return true;
  }
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'goto')
    return gotoLeavesTheApp(node, callback);
  if (ts.isIdentifier(node) && node.text === 'expect') return !isAssertingUse(node);
  return false;
}

/** `expect(…)`, `expect.soft(…)`, `expect.poll(…)`, `expect.configure(…)` or a type position: asserting, not redefining. */
function isAssertingUse(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && parent.expression === node) return true;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node)
    return [
      'soft',
      'poll',
      'configure',
      'any',
      'anything',
      'arrayContaining',
      'objectContaining',
      'stringContaining',
      'stringMatching',
      'closeTo',
      'not',
    ].includes(parent.name.text);
  // The import that brings it in, a type reference, a property key named `expect`: not the matcher.
  return (
    ts.isImportSpecifier(parent) ||
    ts.isTypeReferenceNode(parent) ||
    ts.isTypeQueryNode(parent) ||
    (ts.isPropertyAccessExpression(parent) && parent.name === node)
  );
}

function isCallee(node: ts.Expression): boolean {
  let child: ts.Node = node;
  while (ts.isParenthesizedExpression(child.parent) || ts.isNonNullExpression(child.parent)) child = child.parent;
  return ts.isCallExpression(child.parent) && unwrap(child.parent.expression) === unwrap(node);
}
