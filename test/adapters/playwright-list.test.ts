// The Playwright mapping comes from `playwright test --list`: check, run and Playwright itself agree on
// every fixture spec, including the ones a reader of the source would get wrong. Elenchos lists through the
// replay of recorded listings (test/helpers/playwright-replay.ts); what it is compared with is the installed
// Playwright's own listing of every fixture spec, run here.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTasks } from '../../src/core/check.js';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import type { TinyApp } from '../fixtures/apps/playwright-fixture-app.js';
import {
  FIXTURE_SPECS,
  REPO_ROOT,
  copyFixtureSpecs,
  criteria,
  linkNodeModules,
  verifyContext,
} from '../fixtures/playwright/verify-context.js';
import { REPLAY_BROWSER, REPLAY_COMMAND, replayApp, replayDescribe } from '../helpers/playwright-replay.js';
import { taskJson, tempDir, writeFiles } from '../helpers/temp.js';

const PLAYWRIGHT = path.join(REPO_ROOT, 'node_modules/.bin/playwright');
const SPECS = readdirSync(FIXTURE_SPECS)
  .filter((name) => name.endsWith('.spec.ts'))
  .sort();
/** readSteps' options: the replay unless told (`null`: the Playwright the project resolves). */
const options = (root: string, command: string | null = REPLAY_COMMAND) => ({
  root,
  command: command ?? undefined,
  env: {},
  baseEnv: process.env,
});
/** A project config that lists (and runs) through the replay. */
const REPLAY_CONFIG = JSON.stringify({ verifier: { type: 'playwright', command: REPLAY_COMMAND } });
let project: string;

beforeAll(() => {
  project = tempDir('elenchos-pw-list-');
  linkNodeModules(project);
  copyFixtureSpecs(project);
  // Before any case adds a spec to the project (the cases run together).
  listedByPlaywright = playwrightListAll(project);
});

type Listed = { heading: string; verifies: string[] };

/**
 * What Playwright itself lists, read independently of Elenchos's parser, per spec file (by its name
 * under tests/): title path (the describe blocks and the title, ` › `) and the criterion-looking tags
 * and `verifies` annotations. One `playwright test --list` over `dir` answers for every spec in it
 * (its report is already per file), where one listing per spec cost a Playwright start each.
 */
function playwrightListAll(dir: string): Map<string, Listed[]> {
  const configDir = tempDir('elenchos-pw-raw-');
  writeFileSync(path.join(configDir, 'pw.config.mjs'), `export default { testDir: ${JSON.stringify(path.join(dir, 'tests'))} };\n`);
  const out = execFileSync(PLAYWRIGHT, ['test', '--config', path.join(configDir, 'pw.config.mjs'), '--list', '--reporter=json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  type Suite = {
    title: string;
    specs?: {
      title: string;
      line: number;
      column: number;
      tags: string[];
      tests: { annotations: { type: string; description?: string }[] }[];
    }[];
    suites?: Suite[];
  };
  const byFile = new Map<string, Listed[]>();
  for (const file of (JSON.parse(out) as { suites: Suite[] }).suites) {
    const tests: (Listed & { line: number; column: number })[] = [];
    const walk = (suite: Suite, titles: string[]) => {
      for (const s of suite.specs ?? []) {
        for (const t of s.tests) {
          const ids = [...s.tags, ...t.annotations.filter((a) => a.type === 'verifies').map((a) => a.description ?? '')].filter((x) =>
            /^AC-\d+$/.test(x),
          );
          tests.push({ heading: [...titles, s.title].join(' › '), verifies: [...new Set(ids)], line: s.line, column: s.column });
        }
      }
      for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
    };
    walk(file, []);
    const listed = tests.sort((a, b) => a.line - b.line || a.column - b.column).map(({ heading, verifies }) => ({ heading, verifies }));
    byFile.set(file.title, listed);
  }
  return byFile;
}

let listedByPlaywright: Map<string, Listed[]> | undefined;

/** Playwright's own listing of one fixture spec: all of them listed once, before any test adds a spec. */
function playwrightList(spec: string): Listed[] {
  const listed = listedByPlaywright?.get(spec);
  if (!listed) throw new Error(`playwright did not list ${spec} (it listed ${[...(listedByPlaywright?.keys() ?? [])].join(', ')})`);
  return listed;
}

replayDescribe('the Playwright mapping', { timeout: 120_000 }, () => {
  it.each(SPECS)('agrees with `playwright test --list` on %s', async (spec) => {
    const steps = await playwrightAdapter.readSteps(path.join(project, 'tests', spec), options(project));
    expect(steps.map(({ heading, verifies }) => ({ heading, verifies }))).toEqual(playwrightList(spec));
    expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i + 1));
  });

  it('gets right what a reader of the source gets wrong', async () => {
    const steps = await playwrightAdapter.readSteps(path.join(project, 'tests/mapping.spec.ts'), options(project));
    expect(steps).toEqual([
      { index: 1, heading: 'title built at run time @AC-002', verifies: ['AC-002'] },
      { index: 2, heading: 'described › inherits the describe tag', verifies: ['AC-001'] },
      { index: 3, heading: 'described › adds an annotation', verifies: ['AC-001', 'AC-003'] },
      { index: 4, heading: 'described › lists first', verifies: ['AC-001', 'AC-002'] },
      { index: 5, heading: 'described › lists second', verifies: ['AC-001', 'AC-002'] },
    ]);
    const computed = await playwrightAdapter.readSteps(path.join(project, 'tests/computed.spec.ts'), options(project));
    expect(computed).toEqual([
      { index: 1, heading: 'computed title number 1', verifies: [] },
      { index: 2, heading: 'outer @AC-001 › inner › nested twice', verifies: ['AC-001'] },
    ]);
  });

  it('is what `check` reports, and follows the spec when it changes', async () => {
    const root = tempDir('elenchos-pw-check-');
    linkNodeModules(root);
    const spec = readFileSync(path.join(FIXTURE_SPECS, 'mapping.spec.ts'), 'utf8');
    writeFiles(root, {
      'tests/mapping.spec.ts': spec,
      'tasks/a.json': taskJson({ verification: { testFile: 'tests/mapping.spec.ts', verifier: 'playwright' } }, 3),
      'elenchos.config.json': REPLAY_CONFIG,
    });
    const report = await checkTasks({ cwd: root, files: ['tasks/a.json'], env: process.env });
    expect(report.tasks[0]?.problems).toEqual([]);
    expect(report.tasks[0]?.steps.map((s) => [s.heading, s.criteria])).toEqual(
      playwrightList('mapping.spec.ts').map((t) => [t.heading, t.verifies]),
    );
    // Same content is listed once per process; new content is listed again.
    writeFiles(root, { 'tests/mapping.spec.ts': spec.replace('adds an annotation', 'adds a renamed annotation') });
    const again = await checkTasks({ cwd: root, files: ['tasks/a.json'], env: process.env });
    expect(again.tasks[0]?.steps[2]?.heading).toBe('described › adds a renamed annotation');
  });

  it('warns in `check`, with the line, about a spec that goes to a fixed host instead of baseURL', async () => {
    const root = tempDir('elenchos-pw-fixed-host-');
    linkNodeModules(root);
    writeFiles(root, {
      'tests/fixed.spec.ts':
        "import { test, expect } from '@playwright/test';\ntest('home @AC-001', async ({ page }) => {\n  await page.goto('http://localhost:5173');\n  await expect(page).toHaveTitle(/x/);\n});\n",
      'tasks/a.json': taskJson({ verification: { testFile: 'tests/fixed.spec.ts', verifier: 'playwright' } }, 1),
      'elenchos.config.json': REPLAY_CONFIG,
    });
    const report = await checkTasks({ cwd: root, files: ['tasks/a.json'], env: process.env });
    expect(report.tasks[0]?.problems).toEqual([]);
    expect(report.tasks[0]?.warnings).toEqual([
      expect.stringMatching(
        /^tests\/fixed\.spec\.ts:3: page\.goto\("http:\/\/localhost:5173"\) opens a fixed host, .*fix: page\.goto\("\/"\)/,
      ),
    ]);
  });

  it('names a Playwright below the supported range as the cause when it cannot list the tests', async () => {
    const old = tempDir('elenchos-pw-old-');
    writeFiles(old, {
      'tests/a.spec.ts': "import { test } from '@playwright/test';\ntest('x', async () => {});\n",
      'node_modules/@playwright/test/package.json': JSON.stringify({ name: '@playwright/test', version: '1.29.0' }),
      // What an old runner does with today's generated config: an error and no JSON report.
      'node_modules/.bin/playwright': '#!/bin/sh\necho "Error: unknown option --tsconfig" >&2\nexit 1\n',
    });
    chmodSync(path.join(old, 'node_modules/.bin/playwright'), 0o755);
    await expect(playwrightAdapter.readSteps(path.join(old, 'tests/a.spec.ts'), options(old, null))).rejects.toThrow(
      /^tests\/a\.spec\.ts: @playwright\/test 1\.29\.0 is below the supported range \(>=1\.\d+\.\d+, .*fix: upgrade it \(npm install -D @playwright\/test@latest\)$/,
    );
  });

  it('refuses a spec Playwright cannot load, naming the file, and a project without Playwright, saying what to install', async () => {
    writeFiles(project, { 'tests/broken.spec.ts': "import { test } from '@playwright/test';\ntest('x', async () => {\n" });
    await expect(playwrightAdapter.readSteps(path.join(project, 'tests/broken.spec.ts'), options(project))).rejects.toThrow(
      /^tests\/broken\.spec\.ts: Playwright cannot load the spec/,
    );
    const bare = tempDir('elenchos-pw-bare-');
    writeFiles(bare, { 'tests/a.spec.ts': "import { test } from '@playwright/test';\ntest('x', async () => {});\n" });
    await expect(
      playwrightAdapter.readSteps(path.join(bare, 'tests/a.spec.ts'), { ...options(bare, null), baseEnv: { PATH: '/usr/bin:/bin' } }),
    ).rejects.toThrow(/^tests\/a\.spec\.ts: .*install @playwright\/test/);
  });
});

describe('a run maps as the listing did', { timeout: 120_000 }, () => {
  let app: TinyApp;
  beforeAll(async () => {
    app = await replayApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('passes the tricky spec with every criterion judged and no disagreement', async () => {
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
    const result = await playwrightAdapter.verify(ctx);
    expect(result.status, result.summary).toBe('PASS');
    expect(result.findings).toEqual([]);
    expect(result.criteria.map((c) => [c.id, c.status, c.steps])).toEqual([
      ['AC-001', 'PASS', [2, 3, 4, 5]],
      ['AC-002', 'PASS', [1, 4, 5]],
      ['AC-003', 'PASS', [3]],
    ]);
  });
});
