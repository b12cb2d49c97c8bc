// The processes a dead run left behind, found from its processes.ndjson and the process table, and stopped without
// ever touching a stranger that happens to have a reused pid.
import { readFile } from 'node:fs/promises';
import { childLogPath } from '../../evidence/layout.js';
import type { ProcStat } from '../../process/proc-stat.js';
import { readProcessTable } from '../../process/process-table.js';
import { liveRunProcesses } from '../../process/recorded-groups.js';
import type { ChildEntry } from '../../process/run-scope.js';

export { liveRunProcesses, stopProcesses } from '../../process/recorded-groups.js';

/** The child process groups a run recorded (the owner's own line and unreadable lines are skipped). */
export async function readChildLog(runDir: string): Promise<ChildEntry[]> {
  const text = await readFile(childLogPath(runDir), 'utf8').catch(() => '');
  const entries: ChildEntry[] = [];
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line) as Partial<ChildEntry>;
      if (entry.role === 'child' && Number.isInteger(entry.pid) && Number.isInteger(entry.pgid) && typeof entry.startTime === 'string')
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
  // Processes that left their group (setsid) are found and stopped by stop-escaped.ts (issue #9), not here.
  return entries.length === 0 ? [] : liveRunProcesses(entries, table ? table() : readProcessTable().processes, ownerStart);
}
