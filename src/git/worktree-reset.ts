// Bringing a used worktree back to a commit, provably as clean as `git worktree add` would make it.
import { constants } from 'node:fs';
import { access, chmod, readFile, readdir, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { commonGitDir, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';

/**
 * An index as git left it, with the index file's own mtime: git counts an entry whose file is as new as
 * the index (same second) as "racily clean" and compares its content. Written back with a new mtime,
 * the same bytes would vouch for a file rewritten within that second (its old mtime put back, its size
 * kept): so the time goes back with the bytes.
 */
export interface TrustedIndex {
  bytes: Buffer;
  /** The index file's mtime in whole seconds (rounded down: never later than git saw it). */
  mtimeS: number;
}

export type ResetResult = { ok: true; index: TrustedIndex } | { ok: false; reason: string };

export interface ResetOptions {
  /** Repository-relative paths kept across uses (setup.cache paths); everything else untracked or ignored goes. */
  keep: readonly string[];
  /** The index this worktree had when it was last proven clean (ours, never the agent's copy). */
  trustedIndex: TrustedIndex;
}

// Every git call of ours already pins what an agent could plant to make git trust stale stat data, run its
// fsmonitor or hooks (SAFE_GIT_CONFIG, git/git.ts). A reset must also walk the whole tree, whatever
// sparse checkout the agent switched on.
const WHOLE_TREE = ['-c', 'core.sparseCheckout=false'];

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
 *
 * When HEAD is still `base`, one `git status` against the trusted index says what the last use left:
 * what it lists untracked or ignored is removed here rather than by a `git clean` walking the tree
 * again, and the checkout runs only when a tracked file differs (a `verify` task changes none). When
 * HEAD moved, checkout and clean as always. Either way the same proof closes it: a second status
 * listing nothing outside `keep`, and HEAD naming `base`.
 */
export async function resetWorktree(root: string, dir: string, base: string, options: ResetOptions): Promise<ResetResult> {
  try {
    const admin = await adminDir(root, dir);
    if (typeof admin !== 'string') return admin;
    const foreign = (await readdir(admin)).filter((name) => !ADMIN_FILES.has(name));
    if (foreign.length > 0) return { ok: false, reason: `unexpected git state in its admin folder: ${foreign.sort().join(', ')}` };
    // The agent's index and reflog are not evidence of anything: ours goes back, its history goes.
    await writeFile(path.join(admin, 'index'), options.trustedIndex.bytes);
    await utimes(path.join(admin, 'index'), options.trustedIndex.mtimeS, options.trustedIndex.mtimeS);
    for (const name of HISTORY) await rm(path.join(admin, name), { recursive: true, force: true });
    const kept = options.keep.map(trimSlashes);
    // What git cannot see (an unreadable folder, a FIFO, a socket, an empty folder) before git looks.
    await clearWhatGitCannotSee(dir, kept);
    // HEAD elsewhere (a new base, an agent's commit): the checkout walks the tree anyway, status first would not help.
    const found = (await detachedHead(admin)) === base ? await statusEntries(dir) : null;
    const untracked = (entry: string) => entry.startsWith('?? ') || entry.startsWith('!! ');
    const tracked = found?.some((entry) => !untracked(entry)) ?? true;
    const extra = (found ?? [])
      .filter(untracked)
      .map((entry) => trimSlashes(entry.slice(3)))
      .filter((p) => !isUnderPrefix(p, kept));
    // A listed folder holding a kept path (`build/` around `build/cache`) is git clean's to thin out.
    const aroundKept = extra.some((p) => kept.some((k) => k.startsWith(`${p}/`)));
    if (found === null || aroundKept) {
      await gitBytes([...WHOLE_TREE, 'checkout', '--quiet', '--detach', '--force', base], { cwd: dir });
      const excludes = options.keep.flatMap((p) => ['-e', `/${trimSlashes(p)}`]);
      await gitBytes([...WHOLE_TREE, 'clean', '-ffdxq', ...excludes], { cwd: dir });
    } else {
      // Each one as git named it (a whole untracked or ignored folder, a nested repository): never
      // followed through a symlink, since git lists a symlink as itself and never descends into one.
      for (const p of extra) await rm(path.join(dir, p), { recursive: true, force: true });
      if (tracked) await gitBytes([...WHOLE_TREE, 'checkout', '--quiet', '--detach', '--force', base], { cwd: dir });
    }
    if (tracked || extra.length > 0) {
      const left = (await statusEntries(dir)).map((entry) => entry.slice(3)).filter((p) => !isUnderPrefix(trimSlashes(p), kept));
      if (left.length > 0) return { ok: false, reason: `not clean after the reset: ${left.slice(0, 5).join(', ')}` };
    }
    const head = await detachedHead(admin);
    if (head !== base)
      return { ok: false, reason: `HEAD is ${head.slice(0, 12) || 'not a commit'} after the reset, not ${base.slice(0, 12)}` };
    return { ok: true, index: await readIndex(admin) };
  } catch (error) {
    return { ok: false, reason: `the reset failed: ${(error as Error).message.split('\n')[0]}` };
  }
}

// Bounds the repairs of one walk: each unreadable folder made readable costs one more walk.
const MAX_UNREADABLE = 64;

/**
 * Walks the worktree (outside `.git` and the kept paths) for what `git status` and `git clean` never
 * report, which would carry into the next run: a folder we cannot read or search (mode 0311,
 * 0600: git skips it silently) is made readable, so git lists what it holds; FIFOs, sockets and devices are
 * removed; empty folders are removed (a fresh checkout has none). A folder that stays unreadable throws: not clean.
 *
 * The walk reads each folder's entries with their types (readdir's, not one lstat per file: on a large
 * tree that is ten times cheaper); whether we may read and search a folder is asked of each folder alone.
 */
async function clearWhatGitCannotSee(dir: string, kept: readonly string[]): Promise<void> {
  const ignore = ['.git', ...kept].flatMap((p) => [p, `${p}/**`]);
  for (let repaired = 0; ; repaired++) {
    let entries: fg.Entry[];
    try {
      entries = await fg('**', {
        cwd: dir,
        dot: true,
        onlyFiles: false,
        followSymbolicLinks: false,
        objectMode: true,
        ignore,
        suppressErrors: false,
      });
    } catch (error) {
      const { code, path: failed, syscall } = error as NodeJS.ErrnoException;
      // scandir names the folder it cannot read (or one below a folder it cannot search); lstat an entry of one it cannot search.
      const where = failed && syscall === 'lstat' ? path.dirname(failed) : failed;
      if (code !== 'EACCES' || !where || repaired >= MAX_UNREADABLE || !where.startsWith(`${dir}/`)) throw error;
      await chmod((await firstClosed(dir, where)) ?? where, 0o755); // ours (same user): readable again, so the reset sees and removes what it holds
      continue;
    }
    const folders: string[] = [];
    const holding = new Set<string>(); // folders with a file or a symlink somewhere below
    for (const { path: entryPath, dirent } of entries) {
      if (dirent.isDirectory()) folders.push(entryPath);
      else if (!dirent.isFile() && !dirent.isSymbolicLink()) await rm(path.join(dir, entryPath), { force: true });
      else for (let up = path.posix.dirname(entryPath); up !== '.' && !holding.has(up); up = path.posix.dirname(up)) holding.add(up);
    }
    // A folder listed but not searchable (0600): its entries are names git cannot stat. Made searchable, walked again.
    const closed = await firstClosedOf(dir, folders);
    if (closed !== null) {
      if (repaired >= MAX_UNREADABLE) throw new Error(`${closed}: still not readable after ${MAX_UNREADABLE} folders were made readable`);
      await chmod(closed, 0o755);
      continue;
    }
    // Deepest first, so a folder holding only empty folders goes too; one holding anything else stays (its rmdir
    // would fail ENOTEMPTY anyway, so only folders with nothing but folders below are tried).
    // An uninitialised submodule is an empty folder in a fresh checkout too: it stays.
    const empty = folders.filter((f) => !holding.has(f));
    const gitlinks = empty.length > 0 ? await submodulePaths(dir) : new Set<string>();
    for (const folder of empty.filter((f) => !gitlinks.has(f)).sort((a, b) => b.length - a.length)) {
      await rmdir(path.join(dir, folder)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    }
    return;
  }
}

/** The first of `folders` (relative to `dir`) this process may not read and search, absolute; null when there is none. */
async function firstClosedOf(dir: string, folders: readonly string[]): Promise<string | null> {
  for (const folder of folders) {
    const at = path.join(dir, folder);
    if (!(await canEnter(at))) return at;
  }
  return null;
}

/** The shallowest folder from `dir` down to `where` that this process may not read and search, or null. */
async function firstClosed(dir: string, where: string): Promise<string | null> {
  const parts = path.relative(dir, where).split(path.sep);
  for (let i = 1; i <= parts.length; i++) {
    const at = path.join(dir, ...parts.slice(0, i));
    if (!(await canEnter(at))) return at;
  }
  return null;
}

const canEnter = (folder: string): Promise<boolean> =>
  access(folder, constants.R_OK | constants.X_OK).then(
    () => true,
    () => false,
  );

/** Paths the index has as gitlinks (submodules, mode 160000). */
async function submodulePaths(dir: string): Promise<Set<string>> {
  const out = await gitBytes([...WHOLE_TREE, 'ls-files', '-z', '--stage'], { cwd: dir });
  return new Set(
    splitNul(out)
      .filter((record) => record.startsWith('160000 '))
      .map((record) => record.slice(record.indexOf('\t') + 1)),
  );
}

/** The commit a detached HEAD names (`git checkout --detach` writes it alone on the line), else ''. */
async function detachedHead(admin: string): Promise<string> {
  const text = await readFile(path.join(admin, 'HEAD'), 'utf8').catch(() => '');
  return /^[0-9a-f]{40}(?:[0-9a-f]{24})?\n?$/.test(text) ? text.trim() : '';
}

/** The index of the worktree at `dir` as it is now: trusted only right after `git worktree add` or a reset. */
export async function readWorktreeIndex(root: string, dir: string): Promise<TrustedIndex> {
  const admin = await adminDir(root, dir);
  if (typeof admin !== 'string') throw new Error(admin.reason);
  return readIndex(admin);
}

async function readIndex(admin: string): Promise<TrustedIndex> {
  const file = path.join(admin, 'index');
  const before = await stat(file);
  const bytes = await readFile(file);
  return { bytes, mtimeS: Math.floor(before.mtimeMs / 1000) };
}

/**
 * A worktree of `root`'s own (fresh or taken from the pool): its common git folder (asked once per
 * process) and its admin folder, read from its `.git` link and proven to link back, as the take proves
 * it; what `git rev-parse --git-common-dir --git-dir` would answer there, without a git start.
 * Undefined when that proof fails.
 */
export async function worktreeGitDirs(root: string, dir: string): Promise<{ commonDir: string; gitDir: string } | undefined> {
  const admin = await adminDir(root, dir).catch(() => null);
  if (typeof admin !== 'string') return undefined; // not provable here (a path through a symlink): git is asked instead
  return { commonDir: await commonGitDir(root), gitDir: admin };
}

/** A worktree's git folders, proven to be `root`'s (worktreeGitDirs), and its index as it is now. */
export interface WorktreeBaseline {
  dirs: { commonDir: string; gitDir: string } | undefined;
  index: TrustedIndex;
}

/** Proves `dir`'s git folders once and reads its index from them (a run's baselines); throws when they cannot be proven. */
export async function worktreeBaseline(root: string, dir: string): Promise<WorktreeBaseline> {
  const dirs = await worktreeGitDirs(root, dir);
  // Not provable: readWorktreeIndex throws and says why.
  return { dirs, index: dirs ? await readIndex(dirs.gitDir) : await readWorktreeIndex(root, dir) };
}

/** The admin folder `dir/.git` names, if and only if it is one of `root`'s and names `dir` back. */
async function adminDir(root: string, dir: string): Promise<string | { ok: false; reason: string }> {
  const dotGit = await readFile(path.join(dir, '.git'), 'utf8').catch(() => null);
  const match = dotGit?.match(/^gitdir: (.+)\n?$/);
  if (!match) return { ok: false, reason: 'its .git is not a worktree link' };
  const admin = match[1]!;
  const common = await commonGitDir(root);
  if (path.dirname(admin) !== path.join(common, 'worktrees')) return { ok: false, reason: `its .git points elsewhere (${admin})` };
  const back = (await readFile(path.join(admin, 'gitdir'), 'utf8').catch(() => '')).trim();
  if (back !== path.join(dir, '.git')) return { ok: false, reason: 'git does not know it at this place' };
  return admin;
}

/** What `git status` reports (changed, untracked, ignored), each as `XY path`. */
async function statusEntries(dir: string): Promise<string[]> {
  const out = await gitBytes(
    [...WHOLE_TREE, 'status', '--porcelain', '-z', '--ignored=matching', '--untracked-files=normal', '--no-renames'],
    {
      cwd: dir,
    },
  );
  return splitNul(out).filter(Boolean);
}

function trimSlashes(p: string): string {
  return p.replace(/^\/+|\/+$/g, '');
}
