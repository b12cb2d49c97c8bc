// Which files under some paths git tracks: the setup cache never removes or replaces tracked content.
import { git, splitNul } from './git.js';

/** The tracked files (index) at or under `relPaths` in the worktree `cwd`; empty when none. */
export async function trackedUnder(cwd: string, relPaths: readonly string[]): Promise<string[]> {
  if (relPaths.length === 0) return [];
  const out = await git(['--literal-pathspecs', 'ls-files', '--cached', '-z', '--', ...relPaths], { cwd });
  return splitNul(out);
}

// A commit names its tree: which of its files lie under some paths never changes, asked once per process.
const inCommits = new Map<string, Promise<string[]>>();

/**
 * The files of `commit` at or under `relPaths` (asked in `cwd`, any worktree of the repository). For a
 * worktree just checked out or reset to `commit` and nothing run in it yet, its index is that tree:
 * the same answer as trackedUnder, without a git start per task once the commit was asked.
 */
export function trackedInCommit(cwd: string, commit: string, relPaths: readonly string[]): Promise<string[]> {
  if (relPaths.length === 0) return Promise.resolve([]);
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return trackedUnder(cwd, relPaths);
  const key = [commit, ...relPaths].join('\0');
  let found = inCommits.get(key);
  if (!found) {
    found = git(['--literal-pathspecs', 'ls-tree', '-r', '--name-only', '-z', commit, '--', ...relPaths], { cwd }).then(splitNul);
    found.catch(() => inCommits.delete(key));
    inCommits.set(key, found);
  }
  return found;
}
