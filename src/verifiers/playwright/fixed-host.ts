// A spec that opens a fixed host (`page.goto('http://localhost:5173')`) tests whatever listens there, not
// the app Elenchos started at its own URL (a free port per run): every run of it fails the same way, or
// worse, passes against another server. The lock reads the same `goto` calls (goto-target.ts); this finds
// the literal ones that name an origin, so that `check` and `doctor` can point at the line before a run.
import ts from 'typescript';
import { scriptKind } from './test-prints.js';
import { unwrap } from './test-weakening.js';

export interface FixedHostGoto {
  /** 1-based line of the call. */
  line: number;
  /** The URL as written (`http://localhost:5173/`), or its fixed start when the rest is computed. */
  url: string;
}

const ABSOLUTE = /^\s*(https?:\/\/[^/?#\s]+)/i;

/** Every `….goto(url)` whose url starts with a literal `http://host[:port]` (a string, a template, a concatenation). */
export function findFixedHostGotos(source: string, fileName = 'spec.ts'): FixedHostGoto[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const found: FixedHostGoto[] = [];
  const walk = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isGoto(node.expression) && node.arguments[0]) {
      const url = literalStart(node.arguments[0]);
      const origin = url === null ? null : ABSOLUTE.exec(url);
      if (url !== null && origin) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, url: url.trim() });
    }
    ts.forEachChild(node, walk);
  };
  walk(file);
  return found;
}

/** The warning `check` and `doctor` print for one such call. */
export function fixedHostWarning(testFileLabel: string, call: FixedHostGoto): string {
  const path = URL.canParse(call.url) ? new URL(call.url).pathname : '/';
  return `${testFileLabel}:${call.line}: page.goto("${call.url}") opens a fixed host, not the app Elenchos starts at app.url (a free port per run): the run ends VERIFIER_ERROR; fix: page.goto("${path}") (relative to baseURL, which Elenchos sets to the app's URL)`;
}

function isGoto(callee: ts.Expression): boolean {
  const e = unwrap(callee);
  if (ts.isPropertyAccessExpression(e)) return e.name.text === 'goto';
  return ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression) && e.argumentExpression.text === 'goto';
}

/** The literal text an argument starts with: a string, a template's head, the left end of a `+` chain. */
function literalStart(argument: ts.Expression): string | null {
  const e = unwrap(argument);
  if (ts.isStringLiteralLike(e)) return e.text;
  if (ts.isTemplateExpression(e)) return e.head.text;
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return literalStart(e.left);
  return null;
}
