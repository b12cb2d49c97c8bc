// The @playwright/test versions a user may have, not only the one this repository pins (1.58.2): the
// listing, the config merge, the JSON report and the trace's picture, through the built CLI in a real
// Chromium, against two installs in scratch folders under the temp dir, kept across runs:
// - the newest version Elenchos says it has tested, pinned exactly in test/fixtures/playwright-newest/
//   (package.json and lock), installed with `npm ci` into a folder keyed by the lock's hash;
// - the registry's latest at test time (`npm view @playwright/test version`), installed with
//   `npm install` into a folder keyed by that version (the same install when it is the pinned one).
// When Playwright publishes a newer release, the latest install runs the same checks and one more test
// fails until the release is tested and PLAYWRIGHT_SUPPORTED.newestTested raised: a changed format (1.65
// moved the trace's frames) shows up here instead of as a user's report silently losing its picture.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLAYWRIGHT_SUPPORTED, playwrightSupport } from '../../src/verifiers/playwright/playwright-version.js';
import { BIN, runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/project.js';
import { tempRepo } from '../helpers/temp.js';

const BROWSER = process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium';
const PINNED = path.join(FIXTURES, 'playwright-newest');
const PINNED_VERSION = (JSON.parse(readFileSync(path.join(PINNED, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies['@playwright/test']!;
// PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: the verifier drives the system Chromium (docs/playwright.md).
const NPM_ENV = { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };

/** What `npm view` says the registry's latest @playwright/test is, now. */
function registryLatest(): string {
  const view = spawnSync('npm', ['view', '@playwright/test', 'version'], { encoding: 'utf8', env: NPM_ENV, timeout: 120_000 });
  const version = view.stdout?.trim() ?? '';
  if (view.status !== 0 || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`npm view @playwright/test version failed (${view.status}): ${view.stderr}; the stacks suite needs the npm registry`);
  }
  return version;
}

/**
 * node_modules of an install kept under the temp dir as `name`: `npm <args>` in a fresh folder holding
 * `files`, then renamed into place, so a run that was killed half-way, or another process installing at
 * the same time, never leaves a half install where the next run would take it.
 */
function installOnce(name: string, files: Record<string, string | Buffer>, args: string[]): string {
  const home = path.join(tmpdir(), name);
  if (existsSync(path.join(home, 'node_modules/@playwright/test/package.json'))) return path.join(home, 'node_modules');
  const scratch = mkdtempSync(path.join(tmpdir(), 'elenchos-playwright-install-'));
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(scratch, file), content);
  const npm = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: scratch,
    encoding: 'utf8',
    env: NPM_ENV,
    timeout: 280_000,
  });
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm ${args.join(' ')} in ${name} failed (${npm.status}): ${npm.stderr}`);
  }
  try {
    renameSync(scratch, home);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another process installed it first: take theirs
  }
  return path.join(home, 'node_modules');
}

/** The pinned version, exactly as its lock says: `npm ci`, keyed by the lock's hash. */
function installPinned(): string {
  const lock = readFileSync(path.join(PINNED, 'package-lock.json'));
  const json = readFileSync(path.join(PINNED, 'package.json'));
  const key = createHash('sha256').update(lock).update(json).digest('hex').slice(0, 16);
  return installOnce(`elenchos-playwright-newest-${key}`, { 'package.json': json, 'package-lock.json': lock }, ['ci']);
}

/** `version` from the registry as a user's `npm install -D @playwright/test` would get it (no lock: it has none). */
function installFromRegistry(version: string): string {
  const json = JSON.stringify({ name: 'elenchos-playwright-latest', private: true, devDependencies: { '@playwright/test': version } });
  return installOnce(`elenchos-playwright-latest-${version}`, { 'package.json': `${json}\n` }, ['install', '--no-package-lock']);
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

const HAS_BROWSER = existsSync(BROWSER);
// Asked once, when the file is collected: both the install list and the gate below use the same answer.
const LATEST = HAS_BROWSER ? registryLatest() : PINNED_VERSION;
const INSTALLS = [
  {
    label: LATEST === PINNED_VERSION ? `${PINNED_VERSION}, pinned, and the registry's latest` : `${PINNED_VERSION}, pinned`,
    version: PINNED_VERSION,
    install: installPinned,
  },
  ...(LATEST === PINNED_VERSION
    ? []
    : [{ label: `${LATEST}, the registry's latest`, version: LATEST, install: () => installFromRegistry(LATEST) }]),
];

describe.runIf(HAS_BROWSER)('the versions of @playwright/test Elenchos says it supports', () => {
  it('the pinned fixture is the newest version Elenchos says it has tested', () => {
    expect(PINNED_VERSION).toBe(PLAYWRIGHT_SUPPORTED.newestTested);
  });

  it("the registry's latest is not newer than the newest version Elenchos says it has tested", () => {
    expect(
      playwrightSupport(LATEST),
      `@playwright/test ${LATEST} is on the registry, newer than PLAYWRIGHT_SUPPORTED.newestTested ${PLAYWRIGHT_SUPPORTED.newestTested}: ` +
        "see what this file's checks of it say, fix what broke, then raise newestTested (src/verifiers/playwright/playwright-version.ts) " +
        `and test/fixtures/playwright-newest (package.json and lock: npm install --package-lock-only) to ${LATEST} together`,
    ).not.toBe('newer-than-tested');
  });
});

describe.runIf(HAS_BROWSER).each(INSTALLS)('@playwright/test $label', { timeout: 400_000 }, ({ version, install }) => {
  let modules = '';
  beforeAll(() => {
    modules = install();
  }, 300_000);

  it('is the version installed', () => {
    const installed = JSON.parse(readFileSync(path.join(modules, '@playwright/test/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(version);
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
    expect(JSON.stringify(record)).toContain(version);

    const report = runCli(['report', 'latest'], root);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    // The picture comes from 1.65's trace (`screencast/…` frames without a sha1): none before the fix.
    expect(html).toMatch(/<img alt="screenshot at the failure" src="data:image\/jpeg;base64,[A-Za-z0-9+/]{100,}/);
    expect(html).toMatch(/button.*Reset|Reset.*button/);
  });
});
