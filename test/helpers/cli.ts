// Spawns the built CLI (bin/elenchos.js) the way a user would.
import { spawnSync } from 'node:child_process';
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
