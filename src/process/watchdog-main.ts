// The watchdog's program (watchdog.ts starts it with the owner tag of its Elenchos): keeps the list of
// our process groups from `+<pgid> <start time>` and `-<pgid>` lines on stdin. EOF means its Elenchos
// has ended, however: it stops what is left, then exits. It never outlives that job.
import { killEscapedProcesses } from './escaped-processes.js';
import { ownerAlive, parseOwnerTag } from './owner-tag.js';
import { readProcessTable } from './process-table.js';
import { liveRunProcesses, stopProcesses, type RecordedGroup } from './recorded-groups.js';

/** Grace between SIGTERM and SIGKILL: a server or a browser gets to close cleanly. */
const GRACE_MS = 2000;

/** How often the owner is looked at besides the pipe's EOF. */
const LOOK_MS = 1000;

const owner = process.argv[2] ?? '';
const parsedOwner = parseOwnerTag(owner);
const groups = new Map<number, string>();
let pending = '';

/** Applies one line; anything else (a line cut by our death mid-write) is ignored. */
function apply(line: string): void {
  const added = /^\+(\d+) (e?\d+)$/.exec(line);
  if (added) groups.set(Number(added[1]), added[2]!);
  const removed = /^-(\d+)$/.exec(line);
  if (removed) groups.delete(Number(removed[1]));
}

async function stopAll(): Promise<void> {
  const entries: RecordedGroup[] = [...groups].map(([pgid, startTime]) => ({ pid: pgid, pgid, startTime }));
  // A group is touched only while its leader is the process we were told about, or gone with members
  // started after it (recorded-groups.ts): a reused pid is never taken for ours.
  // Nor a group whose leader is older than its Elenchos: nothing Elenchos started can be.
  if (entries.length > 0)
    await stopProcesses(liveRunProcesses(entries, readProcessTable().processes, parsedOwner?.startTime ?? null), GRACE_MS);
  // Those that left their group (setsid, a double fork) but carry our owner tag.
  if (parsedOwner !== null) await killEscapedProcesses({ owners: [owner] });
}

process.stdin.setEncoding('latin1');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) apply(line);
});
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  void stopAll().finally(() => process.exit(0));
};
process.stdin.once('end', end);
process.stdin.once('error', end);
// The pipe is a socket pair (libuv's), which no other process can open through /proc/<pid>/fd to hold it
// open or to write lines into. Looking at the owner itself as well costs one /proc read (or one ps) a second, and
// ends the watch even if an end of the pipe ever leaked into a process that outlives Elenchos.
if (parsedOwner !== null) setInterval(() => ownerAlive(parsedOwner) || end(), LOOK_MS).unref();
