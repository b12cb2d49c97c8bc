// The process table from `ps`, where /proc does not list us (macOS has none; a container may hide it).
// Only what both BSD/macOS ps and procps take: `-A`, `-o` with empty headers, `-ww`; `stat` and `lstart`
// are not POSIX but both have them (POSIX's `etime` is rounded, too coarse to tell a reused pid). The
// environment is no POSIX column: macOS prints it after the arguments with `-E`, procps with `e`.
import { SYSTEM_PATH } from './system-path.js';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { ProcStat } from './proc-stat.js';

/** Where ps is looked for: system folders only, never PATH, which a folder the user (or the agent) can write may lead. */
export const PS_PATHS = ['/bin/ps', '/usr/bin/ps'] as const;

/** The columns of every table query: the arguments last, since they hold spaces. */
const COLUMNS = 'pid=,ppid=,pgid=,stat=,lstart=,args=';

/** ps lists itself: its own line must show this, or the environment column shows nobody's. */
const PROBE_NAME = 'ELENCHOS_PS_PROBE';
const PROBE = `${PROBE_NAME}=1`;

export interface PsRow extends ProcStat {
  /** The arguments as ps shows them (NULs as spaces; `<defunct>` for a zombie). */
  command: string;
}

export type PsTable = { ok: true; rows: PsRow[] } | { ok: false; why: string };

/** The first of PS_PATHS that exists, or null. */
export function findPs(): string | null {
  return PS_PATHS.find((p) => existsSync(p)) ?? null;
}

/**
 * Every process `ps` lists (or those of `pids`, with our own), or why it could not: it failed, or its
 * list lacks our own process, which proves it sees none.
 */
export function readPsTable(ps: string, pids: readonly number[] | null = null): PsTable {
  const select = pids === null ? ['-A'] : ['-p', [...new Set([...pids, process.pid])].join(',')];
  const run = runPs(ps, [...select, '-ww', '-o', COLUMNS]);
  if (!run.ok) return { ok: false, why: run.why };
  const rows = parsePsLines(run.stdout);
  const me = rows.find((r) => r.pid === process.pid);
  if (!me || me.state === 'Z') return { ok: false, why: `${ps} does not list this process` };
  return { ok: true, rows };
}

/**
 * Each process's arguments and environment as one line of space-separated words (ps cannot tell where one
 * ends: an argument that looks like `NAME=value` reads as an entry); null when ps shows no environment.
 */
export function readPsEnvironments(ps: string): Map<number, string> | null {
  for (const args of [
    ['-A', '-ww', '-E', '-o', 'pid=,args='],
    ['-A', '-ww', '-o', 'pid=,args=', 'e'],
  ]) {
    const run = runPs(ps, args);
    if (!run.ok) continue;
    const lines = new Map<number, string>();
    for (const line of run.stdout.split('\n')) {
      const match = /^\s*(\d+) (.*)$/.exec(line);
      if (match) lines.set(Number(match[1]), match[2]!);
    }
    // Its own line proves the column holds environments, not just arguments.
    if (run.pid !== undefined && words(lines.get(run.pid) ?? '').includes(PROBE)) return lines;
  }
  return null;
}

/** The words of an environment line that start with `prefix`. */
export function environmentWords(line: string, prefix: string): string[] {
  return words(line).filter((w) => w.startsWith(prefix));
}

/** Parses `pid ppid pgid stat lstart args` lines; a line it cannot read is skipped, never guessed at. */
export function parsePsLines(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\s*(.*)$/.exec(line);
    if (!match) continue;
    const startTime = epochStart(match[5]!);
    if (startTime === null) continue;
    rows.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      // The first letter is the state (R, S, T, Z…); what follows is detail (s, +, <, N…).
      state: match[4]![0]!,
      startTime,
      command: match[6]!.trimEnd(),
    });
  }
  return rows;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `lstart` (strftime's `%c` in the C locale, printed in UTC: we run ps with TZ=UTC) as `e<seconds since
 * 1970>`: the `e` keeps it from ever being compared with a /proc start time, which counts clock ticks.
 */
export function epochStart(lstart: string): string | null {
  const m = /^\w{3} (\w{3}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/.exec(lstart);
  const month = m ? MONTHS.indexOf(m[1]!) : -1;
  if (!m || month < 0) return null;
  const ms = Date.UTC(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return `e${Math.floor(ms / 1000)}`;
}

type PsRun = { ok: true; stdout: string; pid: number | undefined } | { ok: false; why: string; status: number | null; stdout: string };

function runPs(ps: string, args: readonly string[]): PsRun {
  // spawnSync, not execa: the table is read by synchronous callers and by the watchdog, which should not
  // load execa (about 16 MiB) for one ps a second. C locale and UTC: `lstart` must parse the same everywhere.
  const result = spawnSync(ps, args, {
    encoding: 'latin1',
    env: { PATH: SYSTEM_PATH, LC_ALL: 'C', TZ: 'UTC', [PROBE_NAME]: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error)
    return { ok: false, why: `${ps}: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`, status: null, stdout: '' };
  if (result.status !== 0) {
    const said = (result.stderr ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
    return {
      ok: false,
      why: `${ps} exited ${result.status ?? result.signal}${said ? ` (${said.trim().slice(0, 120)})` : ''}`,
      status: result.status,
      stdout: result.stdout ?? '',
    };
  }
  return { ok: true, stdout: result.stdout, pid: result.pid };
}

function words(line: string): string[] {
  return line.split(' ').filter(Boolean);
}
