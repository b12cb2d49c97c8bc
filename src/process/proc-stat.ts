// What Linux's /proc says about a process: state, group and start time, so a reused pid is never mistaken for ours.
import { readFileSync, readdirSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), X (dead), T, … */
  state: string;
  ppid: number;
  pgid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot; with the pid it names one process for the machine's uptime. */
  startTime: string;
}

/** Reads /proc/<pid>/stat; null when the process is gone or /proc cannot tell. */
export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  return parseProcStat(pid, text);
}

/** Parses one /proc/<pid>/stat line; the command name in parentheses may itself contain spaces and ')'. */
export function parseProcStat(pid: number, text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // After "pid (comm) ": field 3 state, 4 ppid, 5 pgrp, … 22 starttime (index 19 here).
  const fields = text.slice(close + 2).split(' ');
  const startTime = fields[19];
  if (fields.length < 20 || startTime === undefined) return null;
  return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]), startTime };
}

/** Every process /proc lists right now (empty where there is no /proc). */
export function listProcStats(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const stat = readProcStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** True when a zombie or a dead entry: it runs nothing and holds nothing but a slot in the table. */
export function isDefunct(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/**
 * True while the process `pid` that started at `startTime` is alive and not a zombie. Without /proc
 * (not Linux) the answer falls back to kill(pid, 0), which cannot tell a reused pid from ours.
 */
export function processAliveSince(pid: number, startTime: string | null | undefined): boolean {
  const stat = readProcStat(pid);
  if (stat) return !isDefunct(stat) && (startTime == null || stat.startTime === startTime);
  if (procAvailable()) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function procAvailable(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}
