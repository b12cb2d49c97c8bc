// The one /proc reader: a command name is the process's own choice, so it must never be taken for fields.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isKernelThread,
  listPids,
  parseProcStat,
  readCmdline,
  readEnvironEntries,
  readProcLink,
  readProcStat,
} from '../../src/process/proc-stat.js';
import { tempDir } from '../helpers/temp.js';

/** A stat line as the kernel writes it: `pid (comm) state ppid pgrp session tty tpgid flags … starttime …`. */
const statLine = (comm: string) => `42 (${comm}) S 7 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 777 1000 10 18446744073709551615\n`;

describe('parseProcStat on hostile command names', () => {
  const hostile = ['a) b (c', ') Z 1 1 1', 'x) R 9 9', '))', '((', 'a b c', 'ends)', ')', ' ', 'a\nb) T'];
  for (const comm of hostile) {
    it(`reads the fields after ${JSON.stringify(comm)}`, () => {
      expect(parseProcStat(42, statLine(comm))).toEqual({ pid: 42, state: 'S', ppid: 7, pgid: 42, startTime: '777', flags: 4194560 });
    });
  }

  it('answers null for a line it cannot read rather than guessing', () => {
    expect(parseProcStat(42, '42 (sleep S 7 42 42')).toBeNull();
    expect(parseProcStat(42, '42 (sleep) S 7 42 42 0 -1')).toBeNull();
    expect(parseProcStat(42, '')).toBeNull();
  });

  it('tells a kernel thread by its flag, and a process by its absence', () => {
    const kthread = parseProcStat(2, '2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 3 0 0\n')!;
    expect(isKernelThread(kthread)).toBe(true);
    expect(isKernelThread(parseProcStat(42, statLine('kthreadd'))!)).toBe(false);
    expect(isKernelThread({ pid: 1, state: 'S', ppid: 0, pgid: 1, startTime: '1' })).toBe(false);
  });
});

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

describe.runIf(process.platform === 'linux')('a real process named to look like fields', () => {
  it('is read as itself: its own group, running, its arguments whole', async () => {
    const dir = tempDir();
    // The kernel takes the command name from the executable's file name (its first 15 bytes).
    const exe = path.join(dir, ') Z 1 1 1 (x');
    copyFileSync('/bin/sh', exe);
    const script = 'echo ready; read line';
    const child = spawn(exe, ['-c', script, 'sh', 'an argument'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, ELENCHOS_T: 'v' },
    });
    started.push(child);
    // Once it prints, it runs the copied shell (not yet the node that spawned it).
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    const pid = child.pid!;
    expect(readFileSync(`/proc/${pid}/comm`, 'latin1')).toBe(') Z 1 1 1 (x\n');
    const stat = readProcStat(pid)!;
    expect(stat).toMatchObject({ pid, ppid: process.pid, pgid: pid });
    expect(['R', 'S']).toContain(stat.state);
    expect(readCmdline(pid)).toEqual([exe, '-c', script, 'sh', 'an argument']);
    expect(readEnvironEntries(pid, 'ELENCHOS_T=')).toEqual(['ELENCHOS_T=v']);
    expect(readProcLink(pid, 'cwd')).toBe(realpathSync(process.cwd()));
    expect(listPids()).toContain(pid);
  });

  it('answers null for a pid that names no process', () => {
    const pid = 2 ** 22 + 1; // above Linux's pid_max ceiling
    expect(readProcStat(pid)).toBeNull();
    expect(readCmdline(pid)).toBeNull();
    expect(readEnvironEntries(pid, 'PATH=')).toBeNull();
  });
});

describe('nothing else reads /proc', () => {
  it('no module under src/ but proc-stat.ts opens, lists or follows a /proc path', () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    const reads =
      /\b(readFileSync|readFile|readdirSync|readdir|readlinkSync|readlink|openSync|open|createReadStream|statSync|stat)\(\s*['"`]\/proc\b/;
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== path.join('process', 'proc-stat.ts'))
      .filter((file) => reads.test(readFileSync(path.join(src, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
