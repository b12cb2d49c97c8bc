// Warm worktrees (docs/performance.md): a bounded pool of idle detached worktrees under .elenchos/pool/, so a run or
// a verify task starts from a reset of what changed instead of a checkout of the whole repository.
// An idle worktree lives in a numbered slot; taking one moves it to the run's own workspace path
// (so everything else, gc included, sees an ordinary run worktree) and releasing resets it at once (an
// idle slot holds nothing of the last agent's: no untracked `.env.local`, no commit message, no reflog)
// and moves it back. The take resets it again: what happened to an idle slot is no more trusted than that.
import { access, mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { poolDir } from '../../evidence/layout.js';
import { resetWorktree, readWorktreeIndex, type TrustedIndex } from '../../git/worktree-reset.js';
import { addWorktree, moveWorktree, removeWorktree } from '../../git/worktree.js';
import { recordOwnIndex } from './pool-guard.js';
import { pruneKeptPaths } from './setup-cache-prune.js';
import type { SetupCacheSpec } from './setup-cache-key.js';
import { scanEscapedProcesses } from '../../process/escaped-processes.js';
import { tryExclusiveLock } from '../../process/exclusive-lock.js';

export interface TakeWorktreeOptions {
  root: string;
  /** Where the run's worktree goes (`.elenchos/workspaces/<runId>`). */
  target: string;
  /** The commit it must hold. */
  base: string;
  /** setup.cache paths that survive the reset (the setup cache verifies their content, not the pool). */
  keep: readonly string[];
}

export interface TakenWorktree {
  /** The slot it came from (`.elenchos/pool/<n>`), or null for a fresh `git worktree add`. */
  reusedFrom: string | null;
  /** Idle worktrees thrown away on the way, and why. */
  discarded: { slot: string; reason: string }[];
  /** The index as it was right after the checkout or the reset: what the next reset trusts. */
  index: TrustedIndex;
}

/** Puts a clean worktree of `base` at `target`: a warm one from the pool when one can be proven clean, else a fresh one. */
export async function takeWorktree(options: TakeWorktreeOptions): Promise<TakenWorktree> {
  const { root, target, base, keep } = options;
  const discarded: TakenWorktree['discarded'] = [];
  for (const slot of await listSlots(root)) {
    const claimed = await claimSlot(root, slot, target);
    if (claimed.state === 'busy') continue;
    if (claimed.state === 'discarded') {
      discarded.push({ slot, reason: claimed.reason });
      continue;
    }
    const reset = await resetWorktree(root, target, base, { keep, trustedIndex: claimed.index });
    if (reset.ok) return { reusedFrom: slot, discarded, index: reset.index };
    discarded.push({ slot, reason: reset.reason });
    await removeWorktree(root, target);
    break; // one failed reset is enough: a fresh worktree costs less than a second one
  }
  await addWorktree(root, target, base);
  return { reusedFrom: null, discarded, index: await readWorktreeIndex(root, target) };
}

export interface ReturnWorktreeOptions {
  root: string;
  /** The run's worktree, its processes already stopped. */
  dir: string;
  /** From `takeWorktree`: the index the reset on return trusts. */
  index: TrustedIndex;
  /** The commit the run started from: what the worktree is reset to before it goes idle. */
  base: string;
  /** setup.cache paths that survive the reset, as for `takeWorktree`. */
  keep: readonly string[];
  /**
   * The setup cache that vouches for what `keep` holds (its folder and the setup's spec); without it
   * nothing does, and the kept paths go with the rest.
   */
  cache?: { dir: string; spec: SetupCacheSpec; keyFile: string };
  /** worktreePool.size: most idle worktrees kept. */
  size: number;
}

export interface ReturnedWorktree {
  pooled: string | null;
  reason: string | null;
  /** What went from the kept paths because the setup cache does not vouch for it (null: nothing). */
  dropped: string | null;
}

/**
 * Resets a used worktree (nothing the agent wrote stays on disk: untracked, ignored, its commits and
 * reflog, and under the kept setup.cache paths whatever the setup cache does not vouch for) and moves
 * it into a free slot of the pool, or removes it when the pool is full, the reset fails or something
 * still runs inside.
 */
export async function returnWorktree(options: ReturnWorktreeOptions): Promise<ReturnedWorktree> {
  try {
    return await returnOrRemove(options);
  } catch (error) {
    // Whatever went wrong (a full disk, an unreadable pool folder), the run's worktree must not stay behind.
    await removeWorktree(options.root, options.dir);
    return { pooled: null, reason: `the pool could not take it: ${(error as Error).message.split('\n')[0]}`, dropped: null };
  }
}

async function returnOrRemove(options: ReturnWorktreeOptions): Promise<ReturnedWorktree> {
  const { root, dir, index, base, keep, size } = options;
  const removed = (reason: string): ReturnedWorktree => ({ pooled: null, reason, dropped: null });
  const inside = processInside(dir, 'is still inside');
  if (inside) {
    await removeWorktree(root, dir);
    return removed(inside);
  }
  if (size > 0) await mkdir(poolDir(root), { recursive: true });
  for (let n = 0; n < size; n++) {
    const slot = path.join(poolDir(root), String(n));
    const lock = await tryExclusiveLock(`${slot}.lock`);
    if (!lock) continue;
    try {
      if (await exists(slot)) continue;
      // Under the slot's lock, so a full pool costs no reset: the worktree is removed whole instead.
      const reset = await resetWorktree(root, dir, base, { keep, trustedIndex: index });
      if (!reset.ok) {
        await removeWorktree(root, dir);
        return removed(`it could not be reset: ${reset.reason}`);
      }
      // After the reset: the key files are the base's again, the ones the kept paths were set up for.
      const spec = options.cache?.spec ?? { command: '', key: [], paths: keep };
      const pruned = await pruneKeptPaths(dir, { ...spec, paths: keep }, options.cache);
      await writeTrustedIndex(`${slot}.index`, reset.index);
      await moveWorktree(root, dir, slot);
      return { pooled: slot, reason: null, dropped: describePrune(keep, pruned) };
    } catch (error) {
      await rm(`${slot}.index`, { force: true });
      await removeWorktree(root, dir);
      return removed(`it could not be moved: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      await lock.release();
    }
  }
  await removeWorktree(root, dir);
  return removed('the pool is full');
}

function describePrune(keep: readonly string[], pruned: Awaited<ReturnType<typeof pruneKeptPaths>>): string | null {
  if (!pruned.kept) return `${keep.join(', ')} (${pruned.reason})`;
  if (pruned.dropped.length === 0) return null;
  const more = pruned.dropped.length > 3 ? ` and ${pruned.dropped.length - 3} more` : '';
  return `${pruned.dropped.slice(0, 3).join(', ')}${more} (not in the setup cache's entry)`;
}

/** Removes idle pooled worktrees from slot `keep` on (all with 0), skipping slots another process is using; returns what it removed. */
export async function trimPool(root: string, keep: number, dryRun = false): Promise<string[]> {
  const removed: string[] = [];
  for (const slot of await listSlots(root)) {
    if (Number(path.basename(slot)) < keep) continue;
    const lock = await tryExclusiveLock(`${slot}.lock`);
    if (!lock) continue;
    try {
      if (!(await exists(slot))) continue;
      removed.push(slot);
      if (dryRun) continue;
      await removeWorktree(root, slot);
      await rm(`${slot}.index`, { force: true });
    } finally {
      await lock.release();
    }
  }
  return removed;
}

/** Writes a slot's trusted index with the index's mtime too (see TrustedIndex: the claim reads both back), marked as the pool's own. */
async function writeTrustedIndex(file: string, index: TrustedIndex): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    await handle.writeFile(index.bytes);
    await handle.utimes(index.mtimeS, index.mtimeS);
    // Marked through the same open file: what is recorded is this write, not whatever is at the path by then.
    recordOwnIndex(file, await handle.stat());
  } finally {
    await handle.close();
  }
}

type Claim = { state: 'busy' } | { state: 'discarded'; reason: string } | { state: 'claimed'; index: TrustedIndex };

/** Under the slot's lock: moves its worktree to `target` with the index trusted for it, or throws it away. */
async function claimSlot(root: string, slot: string, target: string): Promise<Claim> {
  const lock = await tryExclusiveLock(`${slot}.lock`);
  if (!lock) return { state: 'busy' };
  try {
    if (!(await exists(slot))) return { state: 'busy' };
    const index = await readTrusted(`${slot}.index`);
    await rm(`${slot}.index`, { force: true });
    const inside = processInside(slot, 'is inside it');
    const reason = index === null ? 'no trusted index was kept for it' : inside;
    if (reason === null) {
      const moved = await moveWorktree(root, slot, target).then(
        () => null,
        (error: Error) => `it could not be moved: ${error.message.split('\n')[0]}`,
      );
      if (moved === null) return { state: 'claimed', index: index as TrustedIndex };
      await removeWorktree(root, slot);
      return { state: 'discarded', reason: moved };
    }
    await removeWorktree(root, slot);
    return { state: 'discarded', reason };
  } finally {
    await lock.release();
  }
}

async function readTrusted(file: string): Promise<TrustedIndex | null> {
  try {
    const { mtimeMs } = await stat(file);
    return { bytes: await readFile(file), mtimeS: Math.floor(mtimeMs / 1000) };
  } catch {
    return null;
  }
}

/** The pool's slot folders, lowest number first. */
async function listSlots(root: string): Promise<string[]> {
  const names = await readdir(poolDir(root)).catch(() => [] as string[]);
  return names
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(a) - Number(b))
    .map((name) => path.join(poolDir(root), name));
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** One line for the `worktree` phase: which warm worktree was reset, or that a fresh one was added, and what was thrown away. */
export function describeTake(root: string, target: string, base: string, taken: TakenWorktree): string {
  const to = path.relative(root, target);
  const how = taken.reusedFrom
    ? `warm worktree ${path.relative(root, taken.reusedFrom)} reset to ${base.slice(0, 12)} at ${to}`
    : `git worktree add --detach ${to} ${base.slice(0, 12)}`;
  const thrown = taken.discarded.map((d) => `; discarded ${path.relative(root, d.slot)}: ${d.reason}`).join('');
  return `${how}${thrown}`;
}

/**
 * Why `dir` cannot be handed on: a process is still inside it, or no process table can tell whether one is
 * (a worktree that might hold a leftover of the last run is never given to the next); null when clean.
 */
function processInside(dir: string, inside: string): string | null {
  const scan = scanEscapedProcesses({ directories: [dir] });
  if (scan.found.length > 0) return `process ${scan.found[0]!.pid} ${inside}`;
  if (scan.table.source === 'unavailable' || scan.table.blind.length > 0)
    return `no process table can tell whether a process is still inside (${scan.table.why})`;
  return null;
}
