// `elenchos author <task>`: writes the test a contract names but does not have yet, left uncommitted
// for a person to read: Kane designs it through kane-cli, Playwright gets a tagged skeleton.
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { loadTask } from '../contract/load-task.js';
import { checkRepoRelative } from '../contract/repo-path.js';
import { InputError, PreflightError } from '../errors.js';
import { authorDir } from '../evidence/layout.js';
import { findRepoRoot } from '../git/git.js';
import { ensureExcluded } from '../git/worktree.js';
import { designKaneTest } from '../verifiers/kane/design-test.js';
import { specSkeleton } from '../verifiers/playwright/spec-skeleton.js';
import { loadVerifier } from '../verifiers/registry.js';
import { inferVerifier } from './resolve-task.js';

export interface AuthorOptions {
  cwd: string;
  taskFile: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export interface AuthorResult {
  /** Repo-relative path of the test written. */
  testFile: string;
  verifier: string;
  /** Kane: the test kane-cli saved, and its `ac-N` → contract id mapping; the scratch folder with Kane's output. */
  kane: { savedAs: string; mapping: Record<string, string>; scratch: string } | null;
}

/** Writes the contract's missing test file (never over an existing one); throws InputError/PreflightError on refusal. */
export async function authorTest(options: AuthorOptions): Promise<AuthorResult> {
  const root = await findRepoRoot(options.cwd);
  if (root === null)
    throw new PreflightError(
      'NOT_A_REPOSITORY',
      `${options.cwd} is not inside a git repository; run elenchos author from your project's checkout`,
    );
  const { config } = await loadConfig({ root, file: options.configFile, env: options.env });
  const { task, label } = await loadTask(path.resolve(options.cwd, options.taskFile), { root });
  const testFile = checkRepoRelative(task.verification.testFile, `${label}: verification.testFile`);
  const type = task.verification.verifier ?? config.verifier.type ?? inferVerifier(testFile);
  const verifier = await loadVerifier(type);
  const nameProblem = verifier.checkTestFileName(testFile);
  if (nameProblem) throw new InputError(`${label}: verification.testFile: ${nameProblem}`);
  const target = path.join(root, testFile);
  if (
    await lstat(target).then(
      () => true,
      () => false,
    )
  ) {
    throw new InputError(
      `${testFile} already exists; elenchos author writes only a test the contract names but does not have (move it away to author a new one)`,
    );
  }
  let text: string;
  let kane: AuthorResult['kane'] = null;
  if (type === 'kane') {
    const scratch = authorDir(root, `${task.id}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    await ensureExcluded(root);
    await mkdir(scratch, { recursive: true });
    const command =
      (config.verifier.type === undefined || config.verifier.type === type ? config.verifier.command : undefined) ?? 'kane-cli';
    const designed = await designKaneTest({
      task,
      scratch,
      command,
      baseEnv: options.env,
      env: config.verifier.env,
      timeoutMs: config.verifier.timeoutSeconds * 1000,
      signal: options.signal,
    });
    if (!designed.ok) throw new PreflightError('AUTHOR_REFUSED', `${label}: ${designed.problem}`);
    text = designed.text;
    kane = { savedAs: designed.kaneTest, mapping: designed.mapping, scratch: path.relative(root, scratch) };
  } else if (type === 'playwright') {
    text = specSkeleton(task);
  } else {
    throw new InputError(`${label}: elenchos author writes Kane and Playwright tests; a command verifier's test is yours to write`);
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text, { flag: 'wx' }); // wx: never over a file that appeared meanwhile
  return { testFile, verifier: type, kane };
}
