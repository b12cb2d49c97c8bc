// Detached worktrees: where an agent works without touching the main checkout.
import { appendFile, chmod, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commonGitDir, git, gitBytes, splitNul } from './git.js';
import { ELENCHOS_DIR_NAME } from './layout-names.js';

/** Creates a detached worktree of `ref` at `dir` (parents created), leaving every branch alone. */
export async function addWorktree(root: string, dir: string, ref = 'HEAD'): Promise<void> {
  const target = path.resolve(root, dir);
  await mkdir(path.dirname(target), { recursive: true });
  await serialized(root, () => retryBusy(() => git(['worktree', 'add', '--quiet', '--detach', target, ref], { cwd: root })));
}

/** Removes the worktree at `dir`, even when dirty or half-gone; never throws when it is already gone. */
export async function removeWorktree(root: string, dir: string): Promise<void> {
  const target = path.resolve(root, dir);
  await serialized(root, async () => {
    try {
      await retryBusy(() => git(['worktree', 'remove', '--force', target], { cwd: root }));
      return;
    } catch {
      // Not a worktree any more, locked, or its .git file is broken: delete the files and
      // let git forget the registration on its own terms.
    }
    await rm(target, { recursive: true, force: true }).catch(async () => {
      // A folder the agent made read-only (chmod 500) keeps its files: ours to open up again.
      await openUp(target);
      await rm(target, { recursive: true, force: true });
    });
    await git(['worktree', 'prune'], { cwd: root }).catch(() => undefined);
  });
}

async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await openUp(path.join(dir, entry.name));
}

/** Moves the worktree at `from` to `to` (parents created): a rename, whatever the repository's size. */
export async function moveWorktree(root: string, from: string, to: string): Promise<void> {
  const target = path.resolve(root, to);
  await mkdir(path.dirname(target), { recursive: true });
  const move = () => git(['worktree', 'move', path.resolve(root, from), target], { cwd: root });
  await serialized(root, () =>
    retryBusy(() =>
      move().catch(async (error: Error) => {
        // The target's folder was deleted by hand (a pool slot, say) while git still lists it: forget what is gone, once.
        if (!/is a missing but already registered worktree/.test(error.message)) throw error;
        await git(['worktree', 'prune'], { cwd: root });
        return move();
      }),
    ),
  );
}

// Concurrent `git worktree add/remove` on one repository read each other's half-written
// .git/worktrees/<name>/ entries ("failed to read …/commondir"): one at a time per repository here,
// and a few retries for other processes doing the same.
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(root: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(root) ?? Promise.resolve();
  const next = previous.then(work, work);
  queues.set(
    root,
    next.catch(() => undefined),
  );
  return next;
}

const BUSY = /failed to read .*commondir|could not lock|index\.lock|Unable to create .*\.lock|is locked/i;

async function retryBusy<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      if (i >= attempts || !BUSY.test(String((error as Error).message))) throw error;
      await sleep(100 * i);
    }
  }
}

export interface WorktreeInfo {
  path: string;
  /** Commit checked out; empty for a bare repository entry. */
  head: string;
  detached: boolean;
  branch: string | null;
  bare: boolean;
  locked: boolean;
  /** Git thinks the directory is gone and `git worktree prune` would drop it. */
  prunable: boolean;
}

/** Every worktree git knows about, the main checkout first (`git worktree list --porcelain -z`). */
export async function listWorktrees(root: string): Promise<WorktreeInfo[]> {
  const fields = splitNul(await gitBytes(['worktree', 'list', '--porcelain', '-z'], { cwd: root }));
  const worktrees: WorktreeInfo[] = [];
  let current: WorktreeInfo | undefined;
  for (const field of fields) {
    if (field === '') {
      current = undefined; // a blank field ends one record
      continue;
    }
    const space = field.indexOf(' ');
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = { path: value, head: '', detached: false, branch: null, bare: false, locked: false, prunable: false };
      worktrees.push(current);
    } else if (current) {
      if (key === 'HEAD') current.head = value;
      else if (key === 'detached') current.detached = true;
      else if (key === 'branch') current.branch = value;
      else if (key === 'bare') current.bare = true;
      else if (key === 'locked') current.locked = true;
      else if (key === 'prunable') current.prunable = true;
    }
  }
  return worktrees;
}

/** Adds `pattern` to the repository's `info/exclude` unless a line already says it; returns whether it wrote. */
export async function ensureExcluded(root: string, pattern = `${ELENCHOS_DIR_NAME}/`): Promise<boolean> {
  // info/ lives in the common dir (what `git rev-parse --git-path info/exclude` says), so this also
  // works from inside a linked worktree; the common dir is asked once per process.
  const file = path.join(await commonGitDir(root), 'info', 'exclude');
  const current = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  if (current.split(/\r?\n/).some((line) => line.trim() === pattern)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${separator}${pattern}\n`);
  return true;
}
