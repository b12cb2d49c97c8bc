// Holds a task's test to its committed lock, naming the commit that weakened it.
import { InputError } from '../../errors.js';
import { git } from '../../git/git.js';
import { dirtyPaths } from '../../git/status.js';
import { lockPathFor, TestLockSchema, type TestLock } from '../../contract/test-lock-schema.js';
import { buildTestLock, compareTestLock, readTestLock, type LockFinding } from './test-lock.js';
import type { ResolvedTask } from '../resolve-task.js';

export interface TestLockCheckOptions {
  /** A commit the history is checked from (`--lock-base origin/main`): a lock changed since without its contract fails. */
  base?: string;
  /** `--config`: the config file whose verdict keys the lock holds. */
  configFile?: string;
}

export interface TestLockCheck {
  /** The lock file, or null when the task has none (nothing to hold it to). */
  file: string | null;
  problems: string[];
  notes: string[];
}

/** Compares the task's test with its lock; each problem names the criterion, the step and the commit. */
export async function checkTestLock(root: string, resolved: ResolvedTask, options: TestLockCheckOptions = {}): Promise<TestLockCheck> {
  if (options.base) await requireCommit(root, options.base);
  const stored = await readTestLock(root, resolved.label);
  if (!stored)
    return options.base
      ? await checkDeletedLock(root, resolved, options.base, options.configFile)
      : { file: null, problems: [], notes: [] };
  const current = await buildTestLock(resolved, { root, configFile: options.configFile });
  const { problems, notes } = compareTestLock(stored.lock, current);
  const lines: string[] = [];
  // Each line names the lock it is held to: a difference may be the lock's doing (edited by hand), not the test's.
  const seen = new Set<string>();
  for (const p of problems) {
    const line = await problemLine(root, resolved, p);
    seen.add(line);
    lines.push(`${line}, against ${stored.file}`);
  }
  if (stored.lock.testFile !== resolved.testFileLabel) {
    lines.push(
      `${resolved.label}: verification.testFile moved from ${stored.lock.testFile} to ${resolved.testFileLabel} without a lock update; run elenchos lock --update ${resolved.label}`,
    );
  }
  if (options.base) {
    // The lock as the base has it: an agent that also rewrote the lock (and touched the contract to pass
    // the rule below) is still held to what the reviewer last accepted.
    const baseLock = await lockAtBase(root, stored.file, options.base);
    if (baseLock) {
      for (const p of compareTestLock(baseLock, current).problems) {
        const line = await problemLine(root, resolved, p);
        if (!seen.has(line)) lines.push(`${line}, against ${stored.file} as of ${options.base}`);
      }
    }
    for (const commit of await lockChangesWithoutContract(root, stored.file, resolved.label, options.base)) {
      lines.push(
        `${stored.file}: changed in ${commit} without a change of ${resolved.label}: a lock follows its contract; revert it, or change the contract in the same commit`,
      );
    }
  }
  return { file: stored.file, problems: lines, notes };
}

/**
 * No lock now, but `base` had one: deleting the lock turns the whole test lock off, so it is the widest
 * weakening of all. Named, and the test is still held to the base's lock so each criterion it freed is listed.
 */
async function checkDeletedLock(root: string, resolved: ResolvedTask, base: string, configFile?: string): Promise<TestLockCheck> {
  const file = lockPathFor(resolved.label);
  // Any lock in the base counts, of this format or an older one: deleting it is never a lock update.
  if ((await lockTextAtBase(root, file, base)) === null) return { file: null, problems: [], notes: [] };
  const lines = [
    `${file}: deleted since ${base} (${await lastChange(root, file)}), which turns the test lock off; restore it (git checkout ${base} -- ${file}), or if the task changed run elenchos lock --update ${resolved.label} and have the lock's diff reviewed`,
  ];
  const baseLock = await lockAtBase(root, file, base);
  if (baseLock) {
    const current = await buildTestLock(resolved, { root, configFile });
    for (const p of compareTestLock(baseLock, current).problems)
      lines.push(`${await problemLine(root, resolved, p)}, against ${file} as of ${base}`);
  }
  return { file, problems: lines, notes: [] };
}

/** `task: criterion: message (file, commit abc1234 "subject")`, naming the file the change is in (the test, unless said). */
async function problemLine(root: string, resolved: ResolvedTask, p: LockFinding): Promise<string> {
  const file = p.file ?? resolved.testFileLabel;
  return `${resolved.label}: ${p.criterion}: ${p.message} (${file}, ${await lastChange(root, file)})`;
}

/** The task's lock in `base` (null when it had none, or one of another format: nothing to compare with). */
async function lockAtBase(root: string, lockFile: string, base: string): Promise<TestLock | null> {
  const text = await lockTextAtBase(root, lockFile, base);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = TestLockSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The lock file's text in `base`, or null when the base has none. */
async function lockTextAtBase(root: string, lockFile: string, base: string): Promise<string | null> {
  return git(['show', `${base}:${lockFile}`], { cwd: root }).catch(() => null);
}

/** `commit abc1234 "subject"` of the last commit that changed `file`, or `uncommitted` when the checkout differs. */
async function lastChange(root: string, file: string): Promise<string> {
  if ((await dirtyPaths(root)).includes(file)) return 'uncommitted change';
  const out = (await git(['log', '-1', '--format=%h %s', '--', file], { cwd: root }).catch(() => '')).trim();
  if (!out) return 'not committed';
  const [hash, ...subject] = out.split(' ');
  return `commit ${hash} "${subject.join(' ')}"`;
}

/** `--lock-base` must name a commit: a base that is not there would hold nothing to anything. */
async function requireCommit(root: string, base: string): Promise<void> {
  const known = await git(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], { cwd: root }).catch(() => '');
  if (!known.trim())
    throw new InputError(
      `--lock-base ${base}: no such commit in ${root}; fetch it first (for example git fetch origin main) or drop --lock-base`,
    );
}

/** Commits in `base..HEAD` that touched the lock but not the task it locks. */
async function lockChangesWithoutContract(root: string, lockFile: string, taskFile: string, base: string): Promise<string[]> {
  const out = await git(['log', '--format=%x01%h %s', '--name-only', `${base}..HEAD`, '--', lockFile, taskFile], { cwd: root });
  const found: string[] = [];
  for (const block of out.split('\x01').filter((b) => b.trim() !== '')) {
    const [header, ...files] = block.split('\n').filter((l) => l !== '');
    if (files.includes(lockFile) && !files.includes(taskFile)) {
      const [hash, ...subject] = (header ?? '').split(' ');
      found.push(`commit ${hash} "${subject.join(' ')}"`);
    }
  }
  return found;
}
