// Process groups we started, so that every exit path (even a second Ctrl-C) can kill them all.

const live = new Set<number>();

/** Remembers a process group leader's pid until it is reaped. */
export function trackGroup(pid: number): void {
  live.add(pid);
}

export function untrackGroup(pid: number): void {
  live.delete(pid);
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

/** True while any process of the group is alive. */
export function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0 as unknown as NodeJS.Signals);
}

/** SIGKILLs every group still tracked: the last resort on a second interrupt or a crash. */
export function killAllGroups(): void {
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
