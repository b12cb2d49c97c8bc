// Runs the CLI three ways, cheapest first:
//   runMain(args, cwd)   in-process, through main(argv, io) with its own streams, environment and folder: no
//                        Node start, no module loading; cases that await it can run concurrently
//                        (`describe.concurrent`). The default for anything that needs no process of its own.
//   spawnCli(args, cwd)  the built bin/elenchos.js in a child process, awaited: for what is about the process
//                        (signals, exit codes of the shim, the watchdog, the sandbox, installs, a real TTY-less pipe).
//   runCli(args, cwd)    the same child, synchronously (blocks the worker: nothing else runs meanwhile).
import { spawn, spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/elenchos.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `elenchos args` in `cwd` and waits for it, killing it after `timeoutMs` (a minute by default). */
export function runCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Like runCli, without blocking the worker: other concurrent cases run while this child does. */
export function spawnCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliRun> {
  return spawnCollected(process.execPath, [BIN, ...args], cwd, env, timeoutMs);
}

/** `command args` in `cwd` with this environment plus `env`, its output collected, killed after `timeoutMs`. */
export function spawnCollected(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `elenchos args` in this process: main(argv, io) with `cwd`, this process's environment plus `env`, an
 * empty stdin and no terminal, as a spawned CLI in a pipe sees them. What it writes comes back as text.
 */
export async function runMain(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  // Loaded on first use: a file that only spawns does not pay for the whole CLI's modules.
  const { main } = await import('../../src/cli.js');
  const code = await main(['node', BIN, ...args], { stdout, stderr, stdin, env: { ...process.env, ...env }, cwd, isTTY: false });
  // Let the streams deliver what was written before the last tick.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out, stderr: err };
}
