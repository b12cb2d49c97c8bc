// `elenchos run` with the Playwright verifier: a missing element is a product FAIL the agent can repair, and
// a confirmed FAIL beside verifier trouble still reaches the agent. Playwright is the replay of its recorded
// runs in the system Chromium (test/helpers/playwright-replay.ts), against the real app on a fixed port: the
// point is what the run makes of the report, the prompt and the evidence, not the browser. Three whole runs
// (git worktrees, app, agent, repairs) still take tens of seconds: the slow suite.
// @module-tag slow
import { readFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FAKE_AGENT, FIXTURES, processesInside } from '../helpers/project.js';
import { REPLAY_BROWSER, REPLAY_COMMAND, REPLAY_PORTS, replayDescribe } from '../helpers/playwright-replay.js';
import { gitSync, tempRepo } from '../helpers/temp.js';
import { REPO_ROOT } from '../fixtures/playwright/verify-context.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('lists the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('listitem')).toHaveText(['Buy milk']);
});

test('clears the list @AC-002', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByRole('listitem')).toHaveCount(0);
});
`;

// AC-002's test stalls on something that is not the page: the verifier cannot judge it, every time.
const MIXED_SPEC = `import { test } from '@playwright/test';

test('clears the list @AC-001', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear' }).click();
});

test('waits on something else @AC-002', async ({ page }) => {
  test.setTimeout(1500);
  await page.goto('/');
  await page.waitForTimeout(10_000);
});
`;

const task = (testFile: string) =>
  `${JSON.stringify(
    {
      id: 'clear-list',
      title: 'Clear the list',
      description: 'A Clear button empties the task list.',
      acceptanceCriteria: [
        { id: 'AC-001', description: 'the list shows the tasks' },
        { id: 'AC-002', description: 'Clear empties the list' },
      ],
      verification: { testFile },
    },
    null,
    2,
  )}\n`;

/** Nothing left running in the case's repository (each case checks its own: they run together). */
const nothingLeftIn = (root: string) => expect(processesInside(root), `processes left in ${root}`).toEqual([]);

/**
 * A real repository: the tiny app (on `port`, the one its Playwright runs were recorded against: the URL is
 * in the traces), the task, the spec, node_modules linked (and ignored) for @playwright/test.
 */
function makePlaywrightProject(testFile: string, spec: string, port: number, more: Record<string, unknown> = {}): string {
  const config = {
    // The fake agent lives in this checkout, which may be under /tmp, hidden by the sandbox's own /tmp: unsandboxed, as written.
    agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'forget-button'], timeoutSeconds: 30, sandbox: 'none' },
    app: { command: 'node app.js --port {port}', port, readyTimeoutSeconds: 20 },
    // A short test timeout: a missing element costs seconds, not Playwright's default 30 s (5 s was too
    // short for a passing test's page setup on a loaded CI machine: UNVERIFIED instead of PASS).
    verifier: {
      type: 'playwright',
      command: REPLAY_COMMAND,
      browserPath: REPLAY_BROWSER,
      timeoutSeconds: 120,
      args: ['--retries=0', '--timeout=10000'],
    },
    maxRepairAttempts: 2,
    maxVerifierRetries: 0,
    ...more,
  };
  const root = tempRepo({
    '.gitignore': 'node_modules\n',
    'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1>Tasks</h1>\n',
    'tasks/clear-list.json': task(testFile),
    [testFile]: spec,
    'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
  });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
}

/** `elenchos run` of the task, in-process. */
const runTask = (root: string) => runMain(['run', 'tasks/clear-list.json'], root);

function onlyRunDir(root: string): { dir: string; record: Record<string, any> } {
  const [run] = readdirSync(path.join(root, '.elenchos/runs'));
  const dir = path.join(root, '.elenchos/runs', run!);
  return { dir, record: JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) };
}

const byId = (attempt: any) => Object.fromEntries(attempt.criteria.map((c: any) => [c.id, c.status]));

replayDescribe('elenchos run, Playwright in a real browser', { timeout: 240_000 }, () => {
  it('an agent that forgets a button gets FAIL naming the locator, repairs, and ends VERIFIED', async () => {
    const root = makePlaywrightProject('tests/clear-list.spec.ts', SPEC, REPLAY_PORTS.repair);
    const result = await runTask(root);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { dir, record } = onlyRunDir(root);
    expect(record.state).toBe('VERIFIED');
    expect(record.attempts.map((a: any) => a.status)).toEqual(['FAIL', 'PASS']);
    expect(byId(record.attempts[0])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
    expect(attempt.findings[0]).toMatchObject({
      step: 2,
      kind: 'product_failure',
      reasonCode: 'locator_timeout',
      locator: "getByRole('button', { name: 'Clear' })",
      location: 'tests/clear-list.spec.ts:10:53',
    });
    expect(attempt.findings[0].lastUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const prompt = readFileSync(path.join(dir, 'attempts/02/prompt.md'), 'utf8');
    expect(prompt).toContain('- FAIL AC-002: Clear empties the list');
    expect(prompt).toContain("waited for getByRole('button', { name: 'Clear' }) on http://127.0.0.1:");
    expect(prompt).toContain('    at tests/clear-list.spec.ts:10:53');
    expect(prompt).toMatch(
      / {4}```\n {4}Error: locator\.click: Test timeout of 10000ms exceeded\.\n {4}Call log:\n {4} {2}- waiting for getByRole/,
    );
    expect(prompt).not.toContain('.elenchos/workspaces');
    // `show` prints the finding with its repository-relative location and the call log.
    const show = await runMain(['show', 'latest'], root);
    expect(show.stdout).toContain('at tests/clear-list.spec.ts:10:53');
    expect(show.stdout).toContain("- waiting for getByRole('button', { name: 'Clear' })");
    // So does the HTML report, escaped, the whole message in a <pre>.
    const html = readFileSync((await runMain(['report', record.runId], root)).stdout.trim(), 'utf8');
    expect(html).toContain('<br><code>tests/clear-list.spec.ts:10:53</code>');
    expect(html).toContain(
      'Error: locator.click: Test timeout of 10000ms exceeded.\nCall log:\n  - waiting for getByRole(&#39;button&#39;, { name: &#39;Clear&#39; })',
    );
    expect(gitSync(root, 'status', '--porcelain')).toBe('');
    // The missing button cost one test timeout (10 s), once: no retry of the test, no re-verification.
    const report = JSON.parse(readFileSync(path.join(dir, 'attempts/01/verifier/report.json'), 'utf8'));
    const results = report.suites[0].specs[1].tests[0].results;
    expect(results).toHaveLength(1);
    expect(results[0].duration).toBeLessThan(20_000);
    expect(record.attempts.map((a: any) => a.kind)).toEqual(['agent', 'agent']);
    console.log(`forgotten button → VERIFIED in ${(record.durationMs / 1000).toFixed(1)} s`);
    nothingLeftIn(root);
  });

  it('a confirmed FAIL beside a test the verifier could not judge is FAIL, and the prompt names both', async () => {
    const root = makePlaywrightProject('tests/clear-mixed.spec.ts', MIXED_SPEC, REPLAY_PORTS.mixed);
    const result = await runTask(root);
    const { dir, record } = onlyRunDir(root);
    expect(record.attempts[0].status, result.stdout + result.stderr).toBe('FAIL');
    expect(byId(record.attempts[0])).toEqual({ 'AC-001': 'FAIL', 'AC-002': 'UNVERIFIED' });
    expect(record.attempts[0].summary).toMatch(/failed criteria: AC-001; could not be judged: AC-002$/);
    const prompt = readFileSync(path.join(dir, 'attempts/02/prompt.md'), 'utf8');
    expect(prompt).toContain(
      'Confirmed failures (the verifier saw the product do the wrong thing):\n- FAIL AC-001: the list shows the tasks',
    );
    expect(prompt).toContain("waited for getByRole('button', { name: 'Clear' })");
    expect(prompt).toMatch(/Could not be judged this time[^\n]*\n- UNVERIFIED AC-002: Clear empties the list/);
    expect(prompt).toContain('page.waitForTimeout: Test timeout of 1500ms exceeded');
    // Attempt 2 fixes AC-001; AC-002 still cannot be judged, and with no verifier retry left the run is ERROR, never FAILED.
    expect(record.attempts[1].status).toBe('VERIFIER_ERROR');
    expect(record.state).toBe('ERROR');
    nothingLeftIn(root);
  });

  it('a spec that goes to a fixed host: VERIFIER_ERROR naming both URLs, not re-verified', async () => {
    const port = REPLAY_PORTS.closed; // nothing listens there: the "dev server" of the spec's author
    const fixed = SPEC.replaceAll("await page.goto('/');", `await page.goto('http://localhost:${port}');`);
    const root = makePlaywrightProject('tests/fixed.spec.ts', fixed, REPLAY_PORTS.fixedHost, { maxVerifierRetries: 2 });
    const check = await runMain(['check'], root);
    expect(check.stdout).toContain(`tests/fixed.spec.ts:4: page.goto("http://localhost:${port}") opens a fixed host`);
    const result = await runTask(root);
    const { record } = onlyRunDir(root);
    expect(record, result.stdout + result.stderr).toMatchObject({ state: 'ERROR', reason: 'VERIFIER_ERROR' });
    // Two retries allowed, none used: the same error again is certain.
    expect(record.attempts, JSON.stringify(record.attempts.map((a: any) => [a.kind, a.status, a.summary]))).toHaveLength(1);
    expect(record.message).toMatch(
      new RegExp(
        `^VERIFIER_ERROR, not re-verified \\(the same error again is certain\\): .*your test went to http://localhost:${port}/, the app is at http://127\\.0\\.0\\.1:\\d+/`,
      ),
    );
    nothingLeftIn(root);
  });
});
