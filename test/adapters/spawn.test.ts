// The spawn helper on real child processes: bytes kept as written, lines decoded, the group killed
// on timeout and abort, the output cap, a start failure, and pipes held by an escaped process.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { groupMembers } from '../../src/process/process-group.js';
import { runProcess, startProcess } from '../../src/process/spawn.js';
import { tempDir } from '../helpers/temp.js';

const env = { PATH: process.env.PATH };
const live = (pgid: number) => (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z' && m.state !== 'X');

describe('startProcess / runProcess', () => {
  it('stores stdout, stderr and the shared log byte for byte; listeners get decoded lines without CR', async () => {
    const dir = tempDir();
    const files = { stdoutFile: path.join(dir, 'out'), stderrFile: path.join(dir, 'err'), logFile: path.join(dir, 'log') };
    const out: string[] = [];
    const err: string[] = [];
    const script = "printf '{\\377\\376}\\r\\na\\000b\\nlast'; printf 'e\\377\\r\\n' >&2";
    const result = await runProcess('sh', ['-c', script], {
      cwd: dir,
      env,
      ...files,
      onStdoutLine: (l) => out.push(l),
      onStderrLine: (l) => err.push(l),
    });
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, aborted: false, outputCapped: false, spawnError: null });
    expect(readFileSync(files.stdoutFile).toString('hex')).toBe('7bfffe7d0d0a6100620a6c617374');
    expect(readFileSync(files.stderrFile).toString('hex')).toBe('65ff0d0a');
    expect(readFileSync(files.logFile).length).toBe(14 + 4);
    expect(out).toEqual(['{\ufffd\ufffd}', 'a\u0000b', 'last']);
    expect(err).toEqual(['e\ufffd']);
    expect(result.stdoutTail).toBe('{\ufffd\ufffd}\r\na\u0000b\nlast');
  });

  it('writes the input to stdin and closes it', async () => {
    const result = await runProcess('cat', [], { cwd: tempDir(), env, input: 'the prompt\n' });
    expect(result.stdoutTail).toBe('the prompt\n');
  });

  it('on timeout, stops the leader and everything it started in its group', async () => {
    const started = Date.now();
    const child = startProcess('sh', ['-c', 'sleep 60 & sleep 60'], { cwd: tempDir(), env, timeoutMs: 300, graceMs: 500 });
    const result = await child.done;
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(live(child.pid!)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a gated child waits for its release: `go` on stdin, and the timeout counts from the release', async () => {
    // The child reports it is waiting, then reads stdin; it can end only once released. Its timeout
    // (300 ms) would have expired long before the release if it counted from the start.
    let waiting!: () => void;
    const atGate = new Promise<void>((resolve) => (waiting = resolve));
    const child = startProcess('sh', ['-c', 'echo waiting; read line; echo "got $line"; sleep 60'], {
      cwd: tempDir(),
      env,
      timeoutMs: 300,
      graceMs: 300,
      gated: true,
      onStdoutLine: (line) => line === 'waiting' && waiting(),
    });
    await atGate;
    // Twice its timeout at the gate, and still there (what is tested is that a clock did *not* fire).
    const atGateSince = Date.now();
    await sleep(600);
    expect(live(child.pid!).length).toBeGreaterThan(0);
    child.release();
    const result = await child.done;
    expect(result.stdoutTail).toBe('waiting\ngot go\n');
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(Date.now() - atGateSince);
    expect(live(child.pid!)).toEqual([]);
  });

  it('a gated child that is stopped before its release is gone with its group, and never read `go`', async () => {
    const child = startProcess('sh', ['-c', 'sleep 60 & read line; echo "got $line"'], { cwd: tempDir(), env, gated: true, graceMs: 300 });
    await child.stop();
    const result = await child.done;
    expect(result.stdoutTail).toBe('');
    expect(result.timedOut).toBe(false);
    expect(live(child.pid!)).toEqual([]);
    child.release(); // after the end: nothing to write to, nothing thrown
  });

  it('on abort, escalates to SIGKILL when the leader ignores SIGTERM', async () => {
    const controller = new AbortController();
    const child = startProcess('sh', ['-c', "trap '' TERM; echo up; sleep 60"], {
      cwd: tempDir(),
      env,
      signal: controller.signal,
      graceMs: 300,
      onStdoutLine: () => controller.abort(),
    });
    const result = await child.done;
    expect(result).toMatchObject({ aborted: true, signal: 'SIGKILL' });
    expect(live(child.pid!)).toEqual([]);
  });

  it('cuts a runaway at maxOutputBytes: flagged, killed, the file kept near the cap', async () => {
    const file = path.join(tempDir(), 'out');
    const result = await runProcess('sh', ['-c', 'yes 0123456789abcdef'], {
      cwd: tempDir(),
      env,
      stdoutFile: file,
      maxOutputBytes: 1_000_000,
      keepBytes: 17,
    });
    // Killed by our SIGTERM, or ended by the pipe we cut (EPIPE): either way not a clean exit.
    expect(result.outputCapped).toBe(true);
    expect(result.exitCode).not.toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(900_000);
    expect(readFileSync(file).length).toBeLessThan(1_000_000 + 256 * 1024);
    expect(result.stdoutTail.length).toBeLessThanOrEqual(17);
  });

  it('reports a command that cannot start as a spawnError, without an exit code', async () => {
    const result = await runProcess('/nonexistent/elenchos-tool', [], { cwd: tempDir(), env });
    expect(result.spawnError?.code).toBe('ENOENT');
    expect(result.exitCode).toBeNull();
  });

  it('does not wait for a process that left the group and holds the pipes open', async () => {
    const started = Date.now();
    const result = await runProcess('sh', ['-c', 'setsid sleep 8 & echo $!'], { cwd: tempDir(), env });
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(7000);
    process.kill(Number(result.stdoutTail.trim()), 'SIGKILL'); // ours to clean up: it escaped on purpose
  });
});
