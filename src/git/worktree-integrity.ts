// Can git still be trusted to report the worktree? An agent could hide files from `git status`
// (skip-worktree, assume-unchanged) or repoint the worktree at another repository.
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { git, splitNul } from './git.js';

/** Ways the worktree at `workspace` no longer reports honestly to git; empty when it does. */
export async function worktreeIntegrity(workspace: string, root: string): Promise<string[]> {
  const problems: string[] = [];
  let top: string;
  let common: string;
  try {
    const [a, b] = (await git(['rev-parse', '--show-toplevel', '--git-common-dir'], { cwd: workspace })).trim().split('\n');
    top = await realpath(a ?? '');
    common = await realpath(path.resolve(workspace, b ?? ''));
  } catch (error) {
    return [`git no longer recognises the worktree (${error instanceof Error ? error.message : String(error)})`];
  }
  const expectedCommon = await realpath(path.join(root, '.git')).catch(() => path.join(root, '.git'));
  if (top !== (await realpath(workspace))) problems.push(`the worktree's top level is now ${top}`);
  if (common !== expectedCommon) problems.push(`the worktree now points at another repository (${common})`);
  // `ls-files -v` tags: lowercase = assume-unchanged, S/s = skip-worktree; such files are invisible to status.
  const listed = splitNul(await git(['ls-files', '-v', '-z'], { cwd: workspace }));
  const hidden = listed.filter((entry) => /^[a-zS]/.test(entry)).map((entry) => entry.slice(2));
  if (hidden.length > 0) {
    const shown = hidden.slice(0, 5).join(', ') + (hidden.length > 5 ? ` and ${hidden.length - 5} more` : '');
    problems.push(`files hidden from git status (assume-unchanged / skip-worktree): ${shown}`);
  }
  return problems;
}
