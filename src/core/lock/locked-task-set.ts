// Which tasks count. A commit that only narrows the config's `tasks` to the passing ones leaves every lock
// in place and every test untouched, and `verify` would check only what passes. So a task whose test lock
// is in the commit (or in the `--lock-base` commit) cannot leave the set of tasks verified in silence: the
// lock says someone reviewed what this task must prove, and only a reviewed commit takes that back.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { lockFilesAmong, lockPathFor, taskOfLock } from '../../contract/test-lock-schema.js';
import { listCommitFiles } from '../../git/commit-files.js';

export interface LockedSetOptions {
  /** The config file whose `tasks` selected the set, for the message. */
  configLabel: string;
  /** `--lock-base <ref>`: its locks count too. */
  base?: string;
}

/**
 * One line per task whose lock is in `commit`'s tree (or in `options.base`'s) but which `selected`
 * (repository-relative task files) leaves out.
 */
export async function lockedTasksLeftOut(
  root: string,
  commit: string,
  selected: readonly string[],
  options: LockedSetOptions,
): Promise<string[]> {
  const chosen = new Set(selected);
  const inCommit = lockFilesAmong(await listCommitFiles(root, commit));
  const inBase = options.base ? lockFilesAmong(await listCommitFiles(root, options.base).catch(() => [])) : [];
  const problems: string[] = [];
  for (const lock of [...new Set([...inCommit, ...inBase])].sort()) {
    const task = taskOfLock(lock);
    if (chosen.has(task) || lockPathFor(task) !== lock) continue;
    const where = inCommit.includes(lock) ? `its test lock ${lock} is in the commit` : `its test lock ${lock} is in ${options.base}`;
    const gone = existsSync(path.join(root, task)) ? '' : ' (the task file is gone)';
    problems.push(
      `${task}: ${where}, but ${options.configLabel} "tasks" no longer selects it${gone}, so it would not be verified; a locked task cannot leave the set in silence: select it again, or remove the task and its lock in a commit a reviewer accepts`,
    );
  }
  return problems;
}
