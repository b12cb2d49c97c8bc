// Fingerprints of a Playwright spec's tests for the test-weakening lock, read from the source.
import { fingerprintText, normaliseText, type StepPrint } from '../../contract/step-print.js';
import { blankComments, readStringLiteral } from './spec-imports.js';

// `test(`, `test.only(`, `test.fail(`…; never `test.describe(` or `test.step(`.
const TEST_CALL = /(?<![\w$.])test((?:\.(?:only|skip|fixme|fail|slow))*)\s*\(/g;
// Inside a body: `test.fail()`, `test.skip(cond)`, `test.fixme()` turn the test into one that proves nothing.
const BODY_MARKER = /(?<![\w$.])test\.(fail|skip|fixme)\s*\(/g;
const EXPECT = /(?<![\w$.])expect\b/g;

/**
 * One print per `test('title', …)` call with a literal title, in file order. Its assertions are the
 * `expect(…)` statements of its body; `test.fail()`, `test.skip()` or `test.fixme()` on or inside it
 * make it weakened (it can no longer prove a criterion).
 */
export function printSpecTests(source: string): StepPrint[] {
  const code = blankComments(source);
  const prints: StepPrint[] = [];
  const seen = new Map<string, number>();
  for (const match of code.matchAll(TEST_CALL)) {
    const open = match.index + match[0].length - 1;
    const titleAt = skipSpace(code, open + 1);
    const title = readStringLiteral(code, titleAt);
    if (!title) continue;
    const close = matchClose(code, open);
    const text = code.slice(match.index, close + 1);
    const modifiers = match[1]!
      .split('.')
      .filter(Boolean)
      .filter((m) => m !== 'only' && m !== 'slow');
    const rest = text.slice(title.end - match.index);
    const markers = [...rest.matchAll(BODY_MARKER)].map((m) => m[1]!);
    const weakening = [...modifiers, ...markers][0];
    const count = (seen.get(title.value) ?? 0) + 1;
    seen.set(title.value, count);
    prints.push({
      title: count === 1 ? title.value : `${title.value} #${count}`,
      fingerprint: fingerprintText(`${match[1]}${rest}`),
      assertions: assertionsIn(text),
      weakened: weakening ? `test.${weakening}()` : null,
    });
  }
  return prints;
}

/** Each `expect…` statement up to the `;` or line end that closes it (parentheses balanced). */
function assertionsIn(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(EXPECT)) {
    let depth = 0;
    let i = match.index;
    for (; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === "'" || ch === '"' || ch === '`') i = (readStringLiteral(text, i)?.end ?? text.length) - 1;
      else if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && (ch === ';' || (ch === '\n' && !/^\s*\./.test(text.slice(i + 1))))) break;
    }
    out.push(normaliseText(text.slice(match.index, i)));
  }
  return out;
}

/** Index of the `)` closing the `(` at `open` (strings skipped), or the end of the text. */
function matchClose(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === "'" || ch === '"' || ch === '`') i = (readStringLiteral(code, i)?.end ?? code.length) - 1;
    else if (ch === '(' || ch === '{' || ch === '[') depth++;
    else if ((ch === ')' || ch === '}' || ch === ']') && --depth === 0) return i;
  }
  return code.length - 1;
}

function skipSpace(code: string, at: number): number {
  while (at < code.length && /\s/.test(code[at]!)) at++;
  return at;
}
