// The newest @playwright/test a user can install, not only the one this repository pins (1.58.2): the
// listing, the config merge, the JSON report and the trace's picture, through the built CLI in a real
// Chromium. The version is pinned exactly in test/fixtures/playwright-newest/ (package.json and lock) and
// installed once with `npm ci` into a scratch folder keyed by the lock's hash, kept across runs. When
// Playwright changes a format again (1.65 moved the trace's frames), this fails instead of a user's
// report silently losing its picture.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLAYWRIGHT_SUPPORTED } from '../../src/verifiers/playwright/playwright-version.js';
import { BIN, runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/project.js';
import { tempRepo } from '../helpers/temp.js';

const BROWSER = process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium';
const PINNED = path.join(FIXTURES, 'playwright-newest');
const VERSION = (JSON.parse(readFileSync(path.join(PINNED, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies['@playwright/test']!;

/**
 * The pinned install's node_modules: `npm ci` into a fresh folder, then renamed into place, so a run
 * that was killed half-way, or another process installing at the same time, never leaves a half install
 * where the next run would take it.
 */
function installNewest(): string {
  const lock = readFileSync(path.join(PINNED, 'package-lock.json'));
  const key = createHash('sha256')
    .update(lock)
    .update(readFileSync(path.join(PINNED, 'package.json')))
    .digest('hex')
    .slice(0, 16);
  const home = path.join(tmpdir(), `elenchos-playwright-newest-${key}`);
  if (existsSync(path.join(home, 'node_modules/@playwright/test/package.json'))) return path.join(home, 'node_modules');
  const scratch = mkdtempSync(path.join(tmpdir(), 'elenchos-playwright-install-'));
  copyFileSync(path.join(PINNED, 'package.json'), path.join(scratch, 'package.json'));
  copyFileSync(path.join(PINNED, 'package-lock.json'), path.join(scratch, 'package-lock.json'));
  // PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the verifier drives the system Chromium (docs/playwright.md).
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    timeout: 280_000,
  });
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm ci of @playwright/test ${VERSION} failed (${npm.status}): ${npm.stderr}`);
  }
  try {
    renameSync(scratch, home);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another process installed it first: take theirs
  }
  return path.join(home, 'node_modules');
}

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the heading', { tag: '@AC-001' }, async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('title')).toHaveText('Tasks');
});

test('has a Reset button', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Reset' }).click({ timeout: 1500 });
});
`;

// The user's config: testIdAttribute must reach the run (AC-001 passes only with it), baseURL must not.
const USER_CONFIG = `import { defineConfig } from '@playwright/test';

export default defineConfig({
  use: { testIdAttribute: 'data-qa', baseURL: 'http://127.0.0.1:9/' },
  timeout: 20_000,
});
`;

function project(modules: string): string {
  const root = tempRepo({
    '.gitignore': 'node_modules\n',
    'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1 data-qa="title">Tasks</h1><ul><li>Buy milk</li></ul>\n',
    'tasks/list.json': `${JSON.stringify({
      id: 'list',
      title: 'The task list',
      description: 'A heading and a Reset button.',
      acceptanceCriteria: [
        { id: 'AC-001', description: 'the heading says Tasks' },
        { id: 'AC-002', description: 'a Reset button' },
      ],
      verification: { testFile: 'tests/list.spec.ts', verifier: 'playwright' },
    })}\n`,
    'tests/list.spec.ts': SPEC,
    'playwright.config.ts': USER_CONFIG,
    'elenchos.config.json': JSON.stringify({
      app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 30 },
      verifier: { type: 'playwright', browserPath: BROWSER, timeoutSeconds: 240, args: ['--retries=0'] },
    }),
  });
  symlinkSync(modules, path.join(root, 'node_modules'), 'dir');
  return root;
}

describe.runIf(existsSync(BROWSER))(`the newest @playwright/test (${VERSION})`, { timeout: 400_000 }, () => {
  let modules = '';
  beforeAll(() => {
    modules = installNewest();
  }, 300_000);

  it('is the newest version Elenchos says it is tested with, and the one installed', () => {
    expect(VERSION).toBe(PLAYWRIGHT_SUPPORTED.newestTested);
    const installed = JSON.parse(readFileSync(path.join(modules, '@playwright/test/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(VERSION);
  });

  it('lists the spec through the user config (elenchos check)', () => {
    const root = project(modules);
    const check = runCli(['check', '--json', 'tasks/list.json'], root);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const task = (JSON.parse(check.stdout) as { tasks: { criteria: { id: string; steps: number[] }[]; steps: { heading: string }[] }[] })
      .tasks[0]!;
    expect(task.criteria).toEqual([
      expect.objectContaining({ id: 'AC-001', steps: [1] }),
      expect.objectContaining({ id: 'AC-002', steps: [2] }),
    ]);
    expect(task.steps.map((s) => s.heading)).toEqual(['shows the heading', 'has a Reset button']);
  });

  it("reads the run's JSON report with the user config merged, and the failed test has its picture in the report", () => {
    const root = project(modules);
    const verify = spawnSync(process.execPath, [BIN, 'verify', 'tasks/list.json'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 360_000,
    });
    const out = verify.stdout + verify.stderr;
    expect(verify.status, out).toBe(1);
    // The user's testIdAttribute reached the run (AC-001 passes with it), their baseURL did not (said once).
    expect(out).toContain('use.baseURL is ignored');
    const runs = path.join(root, '.elenchos/runs');
    const record = JSON.parse(readFileSync(path.join(runs, readdirSync(runs)[0]!, 'run.json'), 'utf8'));
    const attempt = record.attempts.at(-1);
    expect(Object.fromEntries(attempt.criteria.map((c: { id: string; status: string }) => [c.id, c.status]))).toEqual({
      'AC-001': 'PASS',
      'AC-002': 'FAIL',
    });
    expect(JSON.stringify(record)).toContain(VERSION);

    const report = runCli(['report', 'latest'], root);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    // The picture comes from 1.65's trace (`screencast/…` frames without a sha1): none before the fix.
    expect(html).toMatch(/<img alt="screenshot at the failure" src="data:image\/jpeg;base64,[A-Za-z0-9+/]{100,}/);
    expect(html).toMatch(/button.*Reset|Reset.*button/);
  });
});
