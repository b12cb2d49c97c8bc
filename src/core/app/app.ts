// Starts the app under test in its own process group and races ready / exited early / timed out.
import { stripVTControlCharacters } from 'node:util';
import { describeError } from '../../errors.js';
import type { AppStartFailure } from '../../states.js';
import { startProcess, type RunningProcess, type SpawnResult } from '../../process/spawn.js';
import { probeUrl } from '../../process/url-probe.js';
import { waitUntilReady } from '../../process/wait-ready.js';
import { lastLines } from '../../util/text.js';
import { appSandboxCommand } from './app-sandbox.js';

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
  /** `agent.sandbox: bwrap`: the app runs in bubblewrap like the agent (app-sandbox.ts); `cwd` is its worktree. */
  sandbox?: { checkout: string; home: string | undefined; hidden?: readonly string[]; heldObjects?: string | null } | null;
}

export type AppStart =
  | { ok: true; app: RunningProcess; readyMs: number }
  | { ok: false; reason: Extract<AppStartFailure, 'APP_URL_IN_USE'>; message: string }
  | {
      ok: false;
      reason: Exclude<AppStartFailure, 'APP_URL_IN_USE'>;
      message: string;
      exitCode: number | null;
      logTail: string;
    };

type Race = { kind: 'ready' } | { kind: 'not-ready' } | { kind: 'exited'; result: SpawnResult } | { kind: 'interrupted' };

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
  const shell = { command: '/bin/sh', args: ['-c', options.command] };
  // bwrap stays the group's leader: stopping the group stops it, and its PID namespace ends with it.
  const spawned = options.sandbox ? appSandboxCommand(shell.command, shell.args, { workspace: options.cwd, ...options.sandbox }) : shell;
  const app = startProcess(spawned.command, spawned.args, {
    cwd: options.cwd,
    env: options.env,
    logFile: options.logFile,
    onStdoutLine: options.onLine,
    onStderrLine: options.onLine,
    keepGroupOnExit: true,
    keepBytes: 8 * 1024,
  });
  const polling = new AbortController();
  const outcome = await Promise.race<Race>([
    waitUntilReady(options.url, { deadline: started + options.readyTimeoutMs, signal: polling.signal, intervalMs: options.pollMs }).then(
      (ready) => (ready ? { kind: 'ready' } : { kind: 'not-ready' }),
    ),
    app.done.then((result) => ({ kind: 'exited', result })),
    interruption(options.signal),
  ]);
  polling.abort();
  if (outcome.kind === 'ready') return { ok: true, app, readyMs: Date.now() - started };
  if (outcome.kind === 'interrupted') {
    await app.stop();
    return { ok: false, reason: 'INTERRUPTED', message: 'interrupted while the app was starting', exitCode: null, logTail: '' };
  }
  await app.stop();
  const result = await app.done;
  const logTail = lastLines(result.stdoutTail + result.stderrTail, 15);
  if (outcome.kind === 'exited') {
    if (result.spawnError)
      return {
        ok: false,
        reason: 'APP_START_FAILED',
        message: `the app could not start: ${describeError(result.spawnError)}`,
        exitCode: null,
        logTail,
      };
    return {
      ok: false,
      reason: 'APP_EXITED',
      message: `the app exited with code ${result.exitCode} before ${options.url} answered`,
      exitCode: result.exitCode,
      logTail,
    };
  }
  // The message names what the URL did last, so the user can tell a crash loop from a wrong URL.
  const last = await probeUrl(options.url, 1000);
  const seen = last.answered ? `it answered HTTP ${last.status}` : `last probe: ${last.error}`;
  const elsewhere = listeningElsewhere(logTail, options.url);
  const hint = elsewhere
    ? `; its log says it listens at ${elsewhere}, another port: it never got the port it was given (a \`--\` that pnpm or yarn pass on to the script, a flag the script drops, or a port fixed in its config)`
    : '';
  return {
    ok: false,
    reason: 'APP_NOT_READY',
    message: `${options.url} did not become ready within app.readyTimeoutSeconds (${Math.round(options.readyTimeoutMs / 1000)}s; ${seen})${hint}`,
    exitCode: null,
    logTail,
  };
}

/**
 * The first loopback URL the app's log names on a port other than `url`'s (Vite's `Local:
 * http://localhost:5173/`), or null: an app that is up, but not where it was told to listen.
 */
export function listeningElsewhere(log: string, url: string): string | null {
  let expected: string;
  try {
    const parsed = new URL(url);
    expected = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  } catch {
    return null;
  }
  // Colour codes between the host and the port (Vite prints the port in bold) are dropped first.
  const plain = stripVTControlCharacters(log);
  for (const match of plain.matchAll(/\bhttps?:\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):(\d{1,5})\/?/g)) {
    if (match[1] !== expected) return match[0];
  }
  return null;
}

function interruption(signal: AbortSignal): Promise<Race> {
  if (signal.aborted) return Promise.resolve({ kind: 'interrupted' });
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'interrupted' }), { once: true }));
}
