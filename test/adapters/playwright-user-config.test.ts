// The project's own playwright.config: use, timeout, expect and projects kept; what Elenchos must own
// (baseURL, reporters, outputDir, retries, workers, the browser) set over it, each override said once.
// @module-tag slow
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { playwrightLockedInputs } from '../../src/verifiers/playwright/spec-imports.js';
import type { VerifierProgress } from '../../src/verifiers/types.js';
import { startTinyApp, type TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import { criteria, linkNodeModules, verifyContext } from '../fixtures/playwright/verify-context.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

// A config a Playwright user has: devices, viewport, a custom test id attribute, timeouts, projects,
// their own web server, reporter, retries and a wrong baseURL (Elenchos's app is elsewhere).
const USER_CONFIG = `import { defineConfig, devices } from '@playwright/test';
import { narrow } from './config/sizes';

export default defineConfig({
  timeout: 20_000,
  expect: { timeout: 1234 },
  retries: 3,
  reporter: 'html',
  webServer: { command: 'node never-started.js', url: 'http://127.0.0.1:9/' },
  use: { baseURL: 'http://127.0.0.1:9/', testIdAttribute: 'data-qa', trace: 'on' },
  projects: [
    { name: 'setup', testMatch: /global\\.setup\\.ts/ },
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1111, height: 700 } } },
    { name: 'narrow', use: { viewport: narrow } },
    { name: 'firefox', use: { ...devices['Desktop Firefox'] } },
  ],
});
`;

const SPEC = `import { expect, test } from '@playwright/test';

test('sees the heading in its own viewport @AC-001', async ({ page }, info) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Fixture app');
  expect(page.viewportSize()?.width).toBe(info.project.name === 'narrow' ? 375 : 1111);
  // The user's expect timeout: a locator that never comes gives up after 1234ms.
  const error = await expect(page.locator('#never-there')).toBeVisible().catch((e: Error) => e);
  expect(String(error?.message)).toContain('Timeout: 1234ms');
  expect(info.timeout).toBe(20_000);
  expect(info.config.projects.map((p) => p.use.testIdAttribute)).toEqual(['data-qa', 'data-qa']);
});
`;

let app: TinyApp;
let project: string;
beforeAll(async () => {
  app = await startTinyApp();
  project = tempDir('elenchos-pw-user-config-');
  linkNodeModules(project);
  writeFiles(project, {
    'playwright.config.ts': USER_CONFIG,
    'config/sizes.ts': 'export const narrow = { width: 375, height: 667 };\n',
    'tests/viewport.spec.ts': SPEC,
  });
});
afterAll(async () => {
  await app?.close();
});

describe.concurrent("the project's playwright.config", { timeout: 180_000 }, () => {
  it('is locked with the spec: it is code the runner loads', async () => {
    expect((await playwrightLockedInputs(project, 'tests/viewport.spec.ts')).files).toEqual(['config/sizes.ts', 'playwright.config.ts']);
  });

  it('decides the projects the listing shows, Chromium ones only', async () => {
    const steps = await playwrightAdapter.readSteps(path.join(project, 'tests/viewport.spec.ts'), {
      root: project,
      command: undefined,
      env: {},
      baseEnv: process.env,
    });
    expect(steps.map((s) => [s.heading, s.verifies])).toEqual([
      ['[desktop] sees the heading in its own viewport @AC-001', ['AC-001']],
      ['[narrow] sees the heading in its own viewport @AC-001', ['AC-001']],
    ]);
  });

  it.runIf(hasChromium)(
    'keeps use, timeout, expect and projects; owns baseURL, reporters, retries and the browser, and says so',
    async () => {
      const evidenceDir = path.join(tempDir('elenchos-pw-evidence-'), 'verifier');
      const notes: string[] = [];
      const ctx = await verifyContext({
        cwd: project,
        spec: 'tests/viewport.spec.ts',
        url: app.url,
        evidenceDir,
        criteria: criteria(1),
        onProgress: (p: VerifierProgress) => void (p.kind === 'note' && notes.push(p.message)),
      });
      const result = await playwrightAdapter.verify(ctx);
      expect(result.status, `${result.summary}\n${JSON.stringify(result.findings, null, 2)}`).toBe('PASS');
      expect(notes).toEqual([
        'playwright.config.ts: retries is ignored: Elenchos retries once to see flaky tests (verifier.args ["--retries=N"] changes it)',
        'playwright.config.ts: reporter is ignored: Elenchos reads its own JSON report',
        'playwright.config.ts: webServer is ignored: Elenchos starts the app itself (app.command)',
        'playwright.config.ts: use.baseURL is ignored: the app Elenchos started',
        'playwright.config.ts: use.trace is ignored: Elenchos records traces of failures at the price of a bare run',
        'playwright.config.ts: project "setup" is not run: it selects its own test files',
        'playwright.config.ts: project "firefox" is not run: Elenchos runs Chromium, not firefox',
      ]);
      expect(result.details.configNotes).toEqual(notes);
      // The user's html reporter and trace: 'on' did not run: nothing but Elenchos's evidence.
      expect(readdirSync(evidenceDir).sort()).toEqual([
        'config-notes.json',
        'playwright',
        'playwright.config.ts',
        'progress-reporter.mjs',
        'report.json',
        'stderr.log',
        'stdout.log',
        // The project has no tsconfig: Playwright's one --tsconfig is this empty one of Elenchos.
        'tsconfig.elenchos.json',
      ]);
      expect(existsSync(path.join(project, 'playwright-report'))).toBe(false);
    },
  );
});
