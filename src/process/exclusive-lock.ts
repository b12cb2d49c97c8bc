// A lock file owned by one live process: created with O_EXCL, naming its pid and start time, so the
// claim of a process that died (killed outright, machine rebooted) can be taken over and a reused
// pid is never mistaken for the owner. A takeover happens under a second O_EXCL marker, so exactly one
// process holds it: a warm worktree handed to two runs would be an isolation failure, and a setup-cache
// key set up twice at once would be wasted work. The one lock of the pool slots and the setup cache.
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { processAliveSince, startTimeOf } from './process-table.js';

export interface ExclusiveLock {
  file: string;
  /** Deletes the lock if it is still ours. */
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  startTime: string | null;
}

// A reclaim that takes longer than this died half-way: its own marker may be taken over.
const RECLAIM_STALE_MS = 10_000;

/** Takes the lock at `file` for this process, reclaiming it from a dead owner; null while a live process holds it. */
export async function tryExclusiveLock(file: string): Promise<ExclusiveLock | null> {
  const me: Owner = { pid: process.pid, startTime: startTimeOf(process.pid) };
  const text = JSON.stringify(me);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await createExclusive(file, text)) return ownedLock(file, text);
    if (attempt > 0 || !(await reclaimStale(file))) return null;
  }
  return null;
}

function ownedLock(file: string, text: string): ExclusiveLock {
  let released = false;
  return {
    file,
    release: async () => {
      if (released) return; // a second call must not delete the lock another caller of this process took since
      released = true;
      // Never delete a lock someone else took over after deciding ours was stale.
      if ((await readFile(file, 'utf8').catch(() => null)) === text) await rm(file, { force: true });
    },
  };
}

async function createExclusive(file: string, text: string): Promise<boolean> {
  try {
    await writeFile(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes `file` if its owner is dead. Two processes may both find it stale: one reclaim at a time
 * (a second O_EXCL marker), and the owner read again under it, so neither deletes the other's new lock.
 */
async function reclaimStale(file: string): Promise<boolean> {
  const marker = `${file}.reclaim`;
  if (!(await createExclusive(marker, String(process.pid)))) {
    const age = await stat(marker).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > RECLAIM_STALE_MS) await rm(marker, { force: true });
    return false;
  }
  try {
    const owner = await readOwner(file);
    if (owner !== null && processAliveSince(owner.pid, owner.startTime)) return false;
    await rm(file, { force: true });
    return true;
  } finally {
    await rm(marker, { force: true });
  }
}

async function readOwner(file: string): Promise<Owner | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<Owner>;
    if (Number.isInteger(parsed.pid)) return { pid: parsed.pid as number, startTime: parsed.startTime ?? null };
  } catch {
    // Half-written by a process that died between create and write: nobody owns it.
  }
  // Unreadable or empty: a writer may be between create and write. Treat as held unless it is old.
  const age = await stat(file).then(
    (s) => Date.now() - s.mtimeMs,
    () => Infinity,
  );
  return age > RECLAIM_STALE_MS ? null : { pid: process.pid, startTime: null };
}
