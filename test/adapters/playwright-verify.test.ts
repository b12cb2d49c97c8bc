// The Playwright verifier's verdict for every way a run can end, from Playwright's recorded report and output
// (the replay, test/helpers/playwright-replay.ts: each case was recorded against the tiny app in the system
// Chromium). One case per status with the real browser (the first pass, a failed assertion, a browser that
// cannot launch, a criterion no test names) is in playwright-verdicts.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import type { PlaywrightFinding } from '../../src/verifiers/playwright/classify.js';
import { criteria, verifyContext } from '../fixtures/playwright/verify-context.js';
import { tempDir } from '../helpers/temp.js';
import { playwrightBench, statuses } from '../helpers/playwright-verifier.js';
import { REPLAY_COMMAND, replayApp, replayDescribe } from '../helpers/playwright-replay.js';

const bench = playwrightBench({ replay: true });
const { verify } = bench;

// Generous limits for recording, when these drive a real browser.
replayDescribe('playwright verifier', { timeout: 120_000 }, () => {
  it('writes no snapshot baseline into the project: a missing one is no PASS (updateSnapshots none)', async () => {
    // verify() checks the project tree is as it was: no screenshot.spec.ts-snapshots/ beside the spec.
    const result = await verify('screenshot.spec.ts', { args: ['--retries=0'] });
    expect(result.status).not.toBe('PASS');
    expect(statuses(result)['AC-001']).not.toBe('PASS');
    expect(statuses(result)['AC-002']).toBe('PASS');
  });

  it('fails the criterion whose test waited out its timeout for a button the page never showed, naming the locator, the page and the call log', async () => {
    const result = await verify('missing-button.spec.ts', { args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('FAIL');
    expect(statuses(result)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    const [finding] = result.findings as PlaywrightFinding[];
    expect(finding).toMatchObject({
      step: 2,
      kind: 'product_failure',
      reasonCode: 'locator_timeout',
      locator: "getByRole('button', { name: 'Reset' })",
      lastUrl: bench.app.url,
    });
    expect(finding?.reason).toBe(
      `waited for getByRole('button', { name: 'Reset' }) on ${bench.app.url}, which never appeared (locator.click: Test timeout of 2500ms exceeded.)`,
    );
    // Every error of the test, the one naming the locator first, call log and code frame whole.
    expect(finding?.detail).toMatch(
      /^Error: locator\.click: Test timeout of 2500ms exceeded\.\nCall log:\n {2}- waiting for getByRole\('button', \{ name: 'Reset' \}\)/,
    );
    expect(finding?.detail).toContain('Test timeout of 2500ms exceeded.');
    expect(finding?.detail).toContain("> 12 |   await page.getByRole('button', { name: 'Reset' }).click();");
    // Repository-relative, never into the (removed) worktree.
    expect(finding?.location).toBe('tests/missing-button.spec.ts:12:53');
    expect(finding?.detail).not.toContain(bench.project);
    expect(result.summary).toMatch(/^product failure in test 2: .*failed criteria: AC-002$/);
  });

  it("fails the criterion when an action's own timeout runs out waiting for an element", async () => {
    const result = await verify('timeout.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('FAIL');
    expect(result.findings[0]).toMatchObject({
      step: 1,
      kind: 'product_failure',
      reasonCode: 'locator_timeout',
      locator: "locator('#never-there')",
    });
  });

  it('a confirmed failure wins over another test the verifier could not judge, which is named', async () => {
    const result = await verify('mixed.spec.ts', { args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('FAIL');
    expect(statuses(result)).toEqual({ 'AC-001': 'FAIL', 'AC-002': 'UNVERIFIED' });
    expect(result.summary).toMatch(/failed criteria: AC-001; could not be judged: AC-002$/);
    expect(result.findings.map((f) => [f.step, f.kind, f.reasonCode])).toEqual([
      [1, 'product_failure', 'assertion'],
      [2, 'verifier_error', 'test_timeout'],
    ]);
    // The assertion's whole diff is kept (Expected and Received), not its first lines.
    const detail = result.findings[0]!.detail ?? '';
    expect(detail).toContain('- Expected  - 1\n+ Received  + 0');
    expect(detail).toContain('-   "third",');
    expect(detail).toContain('locator resolved to 2 elements');
  });

  it('is a verifier error when a test times out on something that is not an element of the page', async () => {
    const result = await verify('stall.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ step: 1, kind: 'verifier_error', reasonCode: 'test_timeout' });
    expect(result.findings[0]!.reason).toMatch(/page\.waitForTimeout: Test timeout of 1500ms exceeded/);
    expect(statuses(result)).toEqual({ 'AC-001': 'UNVERIFIED' });
  });

  it("is the app's failure, never FAIL, when the app refuses the connection", async () => {
    const closed = await replayApp('closed');
    const result = await verify('pass.spec.ts', { url: closed.url, args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ kind: 'verifier_error', reasonCode: 'app_unreachable' });
    expect(result.findings[0]!.reason).toMatch(/the app's failure.*net::ERR_CONNECTION_REFUSED/);
    expect(result.summary).toMatch(/the app refused or never answered/);
  });

  it("is the app's failure, never FAIL, when the app never answers a navigation", async () => {
    const result = await verify('app-silent.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ kind: 'verifier_error', reasonCode: 'app_unreachable' });
  });

  it('is a verifier error, not FAIL, when the spec waits for an element without opening the app', async () => {
    const result = await verify('no-page.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.findings[0]).toMatchObject({ kind: 'verifier_error', reasonCode: 'no_page' });
  });

  it('is a verifier error when the runner is killed mid-run', async () => {
    const result = await verify('runner-killed.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(statuses(result)).toEqual({ 'AC-001': 'UNVERIFIED' });
  });

  it('never FAILs (nor PASSes) on a failing test that names no criterion', async () => {
    const result = await verify('untagged.spec.ts', { criteria: criteria(1), args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(statuses(result)).toEqual({ 'AC-001': 'PASS' });
    expect(result.summary).toMatch(/test 2 "has a footer" failed on the product but names no criterion/);
  });

  it('is a verifier error, with no browser left behind, when the whole run outlives its wall-clock limit', async () => {
    const result = await verify('hang.spec.ts', { criteria: criteria(1), timeoutMs: 6000, args: ['--retries=0'] });
    expect(result.status, result.summary).toBe('VERIFIER_ERROR');
    expect(result.timedOut).toBe(true);
    expect(result.summary).toMatch(/did not finish within 6s/);
  });

  it('is inconclusive when a test passes only on retry', async () => {
    const state = path.join(tempDir('elenchos-pw-flaky-'), 'state');
    const result = await verify('flaky.spec.ts', { criteria: criteria(1), env: { FLAKY_STATE: state } });
    expect(result.status, result.summary).toBe('INCONCLUSIVE');
    expect(result.summary).toMatch(/passed only on retry/);
    expect(result.findings[0]).toMatchObject({ step: 1, kind: 'unattributed_failure', reasonCode: 'flaky' });
    expect(statuses(result)).toEqual({ 'AC-001': 'UNVERIFIED' });
  });

  it('is a verifier error when the report is missing (playwright is not what it claims to be)', async () => {
    const fake = path.join(tempDir('elenchos-pw-fake-'), 'fake-playwright');
    writeFileSync(fake, '#!/bin/sh\necho "not playwright"\nexit 0\n', { mode: 0o755 });
    const ctx = await verifyContext({
      cwd: bench.project,
      spec: 'tests/pass.spec.ts',
      url: bench.app.url,
      evidenceDir: path.join(tempDir(), 'v'),
      criteria: criteria(2),
      command: REPLAY_COMMAND,
    });
    const result = await playwrightAdapter.verify({ ...ctx, command: fake });
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.summary).toMatch(/no JSON report/);
  });
});
