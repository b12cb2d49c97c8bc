// Processes that left the process group we gave them (setsid, nohup, a double fork) and are found
// by what they carry instead: an inherited marker in their environment, or a hold on a directory.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OWNER_ENV, ownerAlive, parseOwnerTag } from './owner-tag.js';
import { isDefunct, isKernelThread, type ProcStat } from './proc-stat.js';
import {
  compareStarts,
  lookUpProcesses,
  readProcessTable,
  tableFacts,
  type ProcessTable,
  type TableFacts,
  type TableSources,
} from './process-table.js';

/** The environment variable every child we start carries; its value names the run, the attempt and the role. */
export const PROCESS_TAG_ENV = 'ELENCHOS_PROCESS_TAG';
const TAG_PREFIX = `${PROCESS_TAG_ENV}=`;
const OWNER_PREFIX = `${OWNER_ENV}=`;

export interface EscapedProcess {
  pid: number;
  /** The command line as the process table gives it (NULs as spaces, capped). */
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
  /** The table looked in (the weakest look of its rounds): an unavailable one found nothing it could kill. */
  table: TableFacts;
}

export interface ScanResult {
  found: EscapedProcess[];
  /** The table looked in: where it came from, and what it could not see (an unavailable one found nothing). */
  table: TableFacts;
}

/**
 * Lists live processes that carry one of `tags` in their environment or hold a directory in
 * `directories` (the process table, process-table.ts). Zombies are left out: they run nothing.
 */
export function scanEscapedProcesses(options: FindEscapedOptions, sources?: TableSources): ScanResult {
  const tags = new Set((options.tags ?? []).map((t) => `${PROCESS_TAG_ENV}=${t}`));
  const prefixes = (options.tagPrefixes ?? []).filter(Boolean).map((t) => `${PROCESS_TAG_ENV}=${t}`);
  const owners = new Set(options.owners ?? []);
  const dirs = (options.directories ?? []).map(realDirectory);
  const orphanDirs = (options.deadOwnersIn ?? []).map(realDirectory);
  const table = readProcessTable(
    {
      environment: tags.size > 0 || prefixes.length > 0 || owners.size > 0 || orphanDirs.length > 0,
      directories: dirs.length + orphanDirs.length > 0,
    },
    sources,
  );
  const spare = new Set([...(options.spare ?? []), ...ancestors(table.processes)]);
  const found: EscapedProcess[] = [];
  for (const stat of table.processes) {
    const { pid } = stat;
    if (spare.has(pid) || isDefunct(stat)) continue;
    // A kernel thread runs no user code, has no environment and no files of its own: nothing to look
    // at. Only the kernel sets its flag; no process can.
    if (isKernelThread(stat)) continue;
    const why: string[] = [];
    if ((tags.size > 0 || prefixes.length > 0) && carriesTag(table, pid, tags, prefixes)) why.push('marker');
    const owner = owners.size > 0 || orphanDirs.length > 0 ? readOwner(table, pid) : null;
    const ownedHere = owner !== null && owners.has(owner);
    if (ownedHere || (owner !== null && orphanDirs.length > 0 && ownerDead(owner) && holdsDirectory(table, pid, orphanDirs).length > 0))
      why.push('owner');
    if (dirs.length > 0) why.push(...holdsDirectory(table, pid, dirs));
    if (why.length > 0)
      found.push({ pid, command: readCommand(table, pid), found: why, ...(why.includes('owner') ? { owner: owner! } : {}) });
  }
  return { found, table: tableFacts(table) };
}

/**
 * Stops every escaped process for good: freezes what it finds (SIGSTOP, so none can fork while we
 * look), looks again until nothing new appears, then SIGKILLs them all and waits until they are gone.
 */
export async function killEscapedProcesses(options: FindEscapedOptions, waitMs = 3000, sources?: TableSources): Promise<KillEscapedResult> {
  const frozen = new Map<number, EscapedProcess & { startTime: string | null }>();
  let table: TableFacts | null = null;
  for (let round = 0; round < 20; round++) {
    const scan = scanEscapedProcesses(options, sources);
    // The weakest look of all rounds is the one that counts: a later round that saw less proves less.
    if (table === null || scan.table.source === 'unavailable' || scan.table.blind.length > table.blind.length) table = scan.table;
    const fresh = scan.found.filter((p) => !frozen.has(p.pid));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      frozen.set(p.pid, { ...p, startTime: null });
      signal(p.pid, 'SIGSTOP');
    }
  }
  const started = lookUpProcesses([...frozen.keys()]);
  for (const p of frozen.values()) p.startTime = started?.get(p.pid)?.startTime ?? null;
  for (const pid of frozen.keys()) signal(pid, 'SIGKILL');
  const deadline = Date.now() + waitMs;
  let alive = stillAlive([...frozen.values()]);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(table?.source === 'ps' ? 50 : 10);
    alive = stillAlive(alive.map((pid) => frozen.get(pid)!));
  }
  const plain = (p: EscapedProcess & { startTime: string | null }): EscapedProcess => {
    const { startTime: _startTime, ...rest } = p;
    return rest;
  };
  const survivors = alive.map((pid) => plain(frozen.get(pid)!));
  const killed = [...frozen.values()].filter((p) => !alive.includes(p.pid)).map(plain);
  return { killed, survivors, table: table ?? tableFacts(readProcessTable()) };
}

/** /proc shows resolved paths: compare against the directory with its symlinks resolved. */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Our own pid and every ancestor's: stopping escaped processes must never stop the tool (or the shell) that runs it. */
function ancestors(table: readonly ProcStat[]): number[] {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const pids: number[] = [];
  let pid = process.pid;
  for (let i = 0; i < 64 && pid > 1; i++) {
    pids.push(pid);
    const ppid = byPid.get(pid)?.ppid ?? NaN;
    if (!Number.isInteger(ppid) || ppid <= 0) break;
    pid = ppid;
  }
  return pids;
}

/** Those of `processes` still alive as the same process (a pid that cannot be looked up counts as alive). */
function stillAlive(processes: readonly { pid: number; startTime: string | null }[]): number[] {
  const now = lookUpProcesses(processes.map((p) => p.pid));
  if (now === null) return processes.map((p) => p.pid);
  return processes
    .filter((p) => {
      const entry = now.get(p.pid);
      if (!entry || isDefunct(entry)) return false;
      return p.startTime === null || (compareStarts(entry.startTime, p.startTime) ?? 0) === 0;
    })
    .map((p) => p.pid);
}

function carriesTag(table: ProcessTable, pid: number, tags: Set<string>, prefixes: readonly string[]): boolean {
  // Every tag and prefix starts with `ELENCHOS_PROCESS_TAG=`.
  const entries = table.environEntries(pid, TAG_PREFIX) ?? [];
  return entries.some((entry) => tags.has(entry) || prefixes.some((p) => entry.startsWith(p)));
}

/** The process's `ELENCHOS_OWNER` value, or null when it carries none (or cannot be read). */
function readOwner(table: ProcessTable, pid: number): string | null {
  const entry = table.environEntries(pid, OWNER_PREFIX)?.[0];
  return entry === undefined ? null : entry.slice(OWNER_PREFIX.length);
}

/** A value that names no process (empty, forged) is no owner: only a well-formed tag of a gone process counts. */
function ownerDead(value: string): boolean {
  const owner = parseOwnerTag(value);
  return owner !== null && !ownerAlive(owner);
}

function holdsDirectory(table: ProcessTable, pid: number, dirs: readonly string[]): string[] {
  const inside = (target: string | null) => target !== null && dirs.some((d) => target === d || target.startsWith(`${d}/`));
  const held = table.held(pid);
  if (held === null) return [];
  const why: string[] = [];
  for (const link of ['cwd', 'root', 'exe'] as const) if (inside(held[link])) why.push(link);
  if (held.files.some(inside)) why.push('open-file');
  return why;
}

function readCommand(table: ProcessTable, pid: number): string {
  const raw = table.command(pid);
  return raw.length > 300 ? `${raw.slice(0, 300)}…` : raw;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone, or not ours: the survivors list says so
  }
}
