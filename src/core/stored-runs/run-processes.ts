// The processes a dead run left behind, found from its processes.ndjson and the process table, and stopped without
// ever touching a stranger that happens to have a reused pid.
import { readRegularFile } from '../../util/regular-file.js';
import { childLogPath } from '../../evidence/layout.js';
import type { ProcStat } from '../../process/proc-stat.js';
import { readProcessTable } from '../../process/process-table.js';
import { liveRunProcesses } from '../../process/recorded-groups.js';
import type { ChildEntry } from '../../process/run-scope.js';

export { liveRunProcesses, stopProcesses } from '../../process/recorded-groups.js';

/** A run's processes.ndjson is read up to this size: a few hundred bytes a process group, and a run starts dozens. */
const CHILD_LOG_LIMIT = 16 * 1024 * 1024;
/** Linux never gives out a pid above this (PID_MAX_LIMIT, 2^22 on 64-bit). */
const PID_MAX_LIMIT = 4_194_304;

/**
 * The child process groups a run recorded (the owner's own line and unreadable lines are skipped). The
 * file is in the run folder, where an agent without the sandbox can write: each line is checked as bad
 * input before a signal is sent on its word. A child is the leader of its own group (pid = pgid), never
 * pid 0 or 1 (`kill(-1)` is every process the user may signal, `kill(0)` gc's own group), and its start
 * time is a /proc clock tick count.
 */
export async function readChildLog(runDir: string): Promise<ChildEntry[]> {
  const text = await readRegularFile(childLogPath(runDir), { maxBytes: CHILD_LOG_LIMIT }).then(
    (bytes) => bytes.toString('utf8'),
    () => '',
  );
  const entries: ChildEntry[] = [];
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line) as Partial<ChildEntry>;
      if (
        entry.role === 'child' &&
        Number.isSafeInteger(entry.pid) &&
        entry.pid! > 1 &&
        entry.pid! <= PID_MAX_LIMIT &&
        entry.pgid === entry.pid &&
        typeof entry.startTime === 'string' &&
        /^\d{1,20}$/.test(entry.startTime)
      )
        entries.push(entry as ChildEntry);
    } catch {
      // a line cut by a kill mid-write names no process
    }
  }
  return entries;
}

/**
 * Every live process of a dead run whose owner started at `ownerStart` (`pidStartTime`); `table` is
 * the process table as read once for all runs (read now when absent).
 */
export async function findRunProcesses(runDir: string, ownerStart: string | null, table?: () => readonly ProcStat[]): Promise<ProcStat[]> {
  const entries = await readChildLog(runDir);
  // Processes that left their group (setsid) are found and stopped by stop-escaped.ts, not here.
  return entries.length === 0 ? [] : liveRunProcesses(entries, table ? table() : readProcessTable().processes, ownerStart);
}
