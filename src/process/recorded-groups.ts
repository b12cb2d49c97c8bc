// Process groups we recorded as started (a run's processes.ndjson, the watchdog's list): which of their
// members still live, and stopping them without ever touching a stranger that happens to have a reused pid.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDefunct, readProcStat, type ProcStat } from './proc-stat.js';
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
    if (notBefore !== null && BigInt(entry.startTime ?? '0') < BigInt(notBefore)) continue;
    const leader = table.find((p) => p.pid === entry.pid);
    if (leader && leader.startTime !== entry.startTime) continue; // the pid now names another process
    const since = BigInt(entry.startTime ?? '0');
    for (const p of table) {
      if (p.pgid !== entry.pgid || p.pid === process.pid || isDefunct(p) || BigInt(p.startTime) < since) continue;
      found.set(p.pid, p);
    }
  }
  return [...found.values()];
}

/** SIGTERM, up to `graceMs` to go, then SIGKILL; each signal only after checking the pid still names the same process. */
export async function stopProcesses(processes: readonly ProcStat[], graceMs = 2000): Promise<void> {
  const same = (p: ProcStat) => {
    const now = readProcStat(p.pid);
    return now !== null && !isDefunct(now) && now.startTime === p.startTime;
  };
  // Never a signal to every process (-1), to our own group (0, or its id), to init or to ourselves,
  // whatever a recorded line or /proc said: those ids name no group a run of ours started.
  const ownGroup = readProcStat(process.pid)?.pgid ?? process.pid;
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
    for (const pgid of new Set(processes.filter(same).map((p) => p.pgid))) send(-pgid, signal);
    for (const p of processes) if (same(p)) send(p.pid, signal);
  };
  signalAll('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (processes.some(same) && Date.now() < deadline) await sleep(25);
  signalAll('SIGKILL');
  const hard = Date.now() + 2000;
  while (processes.some(same) && Date.now() < hard) await sleep(10);
}
