// Holds a task's test to its committed lock, naming the commit that weakened it.
import { InputError } from '../../errors.js';
import { historySince, lastChanges } from '../../git/commit-files.js';
import { lockPathFor } from '../../contract/test-lock-schema.js';
import { buildTestLock, compareTestLock, parseTestLock, readTestLock, type LockFinding } from './test-lock.js';
import type { ResolvedTask } from '../resolve-task.js';

export interface TestLockCheckOptions {
  /** A commit the history is checked from (`--lock-base origin/main`): a lock changed since without its contract fails. */
  base?: string;
  /** `--config`: the config file whose verdict keys the lock holds. */
  configFile?: string;
  /** The checkout's uncommitted paths, asked only when a problem must name its last change (preflight read them already). */
  dirty: () => Promise<readonly string[]>;
}

export interface TestLockCheck {
  /** The lock file, or null when the task has none (nothing to hold it to). */
  file: string | null;
  problems: string[];
  notes: string[];
}

/** A finding, and the lock it is held to (`, against tasks/x.lock.json`). */
type Held = { finding: LockFinding; against: string };

/**
 * Compares the task's test with its lock (and with the lock as `--lock-base` has it); each problem names the
 * criterion, the step and the commit. What git says is asked at once: the history since the base first, the
 * last change of every file a problem is in last.
 */
export async function checkTestLock(root: string, resolved: ResolvedTask, options: TestLockCheckOptions): Promise<TestLockCheck> {
  const { base } = options;
  const file = lockPathFor(resolved.label);
  const history = base ? await historySince(root, base, file, resolved.label) : null;
  // `--lock-base` must name a commit: a base that is not there would hold nothing to anything.
  if (base && !history)
    throw new InputError(
      `--lock-base ${base}: no such commit in ${root}; fetch it first (for example git fetch origin main) or drop --lock-base`,
    );
  const stored = await readTestLock(root, resolved.label);
  // The lock as the base has it: an agent that also rewrote the lock (and touched the contract to pass the
  // rule below) is still held to what the reviewer last accepted. Any lock in the base counts, of this format
  // or an older one: deleting it is never a lock update.
  const baseLock = history?.atBase == null ? null : parseTestLock(history.atBase);
  const deleted = !stored && history?.atBase != null;
  if (!stored && !deleted) return { file: null, problems: [], notes: [] };
  const current = stored || baseLock ? await buildTestLock(resolved, { root, configFile: options.configFile }) : null;
  const compared = stored && current ? compareTestLock(stored.lock, current) : { problems: [], notes: [] };
  const held: Held[] = compared.problems.map((finding) => ({ finding, against: file }));
  if (baseLock && current) {
    const seen = new Set(held.map(({ finding }) => findingKey(resolved, finding)));
    for (const finding of compareTestLock(baseLock, current).problems)
      if (!seen.has(findingKey(resolved, finding))) held.push({ finding, against: `${file} as of ${base}` });
  }
  const named = [...(deleted ? [file] : []), ...held.map(({ finding }) => findingFile(resolved, finding))];
  const changes = named.length === 0 ? new Map<string, string>() : await lastChanges(root, named, new Set(await options.dirty()));
  const line = ({ finding, against }: Held) =>
    `${resolved.label}: ${finding.criterion}: ${finding.message} (${findingFile(resolved, finding)}, ${changes.get(findingFile(resolved, finding))}), against ${against}`;
  if (deleted) {
    // No lock now, but the base had one: deleting the lock turns the whole test lock off, the widest weakening
    // of all. Named, and the test is still held to the base's lock so each criterion it freed is listed.
    const gone = `${file}: deleted since ${base} (${changes.get(file)}), which turns the test lock off; restore it (git checkout ${base} -- ${file}), or if the task changed run elenchos lock --update ${resolved.label} and have the lock's diff reviewed`;
    return { file, problems: [gone, ...held.map(line)], notes: [] };
  }
  const lines = held.filter(({ against }) => against === file).map(line);
  if (stored!.lock.testFile !== resolved.testFileLabel) {
    lines.push(
      `${resolved.label}: verification.testFile moved from ${stored!.lock.testFile} to ${resolved.testFileLabel} without a lock update; run elenchos lock --update ${resolved.label}`,
    );
  }
  lines.push(...held.filter(({ against }) => against !== file).map(line));
  for (const commit of history?.changedAlone ?? []) {
    lines.push(
      `${file}: changed in ${commit} without a change of ${resolved.label}: a lock follows its contract; revert it, or change the contract in the same commit`,
    );
  }
  return { file, problems: lines, notes: compared.notes };
}

/** The file a finding is in: the test, unless it says. */
function findingFile(resolved: ResolvedTask, finding: LockFinding): string {
  return finding.file ?? resolved.testFileLabel;
}

/** What makes two findings the same problem (the one the current lock and the base's lock both name). */
function findingKey(resolved: ResolvedTask, finding: LockFinding): string {
  return JSON.stringify([finding.criterion, finding.message, findingFile(resolved, finding)]);
}
