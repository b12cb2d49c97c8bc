// Processes that left the process group we gave them (setsid, nohup, a double fork) and are found
// by what they carry instead: an inherited marker in their environment, or a hold on a directory.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OWNER_ENV, ownerAlive, parseOwnerTag } from './owner-tag.js';

/** The environment variable every child we start carries; its value names the run, the attempt and the role. */
export const PROCESS_TAG_ENV = 'ELENCHOS_PROCESS_TAG';
const TAG_PREFIX = `${PROCESS_TAG_ENV}=`;
const OWNER_PREFIX = `${OWNER_ENV}=`;

export interface EscapedProcess {
  pid: number;
  /** The command line as `/proc/<pid>/cmdline` gives it (NULs as spaces, capped). */
  command: string;
  /** Why it was found: `marker` (inherited tag), `owner`, `cwd`, `root`, `exe` or `open-file` inside a watched directory. */
  found: string[];
  /** Its `ELENCHOS_OWNER` (`<pid>/<start time>` of the Elenchos that started it), when found by it. */
  owner?: string;
}

export interface FindEscapedOptions {
  /** `ELENCHOS_PROCESS_TAG` values to look for (exact match). */
  tags?: readonly string[];
  /** Tag prefixes: `<runId>/` finds every attempt's agent and app of a run (what `gc` needs for a dead run). */
  tagPrefixes?: readonly string[];
  /** `ELENCHOS_OWNER` values (owner-tag.ts): everything one Elenchos process started, wherever it went. */
  owners?: readonly string[];
  /**
   * Processes whose `ELENCHOS_OWNER` names an Elenchos process that is gone and that hold (cwd, root,
   * executable, an open file) one of these absolute directories: what `gc` stops in its repository.
   */
  deadOwnersIn?: readonly string[];
  /** Absolute directories: a process whose cwd, root, executable or an open file lies inside one is found. */
  directories?: readonly string[];
  /** Pids never to report (ours and our ancestors are always left out). */
  spare?: readonly number[];
}

export interface KillEscapedResult {
  killed: EscapedProcess[];
  /** Processes still alive after the kill (not ours to kill: another user's, or a race we lost). */
  survivors: EscapedProcess[];
}

/**
 * Lists live processes that carry one of `tags` in their environment or hold a directory in
 * `directories` open (Linux /proc; an empty list elsewhere). Zombies are left out: they run nothing.
 */
export function findEscapedProcesses(options: FindEscapedOptions): EscapedProcess[] {
  const tags = new Set((options.tags ?? []).map((t) => `${PROCESS_TAG_ENV}=${t}`));
  const prefixes = (options.tagPrefixes ?? []).filter(Boolean).map((t) => `${PROCESS_TAG_ENV}=${t}`);
  const owners = new Set(options.owners ?? []);
  const dirs = (options.directories ?? []).map(realDirectory);
  const orphanDirs = (options.deadOwnersIn ?? []).map(realDirectory);
  const spare = new Set([...(options.spare ?? []), ...ancestors()]);
  const found: EscapedProcess[] = [];
  for (const pid of listPids()) {
    if (spare.has(pid)) continue;
    const fields = statFields(pid);
    const state = fields?.[0] ?? null;
    if (state === null || state === 'Z' || state === 'X') continue;
    // A kernel thread (about half the pids of a small machine) runs no user code, has no environment
    // and no files of its own: nothing to look at. Only the kernel sets this flag; no process can.
    if (isKernelThread(fields)) continue;
    const why: string[] = [];
    if ((tags.size > 0 || prefixes.length > 0) && carriesTag(pid, tags, prefixes)) why.push('marker');
    const owner = owners.size > 0 || orphanDirs.length > 0 ? readOwner(pid) : null;
    const ownedHere = owner !== null && owners.has(owner);
    if (ownedHere || (owner !== null && orphanDirs.length > 0 && ownerDead(owner) && holdsDirectory(pid, orphanDirs).length > 0))
      why.push('owner');
    if (dirs.length > 0) why.push(...holdsDirectory(pid, dirs));
    if (why.length > 0) found.push({ pid, command: readCommand(pid), found: why, ...(why.includes('owner') ? { owner: owner! } : {}) });
  }
  return found;
}

/**
 * Stops every escaped process for good: freezes what it finds (SIGSTOP, so none can fork while we
 * look), looks again until nothing new appears, then SIGKILLs them all and waits until they are gone.
 */
export async function killEscapedProcesses(options: FindEscapedOptions, waitMs = 3000): Promise<KillEscapedResult> {
  const frozen = new Map<number, EscapedProcess>();
  for (let round = 0; round < 20; round++) {
    const fresh = findEscapedProcesses(options).filter((p) => !frozen.has(p.pid));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      frozen.set(p.pid, p);
      signal(p.pid, 'SIGSTOP');
    }
  }
  for (const pid of frozen.keys()) signal(pid, 'SIGKILL');
  const deadline = Date.now() + waitMs;
  let alive = [...frozen.keys()].filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(10);
    alive = alive.filter(isAlive);
  }
  const survivors = alive.map((pid) => frozen.get(pid) as EscapedProcess);
  return { killed: [...frozen.values()].filter((p) => !alive.includes(p.pid)), survivors };
}

/** /proc shows resolved paths: compare against the directory with its symlinks resolved. */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** Our own pid and every ancestor's: a sweep must never stop the tool (or the shell) that runs it. */
function ancestors(): number[] {
  const pids: number[] = [];
  let pid = process.pid;
  for (let i = 0; i < 64 && pid > 1; i++) {
    pids.push(pid);
    const ppid = Number(statFields(pid)?.[1]);
    if (!Number.isInteger(ppid) || ppid <= 0) break;
    pid = ppid;
  }
  return pids;
}

/** Fields after the command name (state ppid pgrp ...); the name may contain spaces and ')'. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

// PF_KTHREAD in the flags field of /proc/<pid>/stat (field 9, the 7th after the command name).
const PF_KTHREAD = 0x00200000;
function isKernelThread(fields: string[] | null): boolean {
  const flags = Number(fields?.[6]);
  return Number.isInteger(flags) && (flags & PF_KTHREAD) !== 0;
}

function readState(pid: number): string | null {
  return statFields(pid)?.[0] ?? null;
}

function isAlive(pid: number): boolean {
  const state = readState(pid);
  return state !== null && state !== 'Z' && state !== 'X';
}

function carriesTag(pid: number, tags: Set<string>, prefixes: readonly string[]): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    // Every tag and prefix starts with `ELENCHOS_PROCESS_TAG=`: most processes do not hold it at all,
    // and are let go without splitting their whole environment into entries.
    if (!environ.includes(TAG_PREFIX)) return false;
    return environ.split('\0').some((entry) => tags.has(entry) || prefixes.some((p) => entry.startsWith(p)));
  } catch {
    return false; // gone, or not ours to read
  }
}

/** The process's `ELENCHOS_OWNER` value, or null when it carries none (or cannot be read). */
function readOwner(pid: number): string | null {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    if (!environ.includes(OWNER_PREFIX)) return null;
    const entry = environ.split('\0').find((e) => e.startsWith(OWNER_PREFIX));
    return entry === undefined ? null : entry.slice(OWNER_PREFIX.length);
  } catch {
    return null; // gone, or not ours to read
  }
}

/** A value that names no process (empty, forged) is no owner: only a well-formed tag of a gone process counts. */
function ownerDead(value: string): boolean {
  const owner = parseOwnerTag(value);
  return owner !== null && !ownerAlive(owner);
}

function holdsDirectory(pid: number, dirs: readonly string[]): string[] {
  const inside = (target: string | null) => target !== null && dirs.some((d) => target === d || target.startsWith(`${d}/`));
  const why: string[] = [];
  for (const link of ['cwd', 'root', 'exe']) if (inside(readLink(`/proc/${pid}/${link}`))) why.push(link);
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    // gone, or not ours to read
  }
  if (fds.some((fd) => inside(readLink(`/proc/${pid}/fd/${fd}`)))) why.push('open-file');
  return why;
}

function readLink(file: string): string | null {
  try {
    // A deleted file reads as "<path> (deleted)": still inside the directory for our purpose.
    return readlinkSync(file).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

function readCommand(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
    return raw.length > 300 ? `${raw.slice(0, 300)}…` : raw;
  } catch {
    return '';
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone, or not ours: the survivors list says so
  }
}
