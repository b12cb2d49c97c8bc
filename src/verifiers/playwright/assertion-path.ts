// The way from a Playwright test's body to one of its assertions: every `if`, loop, `try`, closure or
// earlier `return` on it. A locked assertion is kept with its path, so wrapping it in `if (false)`, a
// swallowing `try … catch {}` or a closure nobody calls changes it as surely as deleting it.
import ts from 'typescript';

export interface PathStep {
  /** How the step reads in the lock and in a message (`if (items.length > 0)`, `after return`…). */
  label: string;
  /** Nodes the step reads (a condition, a loop's header): what they depend on is locked too. */
  nodes: ts.Node[];
}

/** Marks in a label that say the assertion cannot fail the test any more (see `unreachableReason`). */
export const NEVER_RUNS = 'never runs';

/** The path from `callback`'s body to `statement`, outermost first. */
export function assertionPath(statement: ts.Node, callback: ts.FunctionLikeDeclaration): PathStep[] {
  const steps: PathStep[] = [];
  let child: ts.Node = statement;
  for (let node = statement.parent; node && node !== callback; child = node, node = node.parent) {
    const step = stepThrough(node, child, callback);
    if (step) steps.unshift(...step);
  }
  return steps;
}

function stepThrough(node: ts.Node, child: ts.Node, callback: ts.FunctionLikeDeclaration): PathStep[] | null {
  const print = (n: ts.Node) => printNode(n);
  if (ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node)) return earlierExits(node.statements, child);
  if (ts.isIfStatement(node)) {
    if (child === node.expression) return null;
    const cond = print(node.expression);
    const taken = child === node.thenStatement;
    const never = taken ? isConstant(node.expression, false) : isConstant(node.expression, true);
    return [{ label: `${never ? `${NEVER_RUNS}: ` : ''}${taken ? '' : 'else of '}if (${cond})`, nodes: [node.expression] }];
  }
  if (ts.isConditionalExpression(node) && child !== node.condition) {
    const taken = child === node.whenTrue;
    const never = isConstant(node.condition, !taken);
    return [{ label: `${never ? `${NEVER_RUNS}: ` : ''}${print(node.condition)} ${taken ? '?' : '? … :'}`, nodes: [node.condition] }];
  }
  if (ts.isBinaryExpression(node) && child === node.right) {
    const op = node.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
      const never =
        (op === ts.SyntaxKind.AmpersandAmpersandToken && isConstant(node.left, false)) ||
        (op === ts.SyntaxKind.BarBarToken && isConstant(node.left, true));
      return [{ label: `${never ? `${NEVER_RUNS}: ` : ''}${print(node.left)} ${node.operatorToken.getText()}`, nodes: [node.left] }];
    }
  }
  if (ts.isTryStatement(node)) {
    if (child === node.tryBlock && node.catchClause) {
      const swallowed = !rethrows(node.catchClause.block);
      return [{ label: swallowed ? `${NEVER_RUNS}: try … catch without a rethrow` : 'try … catch (rethrown)', nodes: [] }];
    }
    if (child === node.catchClause) return [{ label: 'catch', nodes: [] }];
    if (child === node.finallyBlock) return [{ label: 'finally', nodes: [] }];
    return null;
  }
  if (
    ts.isForStatement(node) ||
    ts.isForOfStatement(node) ||
    ts.isForInStatement(node) ||
    ts.isWhileStatement(node) ||
    ts.isDoStatement(node)
  ) {
    if (child !== node.statement) return null;
    const header = loopHeader(node);
    const never = ts.isWhileStatement(node) && isConstant(node.expression, false);
    return [{ label: `${never ? `${NEVER_RUNS}: ` : ''}${header.label}`, nodes: header.nodes }];
  }
  if (ts.isSwitchStatement(node) && child !== node.expression)
    return [{ label: `switch (${print(node.expression)})`, nodes: [node.expression] }];
  if (ts.isCaseBlock(node)) return null;
  if (ts.isFunctionLike(node)) return [closureStep(node, callback)];
  return null;
}

/** A closure on the way: called by what it is passed to, called by name, or never called. */
function closureStep(fn: ts.SignatureDeclaration, callback: ts.FunctionLikeDeclaration): PathStep {
  const parent = fn.parent;
  if (ts.isCallExpression(parent) && parent.arguments.includes(fn as ts.Expression))
    return { label: `in a callback of ${printNode(parent.expression)}()`, nodes: [parent.expression] };
  if (ts.isParenthesizedExpression(parent) && ts.isCallExpression(parent.parent) && parent.parent.expression === parent)
    return { label: 'in a function called at once', nodes: [] };
  const name =
    ts.isFunctionDeclaration(fn) && fn.name
      ? fn.name.text
      : ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)
        ? parent.name.text
        : null;
  if (name && isCalledIn(name, callback)) return { label: `in ${name}(), called by the test`, nodes: [] };
  return { label: `${NEVER_RUNS}: in ${name ? `${name}()` : 'a function'}, never called`, nodes: [] };
}

/** Statements before `child` in `statements` that leave the block (`return`), or may (`if (x) return;`). */
function earlierExits(statements: readonly ts.Statement[], child: ts.Node): PathStep[] {
  const at = statements.indexOf(child as ts.Statement);
  const steps: PathStep[] = [];
  for (const before of statements.slice(0, Math.max(at, 0))) {
    if (ts.isReturnStatement(before) || ts.isThrowStatement(before) || ts.isBreakStatement(before) || ts.isContinueStatement(before))
      steps.push({ label: `${NEVER_RUNS}: after \`${printNode(before)}\``, nodes: [before] });
    else if (containsReturn(before)) steps.push({ label: `after \`${printNode(before)}\``, nodes: [before] });
  }
  return steps;
}

function containsReturn(node: ts.Node): boolean {
  let found = false;
  const walk = (n: ts.Node) => {
    if (found || ts.isFunctionLike(n)) return;
    if (ts.isReturnStatement(n)) found = true;
    else ts.forEachChild(n, walk);
  };
  ts.forEachChild(node, walk);
  return found;
}

/** Whether a catch block throws again (outside any closure of its own): otherwise it swallows the failure. */
function rethrows(block: ts.Block): boolean {
  let found = false;
  const walk = (n: ts.Node) => {
    if (found || ts.isFunctionLike(n)) return;
    if (ts.isThrowStatement(n)) found = true;
    else if (ts.isCallExpression(n) && /^(expect|test)\b/.test(n.expression.getText())) found = true;
    else ts.forEachChild(n, walk);
  };
  ts.forEachChild(block, walk);
  return found;
}

function loopHeader(node: ts.IterationStatement): { label: string; nodes: ts.Node[] } {
  if (ts.isForOfStatement(node) || ts.isForInStatement(node)) {
    const kind = ts.isForOfStatement(node) ? 'of' : 'in';
    return { label: `for (${printNode(node.initializer)} ${kind} ${printNode(node.expression)})`, nodes: [node.expression] };
  }
  if (ts.isForStatement(node)) {
    const parts = [node.initializer, node.condition, node.incrementor].map((p) => (p ? printNode(p) : ''));
    return {
      label: `for (${parts.join('; ')})`,
      nodes: [node.initializer, node.condition, node.incrementor].filter((p) => p !== undefined),
    };
  }
  const loop = node as ts.WhileStatement | ts.DoStatement;
  return { label: `${ts.isDoStatement(loop) ? 'do … while' : 'while'} (${printNode(loop.expression)})`, nodes: [loop.expression] };
}

/** Whether `node` is a literal that is always `value` when tested (`false`, `0`, `''`, `null`, `!true`…). */
function isConstant(node: ts.Expression, value: boolean): boolean {
  let inner = node;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.ExclamationToken) return isConstant(inner.operand, !value);
  const truth = literalTruth(inner);
  return truth !== null && truth === value;
}

function literalTruth(node: ts.Expression): boolean | null {
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword || node.kind === ts.SyntaxKind.NullKeyword) return false;
  if (ts.isIdentifier(node) && node.text === 'undefined') return false;
  if (ts.isNumericLiteral(node)) return Number(node.text) !== 0;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text !== '';
  if (ts.isArrayLiteralExpression(node) || ts.isObjectLiteralExpression(node)) return true;
  return null;
}

/** Whether the test calls `name` or hands it to something that may (`check()`, `test.step('x', check)`). */
export function isCalledIn(name: string, callback: ts.FunctionLikeDeclaration): boolean {
  let called = false;
  const walk = (n: ts.Node) => {
    if (called) return;
    if (ts.isIdentifier(n) && n.text === name && n.parent && ts.isCallExpression(n.parent)) called = true;
    else ts.forEachChild(n, walk);
  };
  if (callback.body) walk(callback.body);
  return called;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A node as source text without comments, on one line: formatting and comments are never a change. */
export function printNode(node: ts.Node): string {
  return printer
    .printNode(ts.EmitHint.Unspecified, node, node.getSourceFile())
    .replace(/\s+/g, ' ')
    .replace(/ (\??\.)(?=[A-Za-z_$#])/g, '$1') // a chain broken over lines prints as it was written
    .trim();
}
