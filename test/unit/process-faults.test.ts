// The process layer under faults: a log on a full device, pids reused, zombies.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { liveRunProcesses, readChildLog, stopProcesses } from '../../src/core/stored-runs/run-processes.js';
import { NdjsonWriter } from '../../src/util/ndjson-writer.js';
import { listProcStats, parseProcStat, readProcStat, type ProcStat } from '../../src/process/proc-stat.js';
import { processAliveSince } from '../../src/process/process-table.js';
import { isDiskFull, withRunScope } from '../../src/process/run-scope.js';
import { groupAlive, groupMembers } from '../../src/process/process-group.js';
import { runProcess, startProcess } from '../../src/process/spawn.js';
import { tempDir } from '../helpers/temp.js';

const live = (pgid: number) => (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z' && m.state !== 'X');
const stat = (pid: number, pgid: number, startTime: string, state = 'S'): ProcStat => ({ pid, ppid: 1, pgid, startTime, state });

describe('a log on a full device (/dev/full answers every write with ENOSPC)', () => {
  it('the child runs to the end, the run hears of ENOSPC, and nothing is thrown', async () => {
    const errors: string[] = [];
    const result = await withRunScope({ childLog: null, onWriteError: (error, file) => errors.push(`${error.code} ${file}`) }, () =>
      runProcess('/bin/sh', ['-c', 'for i in 1 2 3; do echo line $i; done'], {
        cwd: process.cwd(),
        env: process.env,
        logFile: '/dev/full',
        stdoutFile: '/dev/full',
      }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdoutTail).toContain('line 3');
    expect(errors).toContain('ENOSPC /dev/full');
  });

  it('a failed write reaches the run while the child still runs, not when it exits (it would have waited 300 s)', async () => {
    let heard: (line: string) => void = () => undefined;
    const report = new Promise<string>((resolve) => (heard = resolve));
    const scope = { childLog: null, onWriteError: (error: NodeJS.ErrnoException, file: string) => heard(`${error.code} ${file}`) };
    // The child talks, then sleeps: only a stop ends it, so the report cannot be waiting for its exit.
    const child = await withRunScope(scope, async () =>
      startProcess('/bin/sh', ['-c', 'echo talking; echo to stderr >&2; exec sleep 300'], {
        cwd: process.cwd(),
        env: process.env,
        stdoutFile: '/dev/full',
        graceMs: 500,
      }),
    );
    try {
      expect(await report).toBe('ENOSPC /dev/full');
      expect(live(child.pid!)).not.toEqual([]);
    } finally {
      await child.stop();
    }
    expect(live(child.pid!)).toEqual([]);
    expect((await child.done).signal).toBe('SIGTERM');
  });

  it('NdjsonWriter rejects instead of emitting an unhandled error', async () => {
    const writer = NdjsonWriter.open('/dev/full');
    await expect(
      (async () => {
        for (let i = 0; i < 5; i++) await writer.write({ i });
        await writer.close();
      })(),
    ).rejects.toMatchObject({ code: 'ENOSPC' });
  });

  it('isDiskFull looks through causes', () => {
    expect(isDiskFull(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(new Error('wrapped', { cause: Object.assign(new Error('q'), { code: 'EDQUOT' }) }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe(false);
  });
});

describe('the processes a run recorded', () => {
  it('every child group is written to processes.ndjson with its /proc start time as it starts', async () => {
    const dir = tempDir();
    const childLog = path.join(dir, 'processes.ndjson');
    const result = await withRunScope({ childLog, onWriteError: () => undefined }, () =>
      runProcess('/bin/sh', ['-c', 'echo $$'], { cwd: dir, env: process.env }),
    );
    const [entry] = await readChildLog(dir);
    expect(entry).toMatchObject({ role: 'child', pid: Number(result.stdoutTail.trim()), pgid: Number(result.stdoutTail.trim()) });
    expect(entry!.startTime).toMatch(/^\d+$/);
    expect(readFileSync(childLog, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a reused pid is never taken for ours; a group whose leader is gone still is; zombies and older processes are not', () => {
    const entry = { role: 'child' as const, pid: 100, pgid: 100, startTime: '500', at: '' };
    // pid 100 now names a process started later: the group we recorded is gone.
    expect(liveRunProcesses([entry], [stat(100, 100, '900'), stat(101, 100, '950')])).toEqual([]);
    // the leader is gone, but a member it left in its group lives on.
    expect(liveRunProcesses([entry], [stat(101, 100, '600')]).map((p) => p.pid)).toEqual([101]);
    // the leader itself, and not a zombie nor a process older than the leader.
    expect(liveRunProcesses([entry], [stat(100, 100, '500'), stat(102, 100, '700', 'Z'), stat(103, 100, '400')]).map((p) => p.pid)).toEqual(
      [100],
    );
  });

  it("attack: a line naming a process older than the run (the user's shell, say) is never obeyed", () => {
    const victim = { role: 'child' as const, pid: 50, pgid: 50, startTime: '300', at: '' };
    const table = [stat(50, 50, '300')];
    expect(liveRunProcesses([victim], table)).toHaveLength(1); // without the owner's start time it would be
    expect(liveRunProcesses([victim], table, '400')).toEqual([]);
  });

  it('stops a real group it recorded, and leaves a real process alone when the start time does not match', async () => {
    // The marker is printed once the background sleep is forked: the group then has its two processes.
    const victim = spawn('/bin/sh', ['-c', 'sleep 60 & echo forked; exec sleep 60'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const bystander = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    try {
      await new Promise((resolve) => victim.stdout!.once('data', resolve));
      const v = readProcStat(victim.pid!)!;
      const b = readProcStat(bystander.pid!)!;
      const entries = [
        { role: 'child' as const, pid: v.pid, pgid: v.pid, startTime: v.startTime, at: '' },
        { role: 'child' as const, pid: b.pid, pgid: b.pid, startTime: String(BigInt(b.startTime) - 1n), at: '' },
      ];
      const found = liveRunProcesses(entries, listProcStats());
      expect(found.map((p) => p.pgid).every((g) => g === v.pid)).toBe(true);
      expect(found.length).toBeGreaterThanOrEqual(2); // the leader and its background sleep
      await stopProcesses(found);
      expect(found.every((p) => !processAliveSince(p.pid, p.startTime))).toBe(true);
      expect(processAliveSince(b.pid, b.startTime)).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
      victim.kill('SIGKILL');
    }
  });

  it('a zombie is not alive, and neither is a pid with another start time', async () => {
    // `sh` forks `sleep 0`, then becomes `sleep 30`, which never reaps it: a real zombie.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0 & exec sleep 30'], { stdio: 'ignore' });
    try {
      let zombie: ProcStat | undefined;
      for (let i = 0; i < 200 && !zombie; i++) {
        zombie = listProcStats().find((p) => p.ppid === parent.pid && p.state === 'Z');
        if (!zombie) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(zombie).toBeDefined();
      expect(processAliveSince(zombie!.pid, zombie!.startTime)).toBe(false);
      const me = readProcStat(process.pid)!;
      expect(processAliveSince(process.pid, me.startTime)).toBe(true);
      expect(processAliveSince(process.pid, String(BigInt(me.startTime) + 1n))).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('parses a command name holding spaces and parentheses', () => {
    const line = '42 (a b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 777 1000 10';
    expect(parseProcStat(42, line)).toMatchObject({ state: 'S', ppid: 1, pgid: 42, startTime: '777' });
  });
});

describe('groupAlive asks the leader first', () => {
  it('is true while the leader runs, true while only a member outlives the leader, false once all are gone', async () => {
    // The leader starts a member in its own group, prints the member's pid, then waits for a line on stdin.
    const leader = spawn('/bin/sh', ['-c', 'sleep 300 & echo $!; read line'], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    const memberPid = Number(await new Promise<string>((resolve) => leader.stdout!.once('data', (d) => resolve(String(d).trim()))));
    try {
      expect(groupAlive(leader.pid!)).toBe(true);
      // The leader exits (and is reaped by us); the member still runs in its group: the scan must find it.
      const exited = new Promise((resolve) => leader.once('exit', resolve));
      leader.stdin!.end('go\n');
      await exited;
      expect(live(leader.pid!).map((m) => m.pid)).toEqual([memberPid]);
      expect(groupAlive(leader.pid!)).toBe(true);
    } finally {
      process.kill(memberPid, 'SIGKILL');
    }
    for (let i = 0; i < 500 && groupAlive(leader.pid!); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(groupAlive(leader.pid!)).toBe(false);
  });
});

// processes.ndjson lives in the run folder, where an agent without the sandbox can write: a planted line
// naming pid 1 (init's group: `kill(-1)` is every process the user may signal, the whole machine as
// root) or group 0 (`kill(0)`: gc's own group) must never be signalled on its word.
describe('a planted processes.ndjson', () => {
  it('lines naming pid 0 or 1, a group other than the pid, or an odd start time are not read as processes', async () => {
    const dir = tempDir();
    const init = readProcStat(1);
    const lines = [
      { role: 'child', pid: 1, pgid: 1, startTime: init?.startTime ?? '1' },
      { role: 'child', pid: 0, pgid: 0, startTime: '0' },
      { role: 'child', pid: 4242, pgid: 1, startTime: '0' },
      { role: 'child', pid: 4243, pgid: 0, startTime: '0' },
      { role: 'child', pid: -1, pgid: -1, startTime: '0' },
      { role: 'child', pid: 5e9, pgid: 5e9, startTime: '0' },
      { role: 'child', pid: 4244, pgid: 4244, startTime: '-1' },
      { role: 'child', pid: 4245, pgid: 4245, startTime: '1'.repeat(30) },
      { role: 'child', pid: 4246, pgid: 4246, startTime: '77' },
    ];
    writeFileSync(path.join(dir, 'processes.ndjson'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    expect((await readChildLog(dir)).map((e) => e.pid)).toEqual([4246]);
  });

  it('stopProcesses signals no group 0 or 1, not its own group, not init and not itself, whatever it is handed', async () => {
    const own = readProcStat(process.pid)!;
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    try {
      await stopProcesses([stat(1, 1, '1'), stat(process.pid, own.pgid, own.startTime), { ...stat(4247, 0, '1') }], 0);
      const targets = kill.mock.calls.map(([target]) => target);
      for (const bad of [0, 1, -1, process.pid, -own.pgid]) expect(targets, String(bad)).not.toContain(bad);
    } finally {
      kill.mockRestore();
    }
  });
});
