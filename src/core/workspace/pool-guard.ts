// The warm pool's trusted indexes (`.elenchos/pool/<n>.index`) live where an agent without the sandbox
// can write: one that plants the finished work in an idle slot and rewrites that slot's index (the
// entry naming the committed blob, with the planted file's stat data) makes the next reset call the
// slot clean, and a later run whose agent does nothing VERIFIED. No timestamp on disk can tell such an
// index from ours (the agent can touch any file after it), so the marks are taken in memory: an index
// that changed or appeared while the agent (or its app) ran is deleted, and a slot without its index
// is thrown away, never reused. The pool's own writes in this process (another task of the same
// `verify --workers N` returning its worktree) are recorded as they are made and are not a change; a
// separate Elenchos process returning a slot at the same moment only costs a checkout.
import type { Stats } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { poolDir } from '../../evidence/layout.js';
import { tryExclusiveLock } from '../../process/exclusive-lock.js';

/** `<n>.index` path → what identifies that file version (inode, change time, size). */
export type PoolMarks = Map<string, string>;

/** Trusted index files this process wrote itself, with the mark each had right after the write. */
const ownWrites: PoolMarks = new Map();

function markFrom(found: Stats): string {
  return `${found.ino}:${found.ctimeMs}:${found.size}`;
}

async function markOf(file: string): Promise<string | null> {
  const found = await stat(file).catch(() => null);
  return found ? markFrom(found) : null;
}

/** Records a trusted index the pool itself has just written (`written`: its stat, read through the writing handle). */
export function recordOwnIndex(file: string, written: Stats): void {
  ownWrites.set(file, markFrom(written));
}

/** Marks every trusted index of the pool as it is now. */
export async function markPool(root: string): Promise<PoolMarks> {
  const dir = poolDir(root);
  const marks: PoolMarks = new Map();
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => /^\d+\.index$/.test(n))) {
    const mark = await markOf(path.join(dir, name));
    if (mark) marks.set(path.join(dir, name), mark);
  }
  return marks;
}

/** Deletes each trusted index that is not as `before` marked it; returns the slots it made unusable. */
export async function dropTouchedSlots(root: string, before: PoolMarks): Promise<string[]> {
  const dropped: string[] = [];
  for (const [file, mark] of await markPool(root)) {
    if (before.get(file) === mark || ownWrites.get(file) === mark) continue;
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

/** The pool's trusted indexes watched across a run: each check drops what changed since the last one. */
export class PoolWatch {
  private constructor(
    private readonly root: string,
    private marks: PoolMarks,
  ) {}

  static async start(root: string): Promise<PoolWatch> {
    return new PoolWatch(root, await markPool(root));
  }

  /** Drops every slot whose index changed since the last check (or the start), then marks the pool again. */
  async check(): Promise<string[]> {
    const dropped = await dropTouchedSlots(this.root, this.marks);
    this.marks = await markPool(this.root);
    return dropped;
  }
}
