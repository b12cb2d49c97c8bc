// The skeleton `elenchos author` writes, run for real: an unwritten test never passes its criterion and
// is never a product failure (an agent must not be sent to "repair" the product for it).
// @module-tag slow
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { specSkeleton } from '../../src/verifiers/playwright/spec-skeleton.js';
import { startTinyApp, type TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import { criteria, linkNodeModules, verifyContext } from '../fixtures/playwright/verify-context.js';
import { tempDir } from '../helpers/temp.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');
let app: TinyApp;

beforeAll(async () => {
  app = await startTinyApp();
});
afterAll(async () => {
  await app?.close();
});

describe.runIf(hasChromium)('the authored Playwright skeleton', () => {
  it('is INCONCLUSIVE with every criterion UNVERIFIED, never PASS or FAIL', async () => {
    const project = tempDir('elenchos-pw-skeleton-');
    linkNodeModules(project);
    mkdirSync(path.join(project, 'tests'));
    const task = {
      id: 'add-task',
      title: 'Add a task',
      description: 'd',
      acceptanceCriteria: criteria(2),
      verification: { testFile: 'tests/a.spec.ts' },
    };
    writeFileSync(path.join(project, 'tests/a.spec.ts'), specSkeleton(task));
    const evidenceDir = path.join(tempDir('elenchos-pw-evidence-'), 'verifier');
    const ctx = await verifyContext({
      cwd: project,
      spec: 'tests/a.spec.ts',
      url: app.url,
      evidenceDir,
      criteria: criteria(2),
      browserPath: '/usr/bin/chromium',
      timeoutMs: 150_000,
    });
    expect(ctx.map.unmapped).toEqual([]);
    const result = await playwrightAdapter.verify(ctx);
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(result.criteria.map((c) => c.status)).toEqual(['UNVERIFIED', 'UNVERIFIED']);
    expect(result.findings.some((f) => f.kind === 'product_failure')).toBe(false);
  }, 200_000);
});
