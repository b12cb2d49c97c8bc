// Finds and kills browsers left behind by a verification. Playwright starts each browser in a process
// group of its own, so killing the runner's group is not enough when the runner dies hard (our timeout's
// SIGKILL): every browser we launch carries a unique marker switch, and this kills what still has it.
import { readProcessTable } from '../../process/process-table.js';

/** A Chromium switch Chromium ignores, unique per verification, to recognise our browsers by. */
export function browserMarker(id: string): string {
  return `--elenchos-verification=${id}`;
}

/** Pids of live processes with an argument containing `marker` (the process table; [] where it is unavailable). */
export function findMarkedProcesses(marker: string): number[] {
  const table = readProcessTable();
  return table.processes.map((p) => p.pid).filter((pid) => table.command(pid).includes(marker));
}

/** SIGKILLs every process still carrying `marker`; returns how many there were. */
export function killMarkedProcesses(marker: string): number {
  const pids = findMarkedProcesses(marker).filter((pid) => pid !== process.pid);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited in the meantime
    }
  }
  return pids.length;
}
