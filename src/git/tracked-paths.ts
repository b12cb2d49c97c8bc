// Which files under some paths git tracks: the setup cache never removes or replaces tracked content.
import { git, splitNul } from './git.js';

/** The tracked files (index) at or under `relPaths` in the worktree `cwd`; empty when none. */
export async function trackedUnder(cwd: string, relPaths: readonly string[]): Promise<string[]> {
  if (relPaths.length === 0) return [];
  const out = await git(['--literal-pathspecs', 'ls-files', '--cached', '-z', '--', ...relPaths], { cwd });
  return splitNul(out);
}
