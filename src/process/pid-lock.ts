// A lock file owned by one live process (O_EXCL, with pid and start time), taken over when its owner died.
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { processAliveSince, readProcStat } from './proc-stat.js';

export interface PidLock {
  file: string;
  /** Removes the lock if it is still ours. */
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  startTime: string | null;
}

/**
 * Takes `file` for this process, or returns null while another live process holds it. A lock whose
 * owner is gone (or whose pid now names another process) is removed and taken. Two processes taking
 * the same stale lock at once can both win; callers must only rely on it to avoid duplicate work.
 */
export async function tryLock(file: string): Promise<PidLock | null> {
  const me: LockOwner = { pid: process.pid, startTime: readProcStat(process.pid)?.startTime ?? null };
  const text = JSON.stringify(me);
  for (let round = 0; round < 2; round++) {
    try {
      await writeFile(file, text, { flag: 'wx' });
      return { file, release: () => releaseIfOurs(file, text) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    // Unreadable: its owner is between creating and writing it (alive a moment ago), or died right there.
    if (
      owner === 'unreadable' ? !(await olderThan(file, HALF_WRITTEN_MS)) : owner !== 'gone' && processAliveSince(owner.pid, owner.startTime)
    )
      return null;
    await unlink(file).catch(() => undefined);
  }
  return null;
}

const HALF_WRITTEN_MS = 10_000;

async function olderThan(file: string, ms: number): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  return info === null || Date.now() - info.mtimeMs > ms;
}

async function readOwner(file: string): Promise<LockOwner | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return 'gone';
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && Number.isInteger(value.pid) && value.pid > 0)
      return { pid: value.pid, startTime: typeof value.startTime === 'string' ? value.startTime : null };
  } catch {
    // a half-written lock
  }
  return 'unreadable';
}

async function releaseIfOurs(file: string, text: string): Promise<void> {
  const current = await readFile(file, 'utf8').catch(() => null);
  if (current === text) await unlink(file).catch(() => undefined);
}
