// Process groups we started, so that every exit path (even a second Ctrl-C) can kill them all.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDefunct, listPids, readProcStat } from './proc-stat.js';
import { startTimeOf } from './process-table.js';
import { recordChild } from './run-scope.js';
import { unwatchGroup, watchGroup } from './watchdog.js';

const live = new Set<number>();

/**
 * Remembers a process group leader's pid until it is reaped, records it in the current run's folder for
 * `gc`, and tells the watchdog, which stops the group if we die before it is gone.
 */
export function trackGroup(pid: number): void {
  live.add(pid);
  recordChild(pid);
  const startTime = startTimeOf(pid);
  // Where no process table tells a start time, a group cannot be told from a later one with the same id: unwatched.
  if (startTime !== null) watchGroup(pid, startTime);
}

export function untrackGroup(pid: number): void {
  live.delete(pid);
  unwatchGroup(pid);
}

/** Sends `signal` to the whole group led by `pid`; false when no process of it is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return false;
    throw error;
  }
}

/** True while any process of the group is alive (zombies waiting for a reaper do not count). */
export function groupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0 as unknown as NodeJS.Signals)) return false;
  // The leader itself, still running in its group, answers without listing every process (stopping a
  // group polls this every 25 ms). Its pid cannot name another process meanwhile: the kernel never
  // hands out a pid still in use as a process group's id, and kill(-pid, 0) just found that group.
  if (liveMemberOf(pid, pid)) return true;
  // A member reparented to init stays a zombie until init reaps it, which some containers' init never
  // does promptly; kill(-pgid, 0) still finds it. On Linux, ask /proc whether a live member remains.
  const members = groupMembers(pid);
  return members === null || members.some((m) => m.state !== 'Z' && m.state !== 'X');
}

/** Whether process `pid` is alive (not a zombie) in process group `pgid`, as /proc says; false when it cannot tell. */
function liveMemberOf(pid: number, pgid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== null && stat.pgid === pgid && !isDefunct(stat);
}

/** Processes of process group `pgid` with their state letter, or null where /proc cannot tell. */
export function groupMembers(pgid: number): { pid: number; state: string }[] | null {
  const pids = listPids();
  if (pids === null) return null;
  const members: { pid: number; state: string }[] = [];
  for (const pid of pids) {
    const stat = readProcStat(pid); // null: gone meanwhile
    if (stat !== null && stat.pgid === pgid) members.push({ pid, state: stat.state });
  }
  return members;
}

/** SIGKILLs every group still tracked: the last resort on a second interrupt or a crash. */
export function killAllGroups(): void {
  // The watchdog keeps them: should a member survive (or we die now), it checks again at our end.
  for (const pid of live) signalGroup(pid, 'SIGKILL');
  live.clear();
}

/** Asks the group to stop, waits up to `graceMs`, then SIGKILLs what is left; resolves once none is alive. */
export async function terminateGroup(pid: number, graceMs = 3000): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM')) {
    untrackGroup(pid);
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pid)) {
      untrackGroup(pid);
      return;
    }
    await sleep(25);
  }
  signalGroup(pid, 'SIGKILL');
  const hard = Date.now() + 2000;
  while (groupAlive(pid) && Date.now() < hard) await sleep(10);
  untrackGroup(pid);
}
