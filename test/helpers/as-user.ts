// Running the CLI as root and as an ordinary user: CI runs as root, users mostly do not, and a sandbox
// that holds for one may not hold for the other. As root, the ordinary user is TEST_USER, switched to with
// `setpriv` (util-linux); as anyone else, the tests run as that user only.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BIN, spawnCollected, type CliRun } from './cli.js';
import { gitSync } from './temp.js';

export type Who = 'root' | 'user';

export const IS_ROOT = process.getuid?.() === 0;
const SETPRIV = '/usr/bin/setpriv';

/** An unprivileged uid and gid of no account (HOME comes from the environment; git needs no name with the identity set). */
export const TEST_USER = { uid: 48_151, gid: 48_151 };

/**
 * Whom a test can run as here: root and the test user when root, else whoever runs the tests. The test user
 * needs setpriv, and to reach node and this checkout's CLI (a checkout under a 0700 /root is out of its reach):
 * where it cannot, its cases are left out, and said so once.
 */
export const WHO: readonly Who[] = IS_ROOT ? (userCanRunCli() ? ['root', 'user'] : ['root']) : ['user'];

function userCanRunCli(): boolean {
  if (!existsSync(SETPRIV)) return false;
  const probe = spawnSync(
    SETPRIV,
    [
      `--reuid=${TEST_USER.uid}`,
      `--regid=${TEST_USER.gid}`,
      '--clear-groups',
      '--',
      process.execPath,
      '-e',
      `require('fs').accessSync(${JSON.stringify(BIN)})`,
    ],
    { encoding: 'utf8' },
  );
  if (probe.status === 0) return true;
  console.warn(
    `as-user: uid ${TEST_USER.uid} cannot run ${BIN} here (${probe.stderr.trim().split('\n')[0] ?? probe.status}): the ordinary-user cases are left out`,
  );
  return false;
}

/** Hands `paths` (whole trees) to whoever `who` runs as, so it can write its repository, HOME and key files. */
export function giveTo(who: Who, ...paths: string[]): void {
  if (who === 'user' && IS_ROOT) execFileSync('chown', ['-R', `${TEST_USER.uid}:${TEST_USER.gid}`, ...paths]);
}

/** `command args` as `who`: through setpriv (no supplementary group, no capability left) when root runs the tests. */
export function commandAs(who: Who, command: string, args: readonly string[]): { command: string; args: string[] } {
  if (who === 'root' || !IS_ROOT) return { command, args: [...args] };
  return {
    command: SETPRIV,
    args: [`--reuid=${TEST_USER.uid}`, `--regid=${TEST_USER.gid}`, '--clear-groups', '--inh-caps=-all', '--', command, ...args],
  };
}

/** `elenchos args` in `cwd` as `who`, waited for (killed after `timeoutMs`). */
export function runCliAs(who: Who, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): CliRun {
  const spawned = commandAs(who, process.execPath, [BIN, ...args]);
  const result = spawnSync(spawned.command, spawned.args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Like runCliAs, without blocking the worker: other concurrent cases run while this child does. */
export function spawnCliAs(who: Who, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliRun> {
  const spawned = commandAs(who, process.execPath, [BIN, ...args]);
  return spawnCollected(spawned.command, spawned.args, cwd, env, timeoutMs);
}

/** git as the test in a repository that may be the test user's: read-only questions, whoever owns it. */
export function gitRead(cwd: string, ...args: string[]): string {
  return gitSync(cwd, '-c', 'safe.directory=*', ...args);
}

export interface LiveCliAs {
  /** Resolves with the exit code (or the signal name) and everything printed. */
  exited: Promise<{ code: number | string; stdout: string; stderr: string }>;
}

/** `elenchos args` in `cwd` as `who`, left running: the test talks to what it started meanwhile. */
export function startCliAs(who: Who, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): LiveCliAs {
  const spawned = commandAs(who, process.execPath, [BIN, ...args]);
  const child = spawn(spawned.command, spawned.args, { cwd, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return {
    exited: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', stdout, stderr }))),
  };
}
