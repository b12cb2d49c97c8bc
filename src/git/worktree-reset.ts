// Bringing a used worktree back to a commit, provably as clean as `git worktree add` would make it.
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';

export type ResetResult = { ok: true; index: Buffer } | { ok: false; reason: string };

export interface ResetOptions {
  /** Repository-relative paths kept across uses (setup.cache paths); everything else untracked or ignored goes. */
  keep: readonly string[];
  /** The index this worktree had when it was last proven clean (ours, never the agent's copy). */
  trustedIndex: Buffer;
}

// Settings an agent could have planted to make git trust stale stat data or skip a walk: pinned for our own
// commands (through execa: simple-git refuses to set core.fsmonitor at all, even to false).
const PINNED = [
  '-c',
  'core.trustctime=true',
  '-c',
  'core.checkStat=default',
  '-c',
  'core.ignoreStat=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.sparseCheckout=false',
  '-c',
  'core.hooksPath=/dev/null',
];

// What `git worktree add` + checkout leave in .git/worktrees/<name>/. Anything else (config.worktree,
// info/sparse-checkout, refs/bisect, rebase-merge, MERGE_HEAD, a `locked` file, an index.lock) is state
// a fresh worktree would not have: the worktree is not proven clean.
const ADMIN_FILES = new Set(['HEAD', 'commondir', 'gitdir', 'index', ...'ORIG_HEAD COMMIT_EDITMSG FETCH_HEAD logs'.split(' ')]);
// Left by an ordinary commit or fetch and read by nothing a run does, but not what a fresh worktree has: deleted.
const HISTORY = ['ORIG_HEAD', 'COMMIT_EDITMSG', 'FETCH_HEAD', 'logs'];

/**
 * Resets the worktree at `dir` to `base` and removes every untracked and ignored file outside
 * `keep`, in time proportional to what changed: the trusted index (written by us when the worktree
 * was last clean) makes git restat, not rehash, what did not change; a file rewritten since has a
 * new ctime that no unprivileged process can forge. Never throws for a dirty or tampered worktree:
 * `{ ok: false, reason }` says why it cannot be reused.
 */
export async function resetWorktree(root: string, dir: string, base: string, options: ResetOptions): Promise<ResetResult> {
  try {
    const admin = await adminDir(root, dir);
    if (typeof admin !== 'string') return admin;
    const foreign = (await readdir(admin)).filter((name) => !ADMIN_FILES.has(name));
    if (foreign.length > 0) return { ok: false, reason: `unexpected git state in its admin folder: ${foreign.sort().join(', ')}` };
    // The agent's index and reflog are not evidence of anything: ours goes back, its history goes.
    await writeFile(path.join(admin, 'index'), options.trustedIndex);
    for (const name of HISTORY) await rm(path.join(admin, name), { recursive: true, force: true });
    await gitBytes([...PINNED, 'checkout', '--quiet', '--detach', '--force', base], { cwd: dir });
    const excludes = options.keep.flatMap((p) => ['-e', `/${trimSlashes(p)}`]);
    await gitBytes([...PINNED, 'clean', '-ffdxq', ...excludes], { cwd: dir });
    const left = await leftovers(dir, options.keep);
    if (left.length > 0) return { ok: false, reason: `not clean after the reset: ${left.slice(0, 5).join(', ')}` };
    const head = (await git(['rev-parse', 'HEAD'], { cwd: dir })).trim();
    if (head !== base) return { ok: false, reason: `HEAD is ${head.slice(0, 12)} after the reset, not ${base.slice(0, 12)}` };
    return { ok: true, index: await readFile(path.join(admin, 'index')) };
  } catch (error) {
    return { ok: false, reason: `the reset failed: ${(error as Error).message.split('\n')[0]}` };
  }
}

/** The index of the worktree at `dir` as it is now: trusted only right after `git worktree add` or a reset. */
export async function readWorktreeIndex(root: string, dir: string): Promise<Buffer> {
  const admin = await adminDir(root, dir);
  if (typeof admin !== 'string') throw new Error(admin.reason);
  return readFile(path.join(admin, 'index'));
}

/** The admin folder `dir/.git` names, if and only if it is one of `root`'s and names `dir` back. */
async function adminDir(root: string, dir: string): Promise<string | { ok: false; reason: string }> {
  const dotGit = await readFile(path.join(dir, '.git'), 'utf8').catch(() => null);
  const match = dotGit?.match(/^gitdir: (.+)\n?$/);
  if (!match) return { ok: false, reason: 'its .git is not a worktree link' };
  const admin = match[1]!;
  const common = path.resolve(root, (await git(['rev-parse', '--git-common-dir'], { cwd: root })).trim());
  if (path.dirname(admin) !== path.join(common, 'worktrees')) return { ok: false, reason: `its .git points elsewhere (${admin})` };
  const back = (await readFile(path.join(admin, 'gitdir'), 'utf8').catch(() => '')).trim();
  if (back !== path.join(dir, '.git')) return { ok: false, reason: 'git does not know it at this place' };
  return admin;
}

/** Every path `git status` still reports (untracked, ignored or changed) that is not under a kept path. */
async function leftovers(dir: string, keep: readonly string[]): Promise<string[]> {
  const out = await gitBytes([...PINNED, 'status', '--porcelain', '-z', '--ignored=matching', '--untracked-files=normal', '--no-renames'], {
    cwd: dir,
  });
  const kept = keep.map(trimSlashes);
  return splitNul(out)
    .filter(Boolean)
    .map((entry) => entry.slice(3))
    .filter((p) => !isUnderPrefix(trimSlashes(p), kept));
}

function trimSlashes(p: string): string {
  return p.replace(/^\/+|\/+$/g, '');
}
