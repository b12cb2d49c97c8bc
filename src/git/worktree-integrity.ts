// Can git still be trusted to report the worktree? An agent could hide files from `git status`
// (skip-worktree, assume-unchanged) or repoint the worktree at another repository.
import path from 'node:path';
import { mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { commonGitDir, git, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';
import { ELENCHOS_DIR } from './status.js';
import type { TrustedIndex } from './worktree-reset.js';

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
 * hidden from the start (a sparse checkout) are in `baseline` and do not count. `baseline: 'fresh'`:
 * the caller listed the hidden files as its baseline just before, with nothing of anyone's run
 * between (a verify's first attempt): there is nothing new to find, and `ls-files -v` is not asked again.
 */
export async function worktreeIntegrity(
  workspace: string,
  root: string,
  baseline: ReadonlySet<string> | 'fresh' = new Set(),
): Promise<string[]> {
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
  if (baseline === 'fresh') return problems;
  const hidden = [...(await hiddenFiles(workspace))].filter((file) => !baseline.has(file));
  if (hidden.length > 0) {
    const shown = hidden.slice(0, 5).join(', ') + (hidden.length > 5 ? ` and ${hidden.length - 5} more` : '');
    problems.push(`files hidden from git status (assume-unchanged / skip-worktree): ${shown}`);
  }
  return problems;
}

/**
 * Tracked paths whose content differs from HEAD although `listed` (what `git status` said through the
 * worktree's own index) does not name them. The index is the agent's file: an entry can claim HEAD's
 * blob while carrying the stat data of an edited file (written by hand, or by a checkout through a
 * smudge filter or a replace ref), and git then never reads the file. `trusted` is the index as it was
 * before the agent's turn (its mtime put back too, so git's racy check still applies): a file rewritten
 * since has a new ctime no process can forge, so git rehashes exactly what was touched.
 */
export async function hiddenEdits(
  workspace: string,
  trusted: TrustedIndex,
  listed: readonly string[],
  exclude: readonly string[] = [],
): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'elenchos-index-'));
  try {
    const indexFile = path.join(dir, 'index');
    await writeFile(indexFile, trusted.bytes);
    await utimes(indexFile, trusted.mtimeS, trusted.mtimeS);
    const args = ['diff', 'HEAD', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none'];
    const differ = splitNul(await gitBytes(args, { cwd: workspace, indexFile }));
    const known = new Set(listed);
    const prefixes = [ELENCHOS_DIR, ...exclude];
    return differ.filter((p) => !known.has(p) && !isUnderPrefix(p, prefixes)).sort();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
