// The warm pool's trusted indexes (`.elenchos/pool/<n>.index`) live where an agent without the sandbox
// can write: one that plants the finished work in an idle slot and rewrites that slot's index (the
// entry naming the committed blob, with the planted file's stat data) makes the next reset call the
// slot clean, and a later run whose agent does nothing VERIFIED. No timestamp on disk can tell such an
// index from ours (the agent can touch any file after it), so the marks are taken in memory: an index
// that changed or appeared while the agent (or its app) ran is deleted, and a slot without its index
// is thrown away, never reused. A run returning a slot at the same moment only costs a checkout.
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { poolDir } from '../evidence/layout.js';
import { tryExclusiveLock } from '../process/exclusive-lock.js';

/** `<n>.index` path → what identifies that file version (inode, change time, size). */
export type PoolMarks = Map<string, string>;

/** Marks every trusted index of the pool as it is now. */
export async function markPool(root: string): Promise<PoolMarks> {
  const dir = poolDir(root);
  const marks: PoolMarks = new Map();
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => /^\d+\.index$/.test(n))) {
    const found = await stat(path.join(dir, name)).catch(() => null);
    if (found) marks.set(path.join(dir, name), `${found.ino}:${found.ctimeMs}:${found.size}`);
  }
  return marks;
}

/** Deletes each trusted index that is not as `before` marked it; returns the slots it made unusable. */
export async function dropTouchedSlots(root: string, before: PoolMarks): Promise<string[]> {
  const dropped: string[] = [];
  for (const [file, mark] of await markPool(root)) {
    if (before.get(file) === mark) continue;
    const slot = file.slice(0, -'.index'.length);
    // Under the slot's lock: a run claiming it right now has read the index already (a race we lose).
    const lock = await tryExclusiveLock(`${slot}.lock`);
    if (!lock) continue;
    try {
      await rm(file, { force: true });
      dropped.push(path.relative(root, slot));
    } finally {
      await lock.release();
    }
  }
  return dropped.sort();
}
