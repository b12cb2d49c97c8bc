// The files `elenchos init` writes: a config, one example task contract and its test.
import type { AgentType } from '../../config/config-schema.js';
import type { InitVerifier } from './detect-project.js';

export interface ScaffoldChoices {
  verifier: InitVerifier;
  agent: AgentType;
  appCommand: string | null;
  /** app.url (appUrlFor: localhost for Next.js, else 127.0.0.1). */
  appUrl: string;
  setupCommand: string | null;
  /** `setup.cache`, when the setup is a lockfile install (see docs/performance.md). */
  setupCache?: { key: string[]; paths: string[] } | null;
  /** Repo-relative path of the example test. */
  testFile: string;
}

export const EXAMPLE_TASK = 'tasks/example.json';

/** Where the example test goes: beside the project's Playwright tests, else in tests/. */
export function exampleTestPath(verifier: InitVerifier, playwrightTestDir: string | null): string {
  if (verifier === 'kane') return 'tests/example_test.md';
  return `${playwrightTestDir && playwrightTestDir !== '.' ? playwrightTestDir : 'tests'}/example.spec.ts`;
}

/** elenchos.config.json: only what was detected or chosen; every other key keeps its documented default. */
export function renderConfig(choices: ScaffoldChoices): string {
  const config: Record<string, unknown> = {
    $schema: './node_modules/elenchos/schemas/config.schema.json',
    // Written out, though it is the default: the reader sees that the agent's code runs sandboxed where it can.
    agent: { type: choices.agent, sandbox: 'auto' },
    app: { ...(choices.appCommand ? { command: choices.appCommand } : {}), url: choices.appUrl, readyTimeoutSeconds: 120 },
    ...(choices.setupCommand
      ? { setup: { command: choices.setupCommand, ...(choices.setupCache ? { cache: choices.setupCache } : {}) } }
      : {}),
    verifier: { type: choices.verifier },
    tasks: ['tasks/**/*.json'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The example task contract: two criteria about the home page, each verified by one step or test. */
export function renderExampleTask(testFile: string): string {
  const task = {
    $schema: '../node_modules/elenchos/schemas/task.schema.json',
    id: 'example',
    title: 'The home page works',
    description:
      'An example contract written by elenchos init: the app starts and its home page answers. Replace it with a task of your own (one criterion per observable behaviour).',
    acceptanceCriteria: [
      { id: 'AC-001', description: 'The home page loads without an error status' },
      { id: 'AC-002', description: 'The home page shows some content' },
    ],
    verification: { testFile },
  };
  return `${JSON.stringify(task, null, 2)}\n`;
}

/** A Kane test: one `## ` step per criterion, each naming it with `@verifies`. */
export function renderKaneTest(): string {
  return `---
mode: testing
---

# The home page works (an example written by elenchos init)

Each step names the criteria it verifies with @verifies; Elenchos passes the app's URL as {{start_url}}.

## Step 1 — the home page loads @verifies AC-001

Open {{start_url}} and verify the page loads without an error message or an error status.

## Step 2 — the home page shows content @verifies AC-002

Verify the page shows some visible text.
`;
}

/** A Playwright spec: one test per criterion, each tagged with it. */
export function renderPlaywrightSpec(): string {
  return `// An example written by elenchos init. Each test names the criterion it verifies with a tag
// ('@AC-001'); Elenchos starts the app and sets baseURL, so page.goto('/') opens it.
import { expect, test } from '@playwright/test';

test('the home page loads', { tag: '@AC-001' }, async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.ok()).toBe(true);
});

test('the home page shows content', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('body')).not.toBeEmpty();
});
`;
}
