// `kane-cli --version`, for the run record (the stream's stream_start says it too, from 0.8.17).
import { fileStamp } from '../../process/file-stamp.js';
import { findExecutable } from '../../process/find-executable.js';
import { runProcess } from '../../process/spawn.js';

/** The version kane-cli reports, or null when it cannot tell within `timeoutMs`. */
export async function kaneVersion(
  command = 'kane-cli',
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string | null> {
  const result = await runProcess(command, ['--version'], {
    cwd: options.cwd,
    env: options.env ?? {},
    timeoutMs: options.timeoutMs ?? 5000,
    graceMs: 500,
    keepBytes: 4096,
  });
  if (result.exitCode !== 0) return null;
  return /\d+\.\d+\.\d+(?:[-+][\w.-]+)?/.exec(result.stdoutTail)?.[0] ?? null;
}

// `verify` of many tasks asks once per task: one kane-cli start (a Node program) each time, for the same
// answer. Asked once per process while the executable is the same file (real path, size, mtime).
const asked = new Map<string, Promise<string | null>>();

/** kaneVersion with PATH and HOME from `env`, remembered for this process per executable file. */
export async function sameKaneVersion(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string | null> {
  const env = { PATH: options.env.PATH, HOME: options.env.HOME };
  const found = await findExecutable(command, { cwd: options.cwd, pathEnv: env.PATH });
  if (!found) return kaneVersion(command, { cwd: options.cwd, env });
  const key = JSON.stringify([command, options.cwd, env.PATH ?? '', env.HOME ?? '', await fileStamp(found)]);
  let version = asked.get(key);
  if (!version) {
    version = kaneVersion(command, { cwd: options.cwd, env });
    asked.set(key, version);
  }
  return version;
}
