// Finds and kills browsers left behind by a verification. Playwright starts each browser in a process
// group of its own, so killing the runner's group is not enough when the runner dies hard (our timeout's
// SIGKILL): every browser we launch carries a unique marker switch, and this kills what still has it.
import { listPids, readCmdline } from '../../process/proc-stat.js';

/** A Chromium switch Chromium ignores, unique per verification, to recognise our browsers by. */
export function browserMarker(id: string): string {
  return `--elenchos-verification=${id}`;
}

/** Pids of live processes with an argument containing `marker` (Linux /proc; [] elsewhere). */
export function findMarkedProcesses(marker: string): number[] {
  return (listPids() ?? []).filter((pid) => readCmdline(pid)?.some((arg) => arg.includes(marker)) ?? false);
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
