// Running the CLI as root and as an ordinary user: CI runs as root, users mostly do not, and a sandbox
// that holds for one may not hold for the other. As root, the ordinary user is TEST_USER, switched to with
// `setpriv` (util-linux); as anyone else, the tests run as that user only.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BIN, type CliRun } from './cli.js';

export type Who = 'root' | 'user';

export const IS_ROOT = process.getuid?.() === 0;
const SETPRIV = '/usr/bin/setpriv';

/** An unprivileged uid and gid of no account (HOME comes from the environment; git needs no name with the identity set). */
export const TEST_USER = { uid: 48_151, gid: 48_151 };

/** Whom a test can run as here: root and the test user when root (and setpriv is there), else whoever runs the tests. */
export const WHO: readonly Who[] = IS_ROOT ? (existsSync(SETPRIV) ? ['root', 'user'] : ['root']) : ['user'];

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
