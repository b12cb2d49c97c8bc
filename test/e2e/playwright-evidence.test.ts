// What a Playwright user expects from `elenchos verify` of a failing spec, through the CLI with a real app:
// JUnit with durations and whole assertion messages, an HTML report with the screenshot inline, the error's
// line breaks, the trace and how to open it. Playwright is the replay of its run recorded in the system
// Chromium (test/helpers/playwright-replay.ts): the point is what Elenchos makes of its report and trace.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkNodeModules } from '../fixtures/playwright/verify-context.js';
import { runMain } from '../helpers/cli.js';
import { REPLAY_BROWSER, REPLAY_COMMAND, REPLAY_PORTS } from '../helpers/playwright-replay.js';
import { FIXTURES } from '../helpers/project.js';
import { taskJson, tempDir, tempRepo } from '../helpers/temp.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the heading', { tag: '@AC-001' }, async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tasks');
});

test('lists the tasks', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  expect(await page.locator('li').allTextContents()).toEqual(['Buy milk', 'Walk the dog']);
});
`;

function project(): string {
  const root = tempRepo({
    '.gitignore': 'node_modules\n',
    'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1>Tasks</h1><ul><li>Buy milk</li></ul>\n',
    'tasks/list.json': taskJson({ verification: { testFile: 'tests/list.spec.ts', verifier: 'playwright' } }),
    'tests/list.spec.ts': SPEC,
    'elenchos.config.json': JSON.stringify({
      // The port its Playwright run was recorded against (the URL is in the trace).
      app: { command: 'node app.js --port {port}', port: REPLAY_PORTS.evidence, readyTimeoutSeconds: 20 },
      verifier: { type: 'playwright', command: REPLAY_COMMAND, browserPath: REPLAY_BROWSER, timeoutSeconds: 180, args: ['--retries=0'] },
    }),
  });
  linkNodeModules(root);
  return root;
}

describe('Playwright evidence in JUnit and the HTML report', { timeout: 300_000 }, () => {
  it("gives each criterion its tests' time and whole failure, and shows screenshot, error and trace", async () => {
    const root = project();
    const junit = path.join(tempDir(), 'junit.xml');
    const verify = await runMain(['verify', '--junit', junit, 'tasks/list.json'], root);
    expect(verify.code, verify.stderr + verify.stdout).toBe(1);

    const xml = readFileSync(junit, 'utf8');
    const seconds = (id: string) => Number(new RegExp(`name="${id}: [^"]*" time="([\\d.]+)"`).exec(xml)?.[1]);
    expect(seconds('AC-001')).toBeGreaterThan(0);
    expect(seconds('AC-002')).toBeGreaterThan(0);
    const failure = /<testcase classname="add-task" name="AC-002[^>]*><failure message="[^"]*">([^<]*)<\/failure>/.exec(xml)?.[1] ?? '';
    // The whole message, diff lines included, and the way to the trace.
    expect(failure).toContain('test 2 &quot;lists the tasks&quot;');
    expect(failure).toMatch(/Expected/);
    expect(failure).toMatch(/Walk the dog/);
    expect(failure).toMatch(/trace: npx playwright show-trace \S+trace\.zip/);

    const report = await runMain(['report', 'latest'], root);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    expect(html).toContain('img-src data:');
    expect(html).toMatch(/<img alt="screenshot at the failure" src="data:image\/jpeg;base64,[A-Za-z0-9+/]{100,}/);
    expect(html).not.toContain('<script');
    // The error keeps its line breaks (a <pre>), with Playwright's diff in it.
    expect(html).toMatch(/<pre>[^<]*Expected[^<]*\n[^<]*Walk the dog/);
    const trace = /<a href="([^"]+trace\.zip)">trace\.zip<\/a> — open it with <code>npx playwright show-trace (\S+)<\/code>/.exec(html);
    expect(trace).not.toBeNull();
    expect(existsSync(path.resolve(path.dirname(report.stdout.trim()), decodeURIComponent(trace![1]!)))).toBe(true);
    expect(existsSync(trace![2]!)).toBe(true);
    expect(html).toContain('product failure (the app misbehaved)');
  });
});
