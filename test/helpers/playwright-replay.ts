// The Playwright replay (test/fixtures/bin/playwright-replay) as the tests use it: `verifier.command` for
// cases whose point is how Elenchos maps Playwright's listing, report and output to verdicts, not the
// browser. With ELENCHOS_PLAYWRIGHT_RECORD=1 (scripts/record-playwright.js) the same cases run the real
// Playwright in the system Chromium against real apps on fixed ports, and store what it did.
import path from 'node:path';
import { describe, type TestOptions } from 'vitest';
import { startTinyApp, type TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import { REPO_ROOT } from '../fixtures/playwright/verify-context.js';

export const REPLAY_BIN = path.join(REPO_ROOT, 'test/fixtures/bin/playwright-replay');
export const RECORDING = process.env.ELENCHOS_PLAYWRIGHT_RECORD === '1';
/** The `verifier.command` that replays (or, recording, runs the real Playwright and stores what it did). */
export const REPLAY_COMMAND = RECORDING ? `${REPLAY_BIN} --record` : REPLAY_BIN;
/**
 * The browser the captures were recorded with, given as `verifier.browserPath` in every replayed case: it
 * is in the generated config the replay keys on, so a machine whose Chromium is elsewhere (or absent)
 * still replays them.
 */
export const REPLAY_BROWSER = '/usr/bin/chromium';
/** Where the captures are, per @playwright/test version. */
export const CAPTURES = path.join(REPO_ROOT, 'test/fixtures/playwright-replay');
/** The exit code of the replay when it has no capture for an invocation. */
export const UNKNOWN_INVOCATION = 86;

/**
 * Fixed loopback ports of the recorded apps: a URL is in the captured report and inside the traces (the
 * last URL a failed test showed), so a replayed case must give Playwright the URL it was recorded with.
 * `app` and `closed` are the adapter tests' tiny app (replayApp); the others are `app.port` of the
 * end-to-end runs, one per case so that they can run together. Below every system's range of ephemeral
 * ports (Linux 32768–60999, macOS and Windows 49152–65535): a port in it can be taken at any moment by the
 * local end of some other test's connection, and the app then fails with EADDRINUSE (it did, once the slow
 * suite ran three files at once).
 */
export const REPLAY_PORTS = { app: 31_391, closed: 31_392, repair: 31_393, mixed: 31_394, fixedHost: 31_395, evidence: 31_396 } as const;

/** Independent replayed cases run together; recording runs them one at a time (a loaded browser times out). */
export function replayDescribe(name: string, options: TestOptions, cases: () => void): void {
  (RECORDING ? describe : describe.concurrent)(name, options, cases);
}

/**
 * The tiny app at a fixed port: real while recording, only its URL when replaying (the replay opens no
 * page). `closed`: the URL of an app that refuses connections (started and closed while recording).
 */
export async function replayApp(which: 'app' | 'closed' = 'app'): Promise<TinyApp> {
  const port = REPLAY_PORTS[which];
  if (!RECORDING) return { url: `http://127.0.0.1:${port}/`, close: async () => {} };
  const app = await startTinyApp(port);
  if (which === 'closed') await app.close();
  return app;
}
