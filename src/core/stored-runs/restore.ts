// `elenchos restore`: an attempt's exact tree back, from base commit + diff.patch + untracked files.
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { attemptDir, attemptPaths, restoredDir } from '../../evidence/layout.js';
import { restoreWorkspace } from '../../git/workspace-archive.js';
import { showStoredRun } from './inspect-runs.js';

/** Restores attempt `attempt` (default: the last one that ran the agent) of a run into a new worktree. */
export async function restoreAttempt(options: { cwd: string; runId: string; attempt?: number; to?: string }) {
  const shown = await showStoredRun(options.cwd, options.runId);
  const withWorkspace = [];
  for (const a of shown.record.attempts) {
    const has = await access(attemptPaths(attemptDir(shown.dir, a.number)).baseTxt).then(
      () => true,
      () => false,
    );
    if (has) withWorkspace.push(a.number);
  }
  const attempt = options.attempt ?? withWorkspace.at(-1);
  if (attempt === undefined || !withWorkspace.includes(attempt)) {
    const known =
      withWorkspace.length > 0 ? `attempts with a stored workspace: ${withWorkspace.join(', ')}` : 'no attempt stored a workspace';
    throw new InputError(`run ${shown.record.runId}: attempt ${attempt ?? '?'} has no stored workspace (${known})`);
  }
  const dir = options.to ? path.resolve(options.cwd, options.to) : restoredDir(shown.root, shown.record.runId, attempt);
  if (
    await access(dir).then(
      () => true,
      () => false,
    )
  ) {
    throw new InputError(
      `${dir} already exists (restored before?): use it as it is, remove it with git worktree remove --force ${dir}, or restore elsewhere with --to <dir>`,
    );
  }
  // `--to` is the user's path: a file on the way (`plain.txt/below`), a name too long, a folder that cannot
  // be written are one line, not git's failure. Made empty here (git adds a worktree into an empty folder).
  await mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `--to ${dir}: that folder cannot be made (${error.code ?? String(error)}); restore to a path in a writable folder`,
      {
        cause: error,
      },
    );
  });
  const restored = await restoreWorkspace(shown.root, attemptDir(shown.dir, attempt), dir);
  return { runId: shown.record.runId, attempt, dir, base: restored.base };
}
