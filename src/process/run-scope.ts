// The run a piece of process work belongs to (AsyncLocalStorage), so the spawn helper can record each
// child in that run's folder and report a failed log write to it, without threading the run through every call.
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { lookUpProcesses } from './process-table.js';

export interface RunScope {
  /** `<runDir>/processes.ndjson`: one line per process group started, written as it starts. */
  childLog: string | null;
  /** Called when evidence cannot be written (a log stream's 'error', ENOSPC…); never throws. */
  onWriteError(error: NodeJS.ErrnoException, file: string): void;
}

/** One line of processes.ndjson: enough for `gc` to find the process again and never kill a stranger. */
export interface ChildEntry {
  role: 'elenchos' | 'child';
  pid: number;
  pgid: number;
  /** Its start time (process-table.ts); null where no process table can tell (then gc kills nothing of this run). */
  startTime: string | null;
  at: string;
}

const storage = new AsyncLocalStorage<RunScope>();

/** Runs `fn` with `scope` as the current run for every child and stream it starts. */
export function withRunScope<T>(scope: RunScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The run the caller works for, or null outside a run (gc, check, unit tests). */
export function currentRunScope(): RunScope | null {
  return storage.getStore() ?? null;
}

/** Appends `pid` (a new process group leader) to the current run's process log; a write failure is reported, not thrown. */
export function recordChild(pid: number, role: ChildEntry['role'] = 'child'): void {
  const scope = currentRunScope();
  if (!scope?.childLog) return;
  const stat = lookUpProcesses([pid])?.get(pid);
  // A child is the leader of its own group (spawned detached); Elenchos itself is in the caller's group.
  const entry: ChildEntry = {
    role,
    pid,
    pgid: role === 'child' ? pid : (stat?.pgid ?? pid),
    startTime: stat?.startTime ?? null,
    at: new Date().toISOString(),
  };
  try {
    // Synchronous on purpose: the line must be on disk before the child can outlive a SIGKILL of ours.
    appendFileSync(scope.childLog, `${JSON.stringify(entry)}\n`);
  } catch (error) {
    scope.onWriteError(error as NodeJS.ErrnoException, scope.childLog);
  }
}

/** Reports a failed evidence write to the current run (or to `scope` captured when the writer was opened). */
export function reportWriteError(error: NodeJS.ErrnoException, file: string, scope: RunScope | null = currentRunScope()): void {
  try {
    scope?.onWriteError(error, file);
  } catch {
    // the reporter of a fault must not become a second fault
  }
}

/** True for the errors that mean "no space left": ENOSPC, EDQUOT (a quota), looking through `cause`. */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  }
  return false;
}
