// Reads a Playwright spec statically: the tests it declares, in file order, with the criteria each names.
import { CRITERION_ID_PATTERN } from '../../contract/task-schema.js';
import type { DeclaredStep } from '../../contract/criteria-map.js';

export interface SpecTest extends DeclaredStep {
  /** 1-based line of the `test(` call. */
  line: number;
}

// A call of `test` or of its modifiers only / skip / fixme / fail / slow; never `test.describe` or `test.step`.
const TEST_CALL = /(?<![\w$.])test(?:\.(?:only|skip|fixme|fail|slow))*\s*\(\s*/g;
const TITLE_TAG = /(?<![\w@])@([A-Za-z][A-Za-z0-9]*-\d+)(?![\w-])/g;

/**
 * Lists the tests of a spec: every `test('title', …)` call whose first argument is a string literal,
 * numbered 1..n in file order (the order Playwright reports them when sorted by location). A test
 * verifies the criteria named in its tags (`{ tag: ['@AC-001'] }` or `@AC-001` in the title) and in
 * `{ type: 'verifies', description: 'AC-001, AC-002' }` annotations.
 */
export function readSpecTests(source: string): SpecTest[] {
  const code = blankComments(source);
  const tests: SpecTest[] = [];
  for (const match of code.matchAll(TEST_CALL)) {
    const start = match.index + match[0].length;
    const title = readStringLiteral(code, start);
    if (!title) continue; // a conditional skip (`skip` with a condition) or a title held in a variable: nothing to read
    let cursor = skipSpace(code, title.end);
    let details = '';
    if (code[cursor] === ',') {
      cursor = skipSpace(code, cursor + 1);
      if (code[cursor] === '{') details = code.slice(cursor, matchBrace(code, cursor) + 1);
    }
    tests.push({
      index: tests.length + 1,
      heading: title.value,
      line: lineOf(code, match.index),
      verifies: unique([...titleTags(title.value), ...detailTags(details), ...verifiesAnnotations(details)]),
    });
  }
  return tests;
}

/** Criterion ids in `@AC-001` tokens of a title (Playwright turns them into tags). */
export function titleTags(title: string): string[] {
  return [...title.matchAll(TITLE_TAG)].map((m) => m[1]!);
}

/** Criterion ids in a comma- or space-separated list (`AC-001, AC-002`), whole tokens only. */
export function criteriaInList(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((token) => token.replace(/^@/, ''))
    .filter((token) => CRITERION_ID_PATTERN.test(token));
}

function detailTags(details: string): string[] {
  const tag = /\btag\s*:\s*(\[[^\]]*\]|'[^']*'|"[^"]*"|`[^`]*`)/.exec(details);
  if (!tag) return [];
  return stringsIn(tag[1]!).flatMap((s) => (s.startsWith('@') ? criteriaInList(s) : []));
}

function verifiesAnnotations(details: string): string[] {
  const ids: string[] = [];
  for (const object of details.matchAll(/\{[^{}]*\}/g)) {
    if (!/\btype\s*:\s*(['"`])verifies\1/.test(object[0])) continue;
    const description = /\bdescription\s*:\s*('[^']*'|"[^"]*"|`[^`]*`)/.exec(object[0]);
    if (description) ids.push(...criteriaInList(description[1]!.slice(1, -1)));
  }
  return ids;
}

function stringsIn(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|`([^`]*)`/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

function readStringLiteral(code: string, at: number): { value: string; end: number } | null {
  const quote = code[at];
  if (quote !== "'" && quote !== '"' && quote !== '`') return null;
  let value = '';
  for (let i = at + 1; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '\\') {
      const next = code[i + 1] ?? '';
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      i++;
    } else if (ch === quote) {
      return { value, end: i + 1 };
    } else {
      value += ch;
    }
  }
  return null;
}

/** Index of the `}` closing the `{` at `open` (strings skipped), or the end of the text. */
function matchBrace(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      i = (readStringLiteral(code, i)?.end ?? code.length) - 1;
    } else if (ch === '{') {
      depth++;
    } else if (ch === '}' && --depth === 0) {
      return i;
    }
  }
  return code.length - 1;
}

/** Replaces comments with spaces (newlines kept, so line numbers stay right); strings are left intact. */
export function blankComments(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = readStringLiteral(source, i)?.end ?? source.length;
      out += source.slice(i, end);
      i = end - 1;
    } else if (ch === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      out += ' '.repeat(stop - i);
      i = stop - 1;
    } else if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

function skipSpace(code: string, at: number): number {
  while (at < code.length && /\s/.test(code[at]!)) at++;
  return at;
}

function lineOf(code: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (code[i] === '\n') line++;
  return line;
}

function unique(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => !seen.has(id.toUpperCase()) && seen.add(id.toUpperCase()));
}
