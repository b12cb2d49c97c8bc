// Process groups we recorded as started (a run's processes.ndjson, the watchdog's list): which of their
// members still live, and stopping them without ever touching a stranger that happens to have a reused pid.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDefunct, type ProcStat } from './proc-stat.js';
import { compareStarts, lookUpProcesses } from './process-table.js';
import type { ChildEntry } from './run-scope.js';

/** A group as recorded when its leader started: enough to tell it from a later one with the same id. */
export type RecordedGroup = Pick<ChildEntry, 'pid' | 'pgid' | 'startTime'>;

/**
 * Live (non-zombie) processes still in a recorded group. A group is ours only while its leader's pid
 * is either gone or still the process we started (same start time): Linux never hands out a pid that
 * is still some group's id, so a surviving group with a gone leader is still the one we made.
 * Members that started before the leader cannot be its descendants and are left alone.
 */
export function liveRunProcesses(
  entries: readonly RecordedGroup[],
  table: readonly ProcStat[],
  notBefore: string | null = null,
): ProcStat[] {
  const found = new Map<number, ProcStat>();
  for (const entry of entries) {
    // Nothing a run started can be older than the run's own process: a line naming an older process
    // (written into processes.ndjson by someone else) is ignored rather than obeyed.
    // A start time of another clock (ps's seconds beside /proc's ticks) cannot be ordered: not obeyed either.
    const start = entry.startTime;
    if (notBefore !== null && (start === null || (compareStarts(start, notBefore) ?? -1) < 0)) continue;
    const leader = table.find((p) => p.pid === entry.pid);
    if (leader && leader.startTime !== entry.startTime) continue; // the pid now names another process
    for (const p of table) {
      if (p.pgid !== entry.pgid || p.pid === process.pid || isDefunct(p)) continue;
      if (start !== null && (compareStarts(p.startTime, start) ?? -1) < 0) continue;
      found.set(p.pid, p);
    }
  }
  return [...found.values()];
}

/** SIGTERM, up to `graceMs` to go, then SIGKILL; each signal only after checking the pid still names the same process. */
export async function stopProcesses(processes: readonly ProcStat[], graceMs = 2000): Promise<void> {
  // One look for all of them (a ps where there is no /proc); a process that cannot be looked up is not signalled.
  const stillSame = (): ProcStat[] => {
    const now = lookUpProcesses(processes.map((p) => p.pid));
    return processes.filter((p) => {
      const entry = now?.get(p.pid);
      return entry !== undefined && !isDefunct(entry) && entry.startTime === p.startTime;
    });
  };
  // Never a signal to every process (-1), to our own group (0, or its id), to init or to ourselves,
  // whatever a recorded line or /proc said: those ids name no group a run of ours started.
  const ownGroup = lookUpProcesses([process.pid])?.get(process.pid)?.pgid ?? process.pid;
  const send = (target: number, signal: NodeJS.Signals) => {
    const id = Math.abs(target);
    if (!Number.isSafeInteger(target) || id <= 1 || id === process.pid || (target < 0 && id === ownGroup)) return;
    try {
      process.kill(target, signal);
    } catch {
      // gone meanwhile, or not ours to signal
    }
  };
  // The whole group as well, so a child forked since /proc was read goes too. Safe while a verified
  // member is alive: Linux does not reuse a group id that still has a member.
  const signalAll = (signal: NodeJS.Signals) => {
    const same = stillSame();
    for (const pgid of new Set(same.map((p) => p.pgid))) send(-pgid, signal);
    for (const p of same) send(p.pid, signal);
  };
  signalAll('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (stillSame().length > 0 && Date.now() < deadline) await sleep(25);
  signalAll('SIGKILL');
  const hard = Date.now() + 2000;
  while (stillSame().length > 0 && Date.now() < hard) await sleep(10);
}
