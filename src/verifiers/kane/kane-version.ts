// `kane-cli --version`, for the run record (the stream's stream_start says it too, from 0.8.17).
import { runProcess } from '../../process/spawn.js';

/** The version kane-cli reports, or null when it cannot tell within `timeoutMs`. */
export async function kaneVersion(
  command = 'kane-cli',
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string | null> {
  const result = await runProcess(command, ['--version'], {
    cwd: options.cwd ?? '.',
    env: options.env ?? {},
    timeoutMs: options.timeoutMs ?? 5000,
    graceMs: 500,
    keepBytes: 4096,
  });
  if (result.exitCode !== 0) return null;
  return /\d+\.\d+\.\d+(?:[-+][\w.-]+)?/.exec(result.stdoutTail)?.[0] ?? null;
}
