// Can git still be trusted to report the worktree? An agent could hide files from `git status`
// (skip-worktree, assume-unchanged) or repoint the worktree at another repository.
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { commonGitDir, git, splitNul } from './git.js';

/** Files whose index flags hide them from `git status` (`ls-files -v`: lowercase = assume-unchanged, S = skip-worktree). */
export async function hiddenFiles(workspace: string): Promise<Set<string>> {
  const listed = splitNul(await git(['ls-files', '-v', '-z'], { cwd: workspace }));
  return new Set(listed.filter((entry) => /^[a-zS]/.test(entry)).map((entry) => entry.slice(2)));
}

/** The repository's shared .git directory as seen from `cwd` (also right for linked worktrees and submodules). */
async function commonDir(cwd: string): Promise<string> {
  return realpath(await commonGitDir(cwd));
}

/**
 * Ways the worktree at `workspace` no longer reports honestly to git; empty when it does. Files
 * hidden from the start (a sparse checkout) are in `baseline` and do not count.
 */
export async function worktreeIntegrity(workspace: string, root: string, baseline: ReadonlySet<string> = new Set()): Promise<string[]> {
  const problems: string[] = [];
  try {
    // Both answers from one git start: they print one per line, in the order asked.
    const [asked, repository] = await Promise.all([
      git(['rev-parse', '--show-toplevel', '--git-common-dir'], { cwd: workspace }),
      commonDir(root),
    ]);
    const [topLine = '', commonLine = ''] = asked.split('\n');
    const top = await realpath(topLine);
    if (top !== (await realpath(workspace))) problems.push(`the worktree's top level is now ${top}`);
    const mine = await realpath(path.resolve(workspace, commonLine));
    if (mine !== repository) problems.push(`the worktree now points at another repository (${mine})`);
  } catch (error) {
    return [`git no longer recognises the worktree (${error instanceof Error ? error.message : String(error)})`];
  }
  const hidden = [...(await hiddenFiles(workspace))].filter((file) => !baseline.has(file));
  if (hidden.length > 0) {
    const shown = hidden.slice(0, 5).join(', ') + (hidden.length > 5 ? ` and ${hidden.length - 5} more` : '');
    problems.push(`files hidden from git status (assume-unchanged / skip-worktree): ${shown}`);
  }
  return problems;
}
