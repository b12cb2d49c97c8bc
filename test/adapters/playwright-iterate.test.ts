// `elenchos verify --verifier-only --headed/--grep/--debug`: Playwright's own flags for someone writing
// a spec against a running app, refused everywhere else. The run with --grep is Playwright's recorded run
// (the replay, test/helpers/playwright-replay.ts): the point is how its report maps to the listing's steps.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownedConfig, type PlaywrightConfigOptions } from '../../src/verifiers/playwright/generate-config.js';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { iterateArgs } from '../../src/verifiers/playwright/run-playwright.js';
import type { VerifierProgress } from '../../src/verifiers/types.js';
import type { TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import { copyFixtureSpecs, criteria, linkNodeModules, verifyContext } from '../fixtures/playwright/verify-context.js';
import { runCli } from '../helpers/cli.js';
import { makeProject } from '../helpers/project.js';
import { REPLAY_BROWSER, REPLAY_COMMAND, replayApp } from '../helpers/playwright-replay.js';
import { tempDir } from '../helpers/temp.js';

describe('verify --headed/--grep/--debug', () => {
  it('passes the flags to Playwright as they are, and a headed run drops the --headless switch', async () => {
    expect(iterateArgs(undefined)).toEqual([]);
    expect(iterateArgs({ headed: true, grep: 'adds @AC-1', debug: true })).toEqual(['--headed', '--grep', 'adds @AC-1', '--debug']);
    const base: PlaywrightConfigOptions = {
      testFile: '/p/tests/a.spec.ts',
      evidenceDir: '/e',
      baseURL: 'http://127.0.0.1:1/',
      browserPath: undefined,
      extraArgs: [],
      retries: 1,
      trace: 'on-first-retry',
      userConfig: null,
    };
    const files = { config: '/e/c.mjs', report: '/e/r.json', outputDir: '/e/o', notes: '/e/n.json' };
    const generatedConfig = (extra: Partial<PlaywrightConfigOptions>) => ownedConfig({ ...base, ...extra }, files, '/e/progress.mjs');
    const headed = generatedConfig({ headed: true });
    expect(headed.use.headless).toBe(false);
    expect(headed.use.launchOptions.args).not.toContain('--headless');
    const headless = generatedConfig({});
    expect(headless.use.headless).toBe(true);
    expect(headless.use.launchOptions.args).toContain('--headless');
  });

  it('refuses them without --verifier-only, and for a task another verifier checks', () => {
    const { root, env } = makeProject();
    expect(runCli(['verify', '--headed'], root, env)).toMatchObject({
      code: 3,
      stderr:
        'elenchos: --headed, --grep and --debug are for writing a spec against a running app: add --verifier-only --url <url> and one task\n',
    });
    const kane = runCli(
      ['verify', '--verifier-only', '--url', 'http://127.0.0.1:9/', '--grep', 'x', '--debug', 'tasks/add-task.json'],
      root,
      env,
    );
    expect(kane).toMatchObject({
      code: 3,
      stderr:
        'elenchos: --grep, --debug: Playwright options, but tasks/add-task.json is verified by the kane verifier; drop --grep, --debug\n',
    });
  });
});

describe('verify --grep against a real app', { timeout: 120_000 }, () => {
  let app: TinyApp;
  let project: string;
  beforeAll(async () => {
    app = await replayApp();
    project = tempDir('elenchos-pw-iterate-');
    linkNodeModules(project);
    copyFixtureSpecs(project);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('runs only the matching tests; the others did not run, and their criteria are not judged on a subset', async () => {
    const evidenceDir = path.join(tempDir('elenchos-pw-evidence-'), 'verifier');
    const ctx = await verifyContext({
      cwd: project,
      spec: 'tests/mapping.spec.ts',
      url: app.url,
      evidenceDir,
      criteria: criteria(3),
      args: ['--retries=0'],
      command: REPLAY_COMMAND,
      browserPath: REPLAY_BROWSER,
    });
    const progress: VerifierProgress[] = [];
    const result = await playwrightAdapter.verify({
      ...ctx,
      onProgress: (p) => progress.push(p),
      iterate: { headed: false, debug: false, grep: 'lists (first|second)' },
    });
    expect(result.findings).toEqual([]);
    // The tests that ran are shown as the listing's steps 4 and 5, not as the run's first and second.
    expect(progress.filter((p) => p.kind === 'step-end').map((p) => ('step' in p ? p.step : null))).toEqual([4, 5]);
    expect(result.summary).toBe(
      'every test --grep "lists (first|second)" selected passed; AC-001, AC-002, AC-003 not judged: they are verified by tests it left out',
    );
    expect((result.details.tests as { index: number; outcome: string }[]).map((t) => [t.index, t.outcome])).toEqual([
      [1, 'not_run'],
      [2, 'not_run'],
      [3, 'not_run'],
      [4, 'passed'],
      [5, 'passed'],
    ]);
    expect(result.criteria.map((c) => [c.id, c.status])).toEqual([
      ['AC-001', 'UNVERIFIED'],
      ['AC-002', 'UNVERIFIED'],
      ['AC-003', 'UNVERIFIED'],
    ]);
    expect(result.status).toBe('INCONCLUSIVE');
    expect(readFileSync(path.join(evidenceDir, 'stdout.log'), 'utf8')).not.toMatch(/title built at run time/);
  });
});
