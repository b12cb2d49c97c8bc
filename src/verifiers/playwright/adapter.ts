// The Playwright verifier: `playwright test <spec>` in a real browser, criteria named by tags or annotations
// as Playwright itself lists them.
import type { VerifierAdapter } from '../types.js';
import { playwrightVersion } from './playwright-version.js';
import { playwrightToolchain } from './toolchain.js';
import { runPlaywright, startPlaywrightEarly } from './run-playwright.js';
import { playwrightLockedInputs } from './spec-imports.js';
import { listSpecTests } from './list-tests.js';
import { printSpecTests } from './test-prints.js';
import { readTestFileText } from '../../util/regular-file.js';

const SPEC_NAME = /\.(spec|test)\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

export const playwrightAdapter: VerifierAdapter = {
  type: 'playwright',
  defaultCommand: () => ({ command: 'npx', args: ['--no', 'playwright'] }),
  version: ({ cwd }) => playwrightVersion(cwd),
  toolchain: playwrightToolchain,
  checkTestFileName: (relative) =>
    SPEC_NAME.test(relative) ? null : `"${relative}" must be a Playwright spec (name ending in .spec.ts, .spec.js, .test.ts, …)`,
  readSteps: listSpecTests,
  printSteps: async (testFile) => printSpecTests(await readTestFileText(testFile), testFile),
  lockedInputs: playwrightLockedInputs,
  // Everything Playwright writes (results, traces, screenshots, the report) goes to the evidence dir.
  outputPaths: async () => [],
  verify: runPlaywright,
  // Elenchos's own runner only: a `verifier.command` wrapper may not hand its stdin to Playwright.
  start: (context) => (context.command ? null : startPlaywrightEarly(context)),
};
