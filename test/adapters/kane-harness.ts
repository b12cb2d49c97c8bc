// Builds a VerifyContext around the fake kane-cli (first on PATH) in a temp project with a temp HOME.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import type { Variable } from '../../src/contract/task-schema.js';
import { parseTestMd } from '../../src/verifiers/kane/test-md.js';
import type { VerifierProgress, VerifyContext } from '../../src/verifiers/types.js';
import { tempDir } from '../helpers/temp.js';

export const FAKE_BIN = fileURLToPath(new URL('../fixtures/bin', import.meta.url));
export const CORPUS = fileURLToPath(new URL('../fixtures/kane-corpus', import.meta.url));

/** A corpus test file's text. */
export function corpusTest(name: string): string {
  return readFileSync(path.join(CORPUS, 'tests', name), 'utf8');
}

/** Adds `@verifies AC-00N` to the body of step N (headings stay exactly as Kane reports them). */
export function withVerifies(text: string): string {
  let n = 0;
  return text
    .split('\n')
    .map((line) => (line.startsWith('## ') ? `${line}\n\n@verifies AC-${String(++n).padStart(3, '0')}` : line))
    .join('\n');
}

/** A plain test with `n` steps, step i verifying AC-00i. */
export function simpleTest(n: number): string {
  const steps = Array.from({ length: n }, (_, i) => `## Step ${i + 1} — check ${i + 1}\n\nVerify thing ${i + 1} at {{start_url}}.\n`);
  return withVerifies(`---\nmode: testing\n---\n\n# A simple test\n\n${steps.join('\n')}`);
}

export interface KaneFixture {
  ctx: VerifyContext;
  root: string;
  home: string;
  evidenceDir: string;
  progress: VerifierProgress[];
}

export interface FixtureOptions {
  text: string;
  /** File name inside tests/ (must end in _test.md for Kane). */
  name?: string;
  env?: Record<string, string>;
  baseEnv?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  url?: string;
  variables?: Record<string, Variable>;
  args?: string[];
  signal?: AbortSignal;
}

/** A temp project holding the test, with one criterion per step, wired to the fake kane-cli. */
export function kaneFixture(options: FixtureOptions): KaneFixture {
  const root = tempDir('elenchos-kane-');
  const home = path.join(root, '.home');
  const evidenceDir = path.join(root, '.evidence');
  mkdirSync(path.join(root, 'tests'), { recursive: true });
  mkdirSync(home);
  mkdirSync(evidenceDir);
  const name = options.name ?? 'sample_test.md';
  const testFile = path.join(root, 'tests', name);
  writeFileSync(testFile, options.text);
  const steps = parseTestMd(options.text).steps;
  const criteria = steps.map((s) => ({ id: `AC-${String(s.index).padStart(3, '0')}`, description: `criterion of step ${s.index}` }));
  const progress: VerifierProgress[] = [];
  const ctx: VerifyContext = {
    cwd: root,
    testFile,
    testFileLabel: `tests/${name}`,
    url: options.url ?? 'http://127.0.0.1:9/',
    criteria,
    map: mapCriteria(criteria, steps),
    variables: options.variables ?? {},
    command: undefined,
    args: options.args ?? [],
    env: options.env ?? {},
    baseEnv: { PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home, ...options.baseEnv },
    timeoutMs: options.timeoutMs ?? 30_000,
    evidenceDir,
    browserPath: undefined,
    signal: options.signal ?? new AbortController().signal,
    onProgress: (p) => progress.push(p),
  };
  return { ctx, root, home, evidenceDir, progress };
}

/** Criterion statuses in order, e.g. ['PASS', 'PASS', 'FAIL']. */
export function statuses(result: { criteria: { status: string }[] }): string[] {
  return result.criteria.map((c) => c.status);
}
