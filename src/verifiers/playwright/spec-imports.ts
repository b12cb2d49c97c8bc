// What a Playwright spec reads besides itself: its local imports, followed transitively (locked by hash).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { followFiles } from '../../util/follow-files.js';
import { findUserConfig } from './user-config.js';

// `import x from './a'`, `import './a'`, `export * from './a'`, `import('./a')`, `require('./a')`.
const SPECIFIERS = [
  /\b(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
  /\bimport\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
  /\b(?:import|require)\s*\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g,
];
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

/**
 * Repo-relative paths of the spec's relative imports, transitively, staying inside `root`, and of the
 * project's playwright.config with its own imports (its settings are used, and it is code the runner
 * loads: an agent editing it is changing the verifier). Sorted.
 */
export async function playwrightLockedInputs(root: string, testFileLabel: string): Promise<string[]> {
  // A missing import is Playwright's error to report, not ours.
  const follow = (start: string) =>
    followFiles(root, start, (text, current) =>
      Promise.all(importSpecifiers(text).map((specifier) => resolveLocal(root, path.posix.join(path.posix.dirname(current), specifier)))),
    );
  const found = new Set(await follow(testFileLabel));
  const config = findUserConfig(root);
  if (config) for (const file of [config, ...(await follow(config))]) if (file !== testFileLabel) found.add(file);
  return [...found].sort();
}

/** Relative module specifiers (`./x`, `../y`) in a source file, comments ignored. */
export function importSpecifiers(source: string): string[] {
  const code = blankComments(source);
  const out = new Set<string>();
  for (const pattern of SPECIFIERS) for (const m of code.matchAll(pattern)) out.add(m[2]!);
  return [...out];
}

/** The file a relative specifier loads, the way TypeScript/Node look it up (`./x.js` may be `x.ts`). */
async function resolveLocal(root: string, joined: string): Promise<string | null> {
  const normal = path.posix.normalize(joined);
  if (normal.startsWith('../') || path.posix.isAbsolute(normal)) return null;
  const stem = normal.replace(/\.(c|m)?js$/, '');
  const candidates = [
    normal,
    ...EXTENSIONS.map((ext) => normal + ext),
    ...(stem !== normal ? EXTENSIONS.map((ext) => stem + ext) : []),
    ...EXTENSIONS.map((ext) => `${normal}/index${ext}`),
  ];
  for (const candidate of candidates) {
    try {
      if ((await stat(path.join(root, candidate))).isFile()) return candidate;
    } catch {
      // try the next spelling
    }
  }
  return null;
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

/** The string literal starting at `at` (its unescaped value and where it ends), or null when none starts there. */
export function readStringLiteral(code: string, at: number): { value: string; end: number } | null {
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
