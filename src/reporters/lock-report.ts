// Human output of `elenchos lock`.
import { writeLine, type CliIO } from '../cli-io.js';
import type { LockTasksResult } from '../core/lock/lock-tasks.js';

const SAID = {
  created: 'written',
  unchanged: 'unchanged',
  updated: 'updated',
  refused: 'differs, not written',
} as const;

/** One line per task, its weakenings and notes indented under it, and what to do next. */
export function renderLockResult(result: LockTasksResult, io: CliIO): void {
  for (const task of result.tasks) {
    writeLine(io.stdout, `${task.status === 'refused' ? '✗' : '✓'} ${task.file}  ${SAID[task.status]}`);
    for (const line of task.weakenings) writeLine(io.stdout, `  ${task.status === 'updated' ? 'accepted' : 'would accept'}: ${line}`);
    for (const line of task.notes) writeLine(io.stdout, `  note: ${line}`);
  }
  const refused = result.tasks.filter((t) => t.status === 'refused');
  if (refused.length > 0) {
    writeLine(
      io.stdout,
      `${refused.length} lock(s) differ from the tests as they stand; if the change is intended, run elenchos lock --update ${refused.map((t) => t.task).join(' ')} and commit the lock with it for review`,
    );
  } else if (result.tasks.some((t) => t.status !== 'unchanged')) {
    writeLine(io.stdout, 'commit the lock file(s) beside their tasks: elenchos verify and check hold the tests to them');
  }
}
