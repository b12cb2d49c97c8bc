// Finds and kills browsers left behind by a verification. Playwright starts each browser in a process
// group of its own, so killing the runner's group is not enough when the runner dies hard (our timeout's
// SIGKILL): every browser we launch carries a unique marker switch, and this kills what still has it.
import { readdir, readFile } from 'node:fs/promises';

/** A Chromium switch Chromium ignores, unique per verification, to recognise our browsers by. */
export function browserMarker(id: string): string {
  return `--elenchos-verification=${id}`;
}

/** Pids of live processes whose command line contains `marker` (Linux /proc; [] elsewhere). */
export async function findMarkedProcesses(marker: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
          if (cmdline.includes(marker)) pids.push(Number(name));
        } catch {
          // gone already, or not ours to read
        }
      }),
  );
  return pids;
}

/** SIGKILLs every process still carrying `marker`; returns how many there were. */
export async function killMarkedProcesses(marker: string): Promise<number> {
  const pids = (await findMarkedProcesses(marker)).filter((pid) => pid !== process.pid);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited in the meantime
    }
  }
  return pids.length;
}
