// The one reader of Linux's /proc: a process's state, group and start time (so a reused pid is never
// mistaken for ours), the pids listed, and what a process carries (command line, environment, the files
// it holds). Every reader answers null (or an empty list) when the process is gone or not ours to read.
// Whether /proc can be believed at all is process-table.ts's question, not this file's.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), X (dead), T, … */
  state: string;
  ppid: number;
  pgid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot; with the pid it names one process for the machine's uptime. */
  startTime: string;
  /** Field 9, the kernel's PF_* flags; absent from a table made by hand. */
  flags?: number;
}

/** Reads /proc/<pid>/stat; null when the process is gone or /proc cannot tell. */
export function readProcStat(pid: number): ProcStat | null {
  const text = readProcFile(pid, 'stat', 'latin1');
  return text === null ? null : parseProcStat(pid, text);
}

/**
 * Parses one /proc/<pid>/stat line. The command name in parentheses is the process's own choice (up to
 * 15 bytes, any of them a space or a parenthesis): only the last ')' of the line closes it, since no
 * field after it can hold one.
 */
export function parseProcStat(pid: number, text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0 || text[close + 1] !== ' ') return null;
  // After "pid (comm) ": field 3 state, 4 ppid, 5 pgrp, … 9 flags (index 6), … 22 starttime (index 19).
  const fields = text.slice(close + 2).split(' ');
  const startTime = fields[19];
  if (fields.length < 20 || startTime === undefined) return null;
  const flags = Number(fields[6]);
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime,
    ...(Number.isInteger(flags) ? { flags } : {}),
  };
}

/** The pids /proc lists right now; null where there is no /proc to ask. */
export function listPids(): number[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  return names.filter((name) => /^\d+$/.test(name)).map(Number);
}

/** Every process /proc lists right now (empty where there is no /proc). */
export function listProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const pid of listPids() ?? []) {
    const stat = readProcStat(pid);
    if (stat) stats.push(stat); // null: gone meanwhile
  }
  return stats;
}

/** True when a zombie or a dead entry: it runs nothing and holds nothing but a slot in the table. */
export function isDefunct(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

// PF_KTHREAD: only the kernel sets it, on its own threads, which run no user code and hold no files.
const PF_KTHREAD = 0x00200000;

/** True for a kernel thread (about half the pids of a small machine): no environment, no files of its own. */
export function isKernelThread(stat: ProcStat): boolean {
  return stat.flags !== undefined && (stat.flags & PF_KTHREAD) !== 0;
}

/** The process's arguments (/proc/<pid>/cmdline split at its NULs); null when it cannot be read. */
export function readCmdline(pid: number): string[] | null {
  const raw = readProcFile(pid, 'cmdline', 'utf8');
  return raw === null ? null : raw.replace(/\0+$/, '').split('\0');
}

/** The process's environment entries (`NAME=value`) that start with `prefix`; null when it is gone or not ours to read. */
export function readEnvironEntries(pid: number, prefix: string): string[] | null {
  const raw = readProcFile(pid, 'environ', 'latin1');
  if (raw === null) return null;
  // Most processes carry no entry we look for: they are let go without splitting their whole environment.
  if (!raw.includes(prefix)) return [];
  return raw.split('\0').filter((entry) => entry.startsWith(prefix));
}

/**
 * Where the process's `cwd`, `root`, `exe` or open file `fd/<n>` points; null when it cannot be read.
 * A deleted file reads as "<path> (deleted)": it still counts as where it was.
 */
export function readProcLink(pid: number, link: string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/${link}`).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

/** The process's open file descriptors (names under /proc/<pid>/fd); empty when they cannot be read. */
export function listFds(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`);
  } catch {
    return []; // gone, or not ours to read
  }
}

function readProcFile(pid: number, name: string, encoding: BufferEncoding): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, encoding);
  } catch {
    return null; // gone, or not ours to read
  }
}
