// Starts the app under test in its own process group and races ready / exited early / timed out.
import { describeError } from '../errors.js';
import { startProcess, type RunningProcess } from '../process/spawn.js';
import { probeUrl } from '../process/url-probe.js';
import { lastLines } from '../util/text.js';

export interface StartAppOptions {
  command: string;
  url: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  logFile: string;
  signal: AbortSignal;
  onLine?: (line: string) => void;
  /** Poll interval while waiting for the URL. */
  pollMs?: number;
}

export type AppStart =
  | { ok: true; app: RunningProcess; readyMs: number }
  | { ok: false; reason: 'APP_URL_IN_USE'; message: string }
  | { ok: false; reason: 'APP_EXITED' | 'APP_NOT_READY' | 'APP_START_FAILED' | 'INTERRUPTED'; message: string; exitCode: number | null; logTail: string };

/** Refuses a URL that already answers, then starts `command` (via /bin/sh) and waits for the URL. */
export async function startApp(options: StartAppOptions): Promise<AppStart> {
  const before = await probeUrl(options.url, 500);
  if (before.answered) {
    return {
      ok: false,
      reason: 'APP_URL_IN_USE',
      message: `${options.url} already answers (HTTP ${before.status}) before the app was started: something else is serving it; stop it or set app.port to 0`,
    };
  }
  const started = Date.now();
  const app = startProcess('/bin/sh', ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    logFile: options.logFile,
    onStdoutLine: options.onLine,
    onStderrLine: options.onLine,
    keepGroupOnExit: true,
    keepBytes: 8 * 1024,
  });
  let exited: { code: number | null; spawnError: string | null } | null = null;
  void app.done.then((r) => {
    exited = { code: r.exitCode, spawnError: r.spawnError ? describeError(r.spawnError) : null };
  });
  const deadline = started + options.readyTimeoutMs;
  const poll = options.pollMs ?? 50;
  for (;;) {
    if (options.signal.aborted) {
      await app.stop();
      return { ok: false, reason: 'INTERRUPTED', message: 'interrupted while the app was starting', exitCode: null, logTail: '' };
    }
    const probe = await probeUrl(options.url, 1000);
    if (probe.answered && probe.status < 500) return { ok: true, app, readyMs: Date.now() - started };
    const end = exited as { code: number | null; spawnError: string | null } | null;
    if (end !== null) {
      const result = await app.done;
      await app.stop();
      const tail = lastLines(result.stdoutTail + result.stderrTail, 15);
      if (end.spawnError) return { ok: false, reason: 'APP_START_FAILED', message: `the app could not start: ${end.spawnError}`, exitCode: null, logTail: tail };
      return { ok: false, reason: 'APP_EXITED', message: `the app exited with code ${end.code} before ${options.url} answered`, exitCode: end.code, logTail: tail };
    }
    if (Date.now() >= deadline) {
      await app.stop();
      const result = await app.done;
      const seen = probe.answered ? `it answered HTTP ${probe.status}` : `last probe: ${probe.error}`;
      return {
        ok: false,
        reason: 'APP_NOT_READY',
        message: `${options.url} did not become ready within app.readyTimeoutSeconds (${Math.round(options.readyTimeoutMs / 1000)}s; ${seen})`,
        exitCode: null,
        logTail: lastLines(result.stdoutTail + result.stderrTail, 15),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}
