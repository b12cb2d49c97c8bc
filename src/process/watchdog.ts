// One small process per Elenchos process, started with its first child, that stops our children when we
// die. A SIGKILL runs no handler of ours, so the work cannot be ours: the watchdog holds the read end of
// a pipe whose only write end is ours, and the kernel closes that end however we end. At EOF it stops
// every process group we told it about and every process carrying our owner tag, then exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { packageFile } from '../version.js';
import { ownerTag } from './owner-tag.js';

/**
 * The compiled program, the same from dist/, from the bundle and from src/ (tests run the sources): a source
 * checkout never built has none, and then its children go unwatched (gc still finds them).
 */
export const WATCHDOG_MAIN = packageFile('dist/process/watchdog-main.js');

/** Groups the watchdog must stop if we die now: pgid → its leader's start time (process-table.ts). */
const watched = new Map<number, string>();
let watchdog: ChildProcess | null = null;

/** Tells the watchdog (started now if there is none) that group `pgid`, led by a process started at `startTime`, is ours. */
export function watchGroup(pgid: number, startTime: string): void {
  watched.set(pgid, startTime);
  send(`+${pgid} ${startTime}\n`);
}

/** The group is gone (or stopped by us): the watchdog forgets it, so a later group with the same id is not taken for it. */
export function unwatchGroup(pgid: number): void {
  if (watched.delete(pgid)) send(`-${pgid}\n`);
}

function send(line: string): void {
  const pipe = ensureWatchdog();
  // A short write to a pipe is done at once (libuv writes before it queues): on disk as it were, before
  // the child it names can outlive us.
  pipe?.write(line);
}

function ensureWatchdog(): Socket | null {
  if (watchdog?.stdin && !watchdog.stdin.destroyed && watchdog.exitCode === null && watchdog.signalCode === null)
    return watchdog.stdin as Socket;
  const owner = ownerTag();
  if (owner === null || !existsSync(WATCHDOG_MAIN)) return null;
  let child: ChildProcess;
  try {
    child = startWatchdog(owner);
  } catch {
    return null; // the children run unwatched, and gc still finds them
  }
  // A failed start (EAGAIN, ENOMEM) is reported as an event, later: never a crash of the run it serves.
  child.on('error', () => undefined);
  const stdin = child.stdin as Socket | null;
  if (child.pid === undefined || stdin === null) return null;
  // Neither the watchdog nor its pipe keeps us alive; a watchdog gone (killed by someone) is replaced at the next write.
  child.unref();
  stdin.unref();
  stdin.on('error', () => undefined);
  watchdog = child;
  // A replacement learns every group still ours.
  for (const [pgid, startTime] of watched) stdin.write(`+${pgid} ${startTime}\n`);
  return stdin;
}

function startWatchdog(owner: string): ChildProcess {
  return spawn(process.execPath, [WATCHDOG_MAIN, owner], {
    // Its own session: a Ctrl-C or a closed terminal reaches us, not it. The root as cwd: it holds no
    // worktree, so no stop of a workspace's processes takes it for a process left inside.
    detached: true,
    cwd: '/',
    // Nothing inherited: no tag of ours in its environment, no NODE_OPTIONS, no output pipe of ours
    // held open (a caller waiting for our stdout to close would wait for the watchdog too).
    env: {},
    stdio: ['pipe', 'ignore', 'ignore'],
  });
}
