// What the verifier reads back from the attempt's evidence folder is only what Playwright wrote in this
// run: an agent (same user) can find the run's folder under .elenchos/runs/ and plant a passing
// report.json in the next attempt's verifier/ before it exists, hoping the runner never writes its own.
// @module-tag slow
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { startTinyApp, type TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import { copyFixtureSpecs, criteria, linkNodeModules, verifyContext } from '../fixtures/playwright/verify-context.js';
import { tempDir } from '../helpers/temp.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');
let app: TinyApp;
let project: string;

beforeAll(async () => {
  app = await startTinyApp();
  project = tempDir('elenchos-pw-project-');
  linkNodeModules(project);
  copyFixtureSpecs(project);
});
afterAll(async () => {
  await app?.close();
});

describe.runIf(hasChromium)('evidence planted before the run', { timeout: 180_000 }, () => {
  it('a passing report.json planted in the evidence folder is never read: no report of this run, no verdict', async () => {
    // A genuine passing report of the same spec, from a real run.
    const genuine = path.join(tempDir(), 'verifier');
    mkdirSync(genuine, { recursive: true });
    const honest = await playwrightAdapter.verify(
      await verifyContext({ cwd: project, spec: 'tests/pass.spec.ts', url: app.url, evidenceDir: genuine, criteria: criteria(2) }),
    );
    expect(honest.status).toBe('PASS');
    // Planted where the next attempt's runner writes its report; that runner then writes none and exits 0.
    const planted = path.join(tempDir(), 'verifier');
    mkdirSync(planted, { recursive: true });
    copyFileSync(path.join(genuine, 'report.json'), path.join(planted, 'report.json'));
    const silent = path.join(tempDir('elenchos-pw-fake-'), 'playwright');
    writeFileSync(silent, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const ctx = await verifyContext({
      cwd: project,
      spec: 'tests/pass.spec.ts',
      url: app.url,
      evidenceDir: planted,
      criteria: criteria(2),
    });
    const result = await playwrightAdapter.verify({ ...ctx, command: silent });
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.summary).toMatch(/no JSON report/);
    expect(result.criteria.every((c) => c.status !== 'PASS')).toBe(true);
  });
});
