// What a Playwright spec reads besides itself: what it imports, followed transitively with the TypeScript
// parser and Node's resolution (js-modules.ts), its playwright.config and the tsconfig chain (locked by hash).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { followFiles } from '../../util/follow-files.js';
import { followJsModules } from '../js-modules.js';
import type { VerifierInputs } from '../types.js';
import { findUserConfig } from './user-config.js';

/**
 * Repo-relative paths of every module the spec loads, transitively, staying inside `root` (packages under
 * node_modules are the toolchain's), and of the project's playwright.config with what it loads (its settings
 * are used, and it is code the runner loads: an agent editing it is changing the verifier), sorted; and each
 * load whose target is only known at run time.
 */
export async function playwrightLockedInputs(root: string, testFileLabel: string): Promise<VerifierInputs> {
  const spec = await followJsModules(root, testFileLabel);
  const found = new Set(spec.files);
  const unresolved = [...spec.unresolved];
  const config = findUserConfig(root);
  if (config) {
    const loaded = await followJsModules(root, config);
    for (const file of [config, ...loaded.files]) if (file !== testFileLabel) found.add(file);
    unresolved.push(...loaded.unresolved);
  }
  for (const file of await tsconfigChain(root, testFileLabel)) found.add(file);
  found.delete(testFileLabel);
  return { files: [...found].sort(), unresolved };
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
