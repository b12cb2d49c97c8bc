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
  for (const file of await tsconfigChain(root, testFileLabel)) found.add(file);
  return [...found].sort();
}

const TSCONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

/**
 * Repo-relative path of the tsconfig.json (or jsconfig.json) nearest to the spec, from its folder up to
 * `root`, the one Playwright would use for it; null when there is none in the repository. Its
 * `compilerOptions.paths` decide what a bare import such as '@playwright/test' loads, so the run passes
 * it as Playwright's `--tsconfig` (the one tsconfig for every file it compiles, never one from outside
 * the repository or from another folder) and it is locked with the contract.
 */
export async function nearestTsconfig(root: string, testFileLabel: string): Promise<string | null> {
  if (testFileLabel.startsWith('../') || path.isAbsolute(testFileLabel)) return null;
  for (let dir = path.posix.dirname(testFileLabel); ; dir = path.posix.dirname(dir)) {
    for (const name of TSCONFIG_NAMES) {
      const candidate = dir === '.' ? name : `${dir}/${name}`;
      if (await isFile(path.join(root, candidate))) return candidate;
    }
    if (dir === '.' || dir === '/' || dir === '') return null;
  }
}

/** The nearest tsconfig and the files it `extends` by a relative path, transitively, inside `root`. */
async function tsconfigChain(root: string, testFileLabel: string): Promise<string[]> {
  const nearest = await nearestTsconfig(root, testFileLabel);
  if (!nearest) return [];
  const extended = await followFiles(root, nearest, async (text, current) =>
    Promise.all(
      extendsOf(text)
        .filter((target) => target.startsWith('./') || target.startsWith('../'))
        .map(async (target) => {
          const joined = path.posix.normalize(path.posix.join(path.posix.dirname(current), target));
          if (joined.startsWith('../')) return null;
          for (const candidate of [joined, `${joined}.json`]) if (await isFile(path.join(root, candidate))) return candidate;
          return null;
        }),
    ),
  );
  return [nearest, ...extended];
}

/** The `extends` of a tsconfig (a string or an array of them), comments allowed as TypeScript allows them. */
export function extendsOf(text: string): string[] {
  const code = blankComments(text);
  const match = /"extends"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])/.exec(code);
  if (!match) return [];
  const values: string[] = [];
  for (let i = 0; i < match[1]!.length; i++) {
    const literal = readStringLiteral(match[1]!, i);
    if (literal) {
      values.push(literal.value);
      i = literal.end - 1;
    }
  }
  return values;
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
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
