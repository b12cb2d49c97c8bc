// The Playwright verifier's bench, shared by the files that drive it in the system Chromium: a tiny app, a
// project with the fixture specs and node_modules linked, and verify(spec), which also checks that nothing
// is left running and nothing was written into the project.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { findMarkedProcesses } from '../../src/verifiers/playwright/reap-browsers.js';
import type { VerificationResult } from '../../src/verifiers/types.js';
import { startTinyApp, type TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import {
  copyFixtureSpecs,
  criteria,
  linkNodeModules,
  listTree,
  verifyContext,
  type ContextOptions,
} from '../fixtures/playwright/verify-context.js';
import { REPLAY_BROWSER, REPLAY_COMMAND, replayApp } from './playwright-replay.js';
import { tempDir } from './temp.js';

export const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

export interface PlaywrightBench {
  /** The tiny app (started before the file's tests, closed after). */
  readonly app: TinyApp;
  /** The project the specs run in. */
  readonly project: string;
  /** Runs tests/<spec> through the adapter against the app, with criteria AC-001 and AC-002 unless told. */
  verify(spec: string, options?: Partial<ContextOptions>): Promise<VerificationResult>;
}

/**
 * Registers the bench's beforeAll and afterAll in the calling test file. `replay`: Playwright is the replay
 * of its recorded runs (test/helpers/playwright-replay.ts) and the app a fixed URL; else the real one.
 */
export function playwrightBench(settings: { replay?: boolean } = {}): PlaywrightBench {
  let app: TinyApp | undefined;
  let project: string | undefined;
  let before: string[] = [];
  const command = settings.replay ? REPLAY_COMMAND : undefined;
  beforeAll(async () => {
    app = settings.replay ? await replayApp() : await startTinyApp();
    project = tempDir('elenchos-pw-project-');
    linkNodeModules(project);
    copyFixtureSpecs(project);
    before = listTree(project);
  });
  afterAll(async () => {
    await app?.close();
  });
  const bench: PlaywrightBench = {
    get app() {
      return app!;
    },
    get project() {
      return project!;
    },
    async verify(spec, options = {}) {
      const evidenceDir = path.join(tempDir('elenchos-pw-evidence-'), 'verifier');
      const ctx = await verifyContext({
        cwd: bench.project,
        spec: `tests/${spec}`,
        url: bench.app.url,
        evidenceDir,
        criteria: criteria(2),
        command,
        ...(settings.replay ? { browserPath: REPLAY_BROWSER } : {}),
        ...options,
      });
      const result = await playwrightAdapter.verify(ctx);
      // Nothing left running, and nothing written into the project.
      expect(await findMarkedProcesses(String(result.details.browserMarker))).toEqual([]);
      expect(listTree(bench.project)).toEqual(before);
      return result;
    },
  };
  return bench;
}

/** Each criterion's status. */
export const statuses = (result: VerificationResult) => Object.fromEntries(result.criteria.map((c) => [c.id, c.status]));
