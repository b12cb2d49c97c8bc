// Fingerprints of a Playwright spec's tests for the test-weakening lock, read with the TypeScript parser:
// each assertion with the path that leads to it, what it reads, and what the test shares with the file.
import ts from 'typescript';
import { fingerprintText, normaliseText, type StepPrint, type TestPrint } from '../../contract/step-print.js';
import { bypassesTheApp } from './app-bypass.js';
import { assertionPath, printNode } from './assertion-path.js';
import { PROPERTY_WRITERS, WEAKENING, detailsWeakening, testInfoNames, unwrap, weakeningAt } from './test-weakening.js';

const MODIFIERS = new Set(['only', 'skip', 'fixme', 'fail', 'slow']);
// Methods that change the array, set or map they are called on: `expected.pop()` changes what
// `expect(items).toHaveText(expected)` compares with as surely as `expected = […]`. (`fill` and `clear` are
// left out: on a locator they act on the page, which the lock does not follow.)
const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'copyWithin', 'add', 'set', 'delete']);
// Plain functions that never change their argument: calling them is reading.
const PURE_FUNCTIONS = new Set([
  'String',
  'Number',
  'Boolean',
  'BigInt',
  'parseInt',
  'parseFloat',
  'encodeURIComponent',
  'decodeURIComponent',
  'encodeURI',
  'decodeURI',
  'isNaN',
  'isFinite',
  'RegExp',
  'expect',
]);

/**
 * One print per `test('title', …)` call with a literal title, in file order. Its assertions are its
 * `expect(…)` statements, each prefixed with the path that reaches it (an `if`, a `try` that swallows it,
 * a closure never called…); its reads are the statements of the test those assertions and paths depend on,
 * with the statements of the `describe` blocks around it; `test.fail()`, `test.skip()`, `test.fixme()` however
 * reached (`testInfo.skip()`, `const { skip } = test`, `test['fail']()`), a written `expectedStatus`, a
 * `skip`/`fail` annotation or a skipped `describe` make it weakened.
 */
export function printSpecTests(source: string, fileName = 'spec.ts'): TestPrint {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const tests: StepPrint[] = [];
  const seen = new Map<string, number>();
  const visitBlock = (statements: readonly ts.Statement[], scope: string[] | null, describeWeakened: string | null) => {
    // The file's own statements are the lock's `context`, held once; a describe block's are each test's.
    const shared = scope === null ? [] : statements.filter((s) => !isTestOrDescribe(s)).map((s) => `scope: ${text(s)}`);
    for (const statement of statements) {
      const call = testCall(statement);
      if (!call) continue;
      if (call.kind === 'describe') {
        const header = `scope: ${text(call.node.expression)}(${call.title === null ? '' : JSON.stringify(call.title)})`;
        const body = callbackBody(call.node);
        const weakened = describeWeakened ?? (call.modifier ? `test.describe.${call.modifier}()` : detailsWeakening(call.node));
        if (body) visitBlock(body.statements, [...(scope ?? []), ...shared, header], weakened);
        continue;
      }
      if (call.title === null) continue;
      const count = (seen.get(call.title) ?? 0) + 1;
      seen.set(call.title, count);
      const weakened = describeWeakened ?? (call.modifier ? `test.${call.modifier}()` : detailsWeakening(call.node));
      tests.push(printTest(call.node, call.title, count, [...(scope ?? []), ...shared], call.modifier, weakened));
    }
  };
  visitBlock(file.statements, null, null);
  const context = file.statements.filter((s) => !isTestOrDescribe(s)).map(text);
  return { context, steps: tests };
}

function printTest(
  node: ts.CallExpression,
  title: string,
  count: number,
  scope: string[],
  modifier: string | null,
  weakenedBy: string | null,
): StepPrint {
  const callback = node.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a)) as
    ts.FunctionLikeDeclaration | undefined;
  const assertions: string[] = [];
  const reads = new Set<string>(scope);
  const bypass: string[] = [];
  const navigation: string[] = [];
  let marker: string | null = null;
  if (callback?.body) {
    const infoName = callback.parameters[1] && ts.isIdentifier(callback.parameters[1].name) ? callback.parameters[1].name.text : null;
    if (callback.parameters.length > 0) reads.add(`fixtures: (${callback.parameters.map(text).join(', ')})`);
    const names = testInfoNames(callback.body, infoName);
    const walk = (n: ts.Node) => {
      marker ??= weakeningAt(n, names);
      if (bypassesTheApp(n, callback)) bypass.push(text(statementOf(n, callback)));
      if (navigates(n)) {
        const statement = statementOf(n, callback);
        navigation.push(text(statement), ...readsOf([statement], callback));
      }
      if (ts.isCallExpression(n)) {
        if (isExpect(n) && !isExpect(n.parent)) {
          const statement = statementOf(n, callback);
          const path = assertionPath(statement, callback);
          assertions.push([...path.map((p) => p.label), text(statement)].join(' › '));
          for (const read of readsOf([statement, ...path.flatMap((p) => p.nodes)], callback)) reads.add(read);
        }
      }
      ts.forEachChild(n, walk);
    };
    walk(callback.body);
  }
  const weakening = weakenedBy ?? marker;
  return {
    title: count === 1 ? title : `${title} #${count}`,
    fingerprint: fingerprintText(`${modifier ?? ''}${node.arguments.slice(1).map(text).join(',')}`),
    assertions,
    weakened: weakening,
    reads: [...reads],
    bypass: [...new Set(bypass)],
    navigation: [...new Set(navigation)],
  };
}

// Calls that decide which page the test's assertions look at: a URL opened, the history walked, a new page
// or context (which starts blank, or at a baseURL of its own).
const NAVIGATION = new Set(['goto', 'goBack', 'goForward', 'newPage', 'newContext', 'waitForNavigation']);

/** `page.goto(…)`, `page.goBack()`, `context.newPage()`…: a call that changes where the test looks. */
function navigates(node: ts.Node): boolean {
  if (!ts.isCallExpression(node)) return false;
  const callee = unwrap(node.expression);
  return ts.isPropertyAccessExpression(callee) && NAVIGATION.has(callee.name.text);
}

/** `test(…)`, `test.skip(…)`, `test.describe(…)`, `test.describe.skip(…)`… as a statement. */
function testCall(
  statement: ts.Statement,
): { kind: 'test' | 'describe'; node: ts.CallExpression; title: string | null; modifier: string | null } | null {
  if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) return null;
  const node = statement.expression;
  const chain = calleeChain(node.expression);
  if (!chain || chain[0] !== 'test') return null;
  const first = node.arguments[0];
  const title = first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : null;
  const rest = chain.slice(1);
  if (rest[0] === 'describe') {
    const modifier = rest.slice(1).find((m) => WEAKENING.has(m)) ?? null;
    return rest.slice(1).every((m) => MODIFIERS.has(m) || m === 'serial' || m === 'parallel')
      ? { kind: 'describe', node, title, modifier }
      : null;
  }
  if (!rest.every((m) => MODIFIERS.has(m))) return null;
  // `test.skip(condition)` without a title at the top level skips the file: it is shared code, locked as such.
  if (title === null) return null;
  return { kind: 'test', node, title, modifier: rest.find((m) => WEAKENING.has(m)) ?? null };
}

function isTestOrDescribe(statement: ts.Statement): boolean {
  return testCall(statement) !== null;
}

/** `a.b.c` → ['a', 'b', 'c']; null for anything that is not a plain property chain. */
function calleeChain(expression: ts.Expression): string[] | null {
  if (ts.isIdentifier(expression)) return [expression.text];
  if (ts.isPropertyAccessExpression(expression)) {
    const head = calleeChain(expression.expression);
    return head ? [...head, expression.name.text] : null;
  }
  return null;
}

function callbackBody(node: ts.CallExpression): ts.Block | null {
  const callback = node.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a)) as
    ts.FunctionLikeDeclaration | undefined;
  return callback?.body && ts.isBlock(callback.body) ? callback.body : null;
}

/** `expect(…)`, `expect.soft(…)`, `expect.poll(…)`, and calls chained on them. */
function isExpect(node: ts.Node): boolean {
  if (!ts.isCallExpression(node) && !ts.isPropertyAccessExpression(node)) return false;
  let head: ts.Expression = node;
  while (ts.isCallExpression(head) || ts.isPropertyAccessExpression(head) || ts.isAwaitExpression(head))
    head = ts.isAwaitExpression(head) ? head.expression : head.expression;
  return ts.isIdentifier(head) && head.text === 'expect';
}

/** The statement (of the test's function or a closure in it) that holds `node`. */
function statementOf(node: ts.Node, callback: ts.FunctionLikeDeclaration): ts.Node {
  let current: ts.Node = node;
  while (current.parent && current.parent !== callback && !ts.isBlock(current.parent) && !ts.isSourceFile(current.parent))
    current = current.parent;
  return current;
}

/**
 * The test's statements that declare or assign a name `nodes` read, followed transitively: the value an
 * assertion compares with is as locked as the assertion itself (`const expected = 'Buy milk'`).
 */
function readsOf(nodes: readonly ts.Node[], callback: ts.FunctionLikeDeclaration): string[] {
  const fixtures = new Set(callback.parameters.flatMap((p) => boundNames(p.name)));
  const writers = new Map<string, ts.Node[]>();
  const note = (name: string, statement: ts.Node) => writers.set(name, [...(writers.get(name) ?? []), statement]);
  const collect = (n: ts.Node) => {
    if (ts.isVariableDeclaration(n)) for (const name of boundNames(n.name)) note(name, statementOf(n, callback));
    if (ts.isFunctionDeclaration(n) && n.name) note(n.name.text, n);
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    )
      for (const name of assignedNames(n.left)) note(name, statementOf(n, callback));
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && ts.isIdentifier(n.operand))
      note(n.operand.text, statementOf(n, callback));
    if (ts.isDeleteExpression(n)) for (const name of assignedNames(n.expression)) note(name, statementOf(n, callback));
    if (ts.isCallExpression(n)) for (const name of mutatedNames(n, fixtures)) note(name, statementOf(n, callback));
    ts.forEachChild(n, collect);
  };
  if (callback.body) collect(callback.body);
  const found = new Set<ts.Node>();
  const queue = [...nodes];
  const visited = new Set<string>();
  while (queue.length > 0) {
    for (const name of namesRead(queue.shift()!)) {
      if (visited.has(name)) continue;
      visited.add(name);
      for (const statement of writers.get(name) ?? []) {
        if (found.has(statement)) continue;
        found.add(statement);
        queue.push(statement);
      }
    }
  }
  return [...found].sort((a, b) => a.pos - b.pos).map((s) => `reads: ${text(s)}`);
}

/**
 * Names a call may change: the receiver of a mutating method (`expected.splice(0)`), the target of
 * `Object.assign(expected, …)` and its kin, and a name handed to a plain function (`drop(expected)`,
 * a helper that may change it); never a fixture (`login(page)` does not change which page it is).
 */
function mutatedNames(call: ts.CallExpression, fixtures: ReadonlySet<string>): string[] {
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee) && MUTATORS.has(callee.name.text)) return assignedNames(callee.expression);
  if (PROPERTY_WRITERS.has(printNode(callee)) && call.arguments[0]) return assignedNames(unwrap(call.arguments[0]));
  if (ts.isIdentifier(callee) && !PURE_FUNCTIONS.has(callee.text))
    return call.arguments.map(unwrap).flatMap((a) => (ts.isIdentifier(a) && !fixtures.has(a.text) ? [a.text] : []));
  return [];
}

function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

function assignedNames(target: ts.Expression): string[] {
  if (ts.isIdentifier(target)) return [target.text];
  if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) return assignedNames(target.expression);
  if (ts.isArrayLiteralExpression(target)) return target.elements.flatMap(assignedNames);
  if (ts.isObjectLiteralExpression(target))
    return target.properties.flatMap((p) =>
      ts.isShorthandPropertyAssignment(p) ? [p.name.text] : ts.isPropertyAssignment(p) ? assignedNames(p.initializer) : [],
    );
  return [];
}

/** Identifiers `node` reads (never a property name after a dot, nor an object literal's key). */
function namesRead(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const walk = (n: ts.Node) => {
    if (ts.isIdentifier(n)) {
      const parent = n.parent;
      const isProperty = parent && ts.isPropertyAccessExpression(parent) && parent.name === n;
      const isKey = parent && ts.isPropertyAssignment(parent) && parent.name === n;
      if (!isProperty && !isKey) names.add(n.text);
    }
    ts.forEachChild(n, walk);
  };
  walk(node);
  return names;
}

function text(node: ts.Node): string {
  return normaliseText(printNode(node));
}

export function scriptKind(fileName: string): ts.ScriptKind {
  if (/\.[cm]?jsx?$/.test(fileName)) return fileName.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
  return fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
}
