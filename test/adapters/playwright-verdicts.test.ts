// The Playwright verifier against a real tiny app and the system Chromium, one case per status (PASS, FAIL,
// VERIFIER_ERROR, INCONCLUSIVE): the real-browser runs `npm test` keeps. Every other way a run can end is in
// playwright-verify.test.ts, from Playwright's recorded runs, with the same bench (test/helpers/playwright-verifier.ts).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PlaywrightFinding } from '../../src/verifiers/playwright/classify.js';
import type { VerifierProgress } from '../../src/verifiers/types.js';
import { criteria, listTree } from '../fixtures/playwright/verify-context.js';
import { hasChromium, playwrightBench, statuses } from '../helpers/playwright-verifier.js';

const bench = playwrightBench();
const { verify } = bench;

// Generous limits: these drive a real browser, and CI machines with two cores get slow under load. The
// cases run together: each has its own evidence folder, and the project is only read.
describe.runIf(hasChromium).concurrent('playwright verifier', { timeout: 120_000 }, () => {
  it('passes when every tagged test passes on its first try', async () => {
    const progress: VerifierProgress[] = [];
    const result = await verify('pass.spec.ts', { args: ['--retries=0'], onProgress: (p) => progress.push(p) });
    expect(result.status, result.summary).toBe('PASS');
    expect(statuses(result)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS' });
    expect(result.findings).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(progress.filter((p) => p.kind === 'step-end')).toMatchObject([
      { step: 1, heading: 'shows the heading', status: 'passed' },
      { step: 2, heading: 'lists the items @AC-002', status: 'passed' },
    ]);
  });

  it('fails the criterion whose assertion failed, keeps the others, and keeps trace and screenshot', async () => {
    const result = await verify('fail.spec.ts');
    expect(result.status, result.summary).toBe('FAIL');
    expect(statuses(result)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    const [finding] = result.findings as PlaywrightFinding[];
    expect(finding).toMatchObject({ step: 2, heading: 'lists three items', kind: 'product_failure', reasonCode: 'assertion' });
    expect(finding?.reason).toMatch(/toHaveCount/);
    expect(finding?.location).toMatch(/fail\.spec\.ts:\d+:\d+$/);
    const names = finding?.attachments.map((a) => a.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['screenshot', 'trace']));
    for (const attachment of finding?.attachments ?? []) expect(existsSync(attachment.path!)).toBe(true);
    expect(finding?.evidencePack).toMatch(/playwright\/.*trace\.zip$/);
    // The picture is the failure's page from its trace (a JPEG frame), and Playwright wrote no PNG of
    // the failure (its only-on-failure mode, which also photographs every passing test, is off).
    const shot = finding!.attachments.find((a) => a.name === 'screenshot')!;
    expect(readFileSync(shot.path!).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const output = finding!.evidencePack!.slice(0, finding!.evidencePack!.indexOf('/playwright/') + '/playwright'.length);
    expect(listTree(output).filter((file) => file.endsWith('.png'))).toEqual([]);
  });

  it('is a verifier error when the browser cannot launch', async () => {
    const result = await verify('pass.spec.ts', { browserPath: '/nonexistent/chrome', args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ kind: 'verifier_error', reasonCode: 'browser_launch' });
    expect(statuses(result)).toEqual({ 'AC-001': 'UNVERIFIED', 'AC-002': 'UNVERIFIED' });
  });

  it('never passes an attempt with a criterion no test names', async () => {
    const result = await verify('pass.spec.ts', { criteria: criteria(3), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(statuses(result)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS', 'AC-003': 'UNVERIFIED' });
    expect(result.summary).toMatch(/AC-003 is verified by no test/);
  });
});
