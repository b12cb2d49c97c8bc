// Every status, state and reason name comes from src/states.ts: a union of those names spelled out
// anywhere else in src/ (a type, a zod enum) fails here, so a second list cannot drift from the first.
import { readFileSync } from 'node:fs';
import fg from 'fast-glob';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const OWNER = 'src/states.ts';

/** The upper-case names of states.ts's lists: run states, reasons, verdict, attempt, criterion and candidate statuses. */
function stateNames(): Set<string> {
  const names = new Set<string>();
  const file = ts.createSourceFile('states.ts', readFileSync(`${root}${OWNER}`, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) && /^[A-Z][A-Z_]+$/.test(node.text)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/**
 * Each list of two or more state names in `source`: a union type of their literals, or an array of them
 * that defines a vocabulary (`as const`, or given to z.enum). A set of some reasons for a policy is not one.
 */
function spelledLists(source: string, names: Set<string>): string[] {
  const found: string[] = [];
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const literals = (nodes: readonly ts.Node[]) =>
    nodes.map((n) => (ts.isLiteralTypeNode(n) ? n.literal : n)).filter((n): n is ts.StringLiteral => ts.isStringLiteral(n));
  const visit = (node: ts.Node) => {
    const members = ts.isUnionTypeNode(node)
      ? node.types
      : ts.isArrayLiteralExpression(node) && definesVocabulary(node)
        ? node.elements
        : null;
    if (members) {
      const strings = literals(members).map((l) => l.text);
      if (strings.filter((s) => names.has(s)).length >= 2 && strings.every((s) => names.has(s))) found.push(strings.join('|'));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function definesVocabulary(array: ts.ArrayLiteralExpression): boolean {
  const parent = array.parent;
  if (ts.isAsExpression(parent) && parent.type.getText() === 'const') return true;
  return ts.isCallExpression(parent) && /\.enum$/.test(parent.expression.getText());
}

describe('the states module', () => {
  const names = stateNames();

  it('finds a list of state names in each form (the check below can fail)', () => {
    expect(names.has('VERIFIED') && names.has('PRODUCT_FAILURE') && names.has('UNVERIFIED')).toBe(true);
    expect(spelledLists("type S = 'VERIFIED' | 'FAILED' | 'ERROR';", names)).toEqual(['VERIFIED|FAILED|ERROR']);
    expect(spelledLists("const s = z.enum(['PASS', 'FAIL']);", names)).toEqual(['PASS|FAIL']);
    expect(spelledLists("let r: { reason: 'VERIFIER_ERROR' | 'INCONCLUSIVE' | null };", names)).toEqual(['VERIFIER_ERROR|INCONCLUSIVE']);
    // One name is a comparison, not a list; a union with a word that is no state is someone else's vocabulary.
    expect(spelledLists("const L = ['PASS', 'FAIL'] as const;", names)).toEqual(['PASS|FAIL']);
    expect(spelledLists("if (s === 'PASS') f(); type A = 'PASSED' | 'FAILED';", names)).toEqual([]);
    expect(
      spelledLists("const policy = new Set<RunReason>(['INTERRUPTED', 'ABANDONED']); return ['ERROR', 'CONTRACT_CHANGED'];", names),
    ).toEqual([]);
  });

  it('is the only place that lists them', () => {
    const offenders: string[] = [];
    for (const file of fg.sync('src/**/*.ts', { cwd: root })) {
      if (file === OWNER) continue;
      for (const list of spelledLists(readFileSync(`${root}${file}`, 'utf8'), names)) offenders.push(`${file}: ${list}`);
    }
    expect(offenders).toEqual([]);
  });
});
