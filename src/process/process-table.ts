// The one process table every process guard reads (escaped processes, the watchdog, gc, owner tags, locks):
// /proc where it lists this very process; else `ps` (ps-table.ts), with `lsof` for what each process holds
// (lsof-files.ts); else unavailable. Never an empty list that passes for "nothing runs": a table that does
// not list our own process lists nobody's, and says so (docs/security.md#the-process-table).
import { readlinkSync } from 'node:fs';
import type { ProcessTableBlindSpot, ProcessTableSource } from '../states.js';
import { findLsof, LSOF_PATHS, readLsofFiles, type HeldPaths } from './lsof-files.js';
import {
  isDefunct,
  listFds,
  listProcStats,
  readCmdline,
  readEnvironEntries,
  readProcLink,
  readProcStat,
  type ProcStat,
} from './proc-stat.js';
import { environmentWords, findPs, PS_PATHS, readPsEnvironments, readPsTable } from './ps-table.js';

export type { HeldPaths } from './lsof-files.js';

/** How a table was read, in the words the evidence keeps (attempt.json `guards.processScan`). */
export interface TableFacts {
  source: ProcessTableSource;
  /** Why this source and not a better one, for people. */
  why: string;
  /** What was asked of the table that it cannot see; empty when it saw all it was asked. */
  blind: ProcessTableBlindSpot[];
}

export interface ProcessTable extends TableFacts {
  /** Every process listed (none when unavailable). */
  processes: readonly ProcStat[];
  /** The process's environment entries starting with `prefix`; null when this table cannot tell. */
  environEntries(pid: number, prefix: string): string[] | null;
  /** Its cwd, root, executable and open files; null when this table cannot tell. */
  held(pid: number): HeldPaths | null;
  /** Its command line, NULs as spaces ('' when unknown). */
  command(pid: number): string;
}

/** What the caller will ask beyond the list: only those are read (ps's environment, lsof cost a second each on a Mac). */
export interface TableNeeds {
  environment?: boolean;
  directories?: boolean;
}

/** Other places to look, for tests of the fallbacks: a /proc that lists nobody, a ps and an lsof of their own. */
export interface TableSources {
  procRoot?: string;
  ps?: string | null;
  lsof?: string | null;
}

/** Reads the process table from the best source that lists this process, with what it cannot see. */
export function readProcessTable(needs: TableNeeds = {}, sources: TableSources = {}): ProcessTable {
  const notProc = procProblem(sources.procRoot ?? '/proc');
  if (notProc === null) return procTable();
  const ps = sources.ps === undefined ? findPs() : sources.ps;
  if (ps === null) return unavailable(`${notProc}; no ps at ${PS_PATHS.join(' or ')}`);
  const table = readPsTable(ps);
  if (!table.ok) return unavailable(`${notProc}; ${table.why}`);
  const rows = new Map(table.rows.map((r) => [r.pid, r]));
  const blind: ProcessTableBlindSpot[] = [];
  const why = [`${notProc}; ${ps} lists it`];
  const environments = needs.environment ? readPsEnvironments(ps) : null;
  if (needs.environment && environments === null) {
    blind.push('environment');
    why.push(`${ps} shows no environment (neither -E nor e)`);
  }
  let files: Map<number, HeldPaths> | null = null;
  if (needs.directories) {
    const lsof = sources.lsof === undefined ? findLsof() : sources.lsof;
    const read = lsof === null ? { ok: false as const, why: `no lsof at ${LSOF_PATHS.join(' or ')}` } : readLsofFiles(lsof);
    if (read.ok) files = read.held;
    else {
      blind.push('directories');
      why.push(`${read.why}: what a process holds cannot be seen`);
    }
  }
  return {
    source: 'ps',
    why: why.join('; '),
    blind,
    processes: table.rows.map(({ command: _command, ...stat }) => stat),
    environEntries: (pid, prefix) => (environments === null ? null : environmentWords(environments.get(pid) ?? '', prefix)),
    held: (pid) => (files === null ? null : (files.get(pid) ?? { cwd: null, root: null, exe: null, files: [] })),
    command: (pid) => rows.get(pid)?.command ?? '',
  };
}

/** Only the facts of a table (its source, why, what it cannot see), as a guard records them. */
export function tableFacts(table: TableFacts): TableFacts {
  return { source: table.source, why: table.why, blind: [...table.blind] };
}

/**
 * Each of `pids` that is alive now (gone ones are absent), read one way for all of them; null when no table
 * can tell. Cheaper than a whole table: /proc reads their own files, ps asks for them alone.
 */
export function lookUpProcesses(pids: readonly number[]): Map<number, ProcStat> | null {
  const found = new Map<number, ProcStat>();
  if (procProblem('/proc') === null) {
    for (const pid of pids) {
      const stat = readProcStat(pid);
      if (stat) found.set(pid, stat);
    }
    return found;
  }
  const ps = findPs();
  const table = ps === null ? null : readPsTable(ps, pids);
  if (!table?.ok) return null;
  for (const { command: _command, ...stat } of table.rows) if (pids.includes(stat.pid)) found.set(stat.pid, stat);
  return found;
}

/** The start time of `pid` as this machine's table tells it (ticks from /proc, `e<seconds>` from ps), or null. */
export function startTimeOf(pid: number): string | null {
  return lookUpProcesses([pid])?.get(pid)?.startTime ?? null;
}

/**
 * Orders two start times; null when they come from different clocks (/proc's ticks after boot, ps's
 * seconds: `e…`) or either is unreadable, since then neither "same" nor "older" can be told.
 */
export function compareStarts(a: string, b: string): number | null {
  const parse = (s: string) => (/^e?\d+$/.test(s) ? { epoch: s.startsWith('e'), value: BigInt(s.replace(/^e/, '')) } : null);
  const x = parse(a);
  const y = parse(b);
  if (x === null || y === null || x.epoch !== y.epoch) return null;
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}

/**
 * True while the process `pid` that started at `startTime` is alive and not a zombie. A start time of another
 * clock cannot be compared: the process is then taken as alive, so nothing of a live run is ever taken for
 * dead. Where no table can tell, kill(pid, 0) answers, which cannot tell a reused pid from ours.
 */
export function processAliveSince(pid: number, startTime: string | null | undefined): boolean {
  const found = lookUpProcesses([pid]);
  if (found === null) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const entry = found.get(pid);
  if (!entry || isDefunct(entry)) return false;
  if (startTime == null) return true;
  return (compareStarts(entry.startTime, startTime) ?? 0) === 0;
}

/** Null when `root` lists this process (its `self` is us, and our own entry reads), else why not. */
function procProblem(root: string): string | null {
  let self: string;
  try {
    self = readlinkSync(`${root}/self`);
  } catch (error) {
    return `${root} does not list this process (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
  // A /proc of another pid namespace names other processes by our numbers.
  if (self !== String(process.pid)) return `${root} is another pid namespace's (its self is ${self}, this process is ${process.pid})`;
  if (root === '/proc' && readProcStat(process.pid) === null) return '/proc does not show this process';
  return null;
}

function procTable(): ProcessTable {
  return {
    source: 'proc',
    why: '/proc lists this process',
    blind: [],
    processes: listProcStats(),
    environEntries: readEnvironEntries,
    held: (pid) => ({
      cwd: readProcLink(pid, 'cwd'),
      root: readProcLink(pid, 'root'),
      exe: readProcLink(pid, 'exe'),
      files: listFds(pid)
        .map((fd) => readProcLink(pid, `fd/${fd}`))
        .filter((target): target is string => target !== null),
    }),
    command: (pid) => (readCmdline(pid) ?? []).join(' '),
  };
}

function unavailable(why: string): ProcessTable {
  return {
    source: 'unavailable',
    why,
    blind: [],
    processes: [],
    environEntries: () => null,
    held: () => null,
    command: () => '',
  };
}
