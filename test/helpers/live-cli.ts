// The built CLI as a live child a test can watch, signal and kill at a chosen phase (no sleeps: markers).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN } from './cli.js';

export interface LiveCli {
  child: ChildProcessWithoutNullStreams;
  output(): { stdout: string; stderr: string };
  /** Resolves once stdout or stderr contains `text`; rejects after `ms` or if the CLI exits first. */
  waitFor(text: string, ms?: number): Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Starts `elenchos args` in `cwd`; `env` is added to the test's environment. */
export function startCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const check = () => {
    for (const w of waiters.splice(0)) {
      if (stdout.includes(w.text) || stderr.includes(w.text)) w.resolve();
      else waiters.push(w);
    }
  };
  child.stdout.on('data', (d) => {
    stdout += d;
    check();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    check();
  });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const waitFor = (text: string, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never saw "${text}":\n${stdout}\n${stderr}`)), ms);
      void exited.then(() => setTimeout(() => reject(new Error(`exited before "${text}":\n${stdout}\n${stderr}`)), 50));
      waiters.push({
        text,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      check();
    });
  return { child, output: () => ({ stdout, stderr }), waitFor, exited };
}

/** Waits (polling) until `file` exists: the run reached a test pause point. */
export async function waitForFile(file: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets a run paused at `point` go on. */
export function release(pauseDir: string, point: string): void {
  writeFileSync(path.join(pauseDir, `${point}.go`), '');
}

/** Every run record of `root` (parsed run.json), with its folder. */
export function allRuns(root: string): { dir: string; record: Record<string, any> }[] {
  const runs = path.join(root, '.elenchos/runs');
  if (!existsSync(runs)) return [];
  return readdirSync(runs).map((id) => ({
    dir: path.join(runs, id),
    record: JSON.parse(readFileSync(path.join(runs, id, 'run.json'), 'utf8')),
  }));
}

/** Pids from a run's processes.ndjson (the owner's and its children's) still alive and not zombies. */
export function liveRecordedPids(runDir: string): number[] {
  const file = path.join(runDir, 'processes.ndjson');
  if (!existsSync(file)) return [];
  const pids: number[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const { pid, startTime } = JSON.parse(line) as { pid: number; startTime: string };
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && fields[19] === startTime) pids.push(pid);
    } catch {
      // gone
    }
  }
  return pids;
}

/** Pids of live (non-zombie) processes whose command line has every one of `parts`. */
function processesWith(parts: string[]): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && parts.every((part) => args.some((a) => a.includes(part)))) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

/** The watchdog of Elenchos process `pid` (src/process/watchdog.ts), alive; empty while it has none. */
export function watchdogsOf(pid: number): number[] {
  return processesWith(['watchdog-main.js', `${pid}/`]);
}

/** Live pids carrying `ELENCHOS_OWNER` of Elenchos process `pid` (its children and all they started). */
export function processesOwnedBy(pid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (
        readFileSync(`/proc/${name}/environ`, 'latin1')
          .split('\0')
          .some((e) => e.startsWith(`ELENCHOS_OWNER=${pid}/`))
      )
        pids.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/**
 * SIGKILLs Elenchos process `pid` together with its watchdog (an OOM killer, `kill -9` of a whole
 * tree): nothing but `gc` is left to stop its children. Frozen first, so it cannot start another watchdog.
 */
export function killWithWatchdog(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  for (const dog of watchdogsOf(pid)) process.kill(dog, 'SIGKILL');
  process.kill(pid, 'SIGKILL');
}

/** Polls until `done()` holds; throws after `ms` with `what`. */
export async function waitUntil(done: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
