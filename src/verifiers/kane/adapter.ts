// The Kane CLI verifier: `kane-cli testmd run <test> --agent --headless`, read and classified.
import type { VerifierAdapter } from '../types.js';
import { kaneLockedInputs, kaneOutputPaths } from './inputs.js';
import { parseTestMd } from './test-md.js';
import { printTestMdSteps } from './step-prints.js';
import { readTestFileText } from '../../util/regular-file.js';

export const kaneAdapter: VerifierAdapter = {
  type: 'kane',
  defaultCommand: () => ({ command: 'kane-cli', args: [] }),
  // Running Kane loads the process layer (execa); `check`, which only reads the test, does not.
  version: async ({ command, cwd, env }) => (await import('./kane-version.js')).sameKaneVersion(command ?? 'kane-cli', { cwd, env }),
  checkTestFileName: (relative) =>
    relative.endsWith('_test.md') ? null : `"${relative}" must end in _test.md (Kane runs only _test.md files)`,
  readSteps: async (testFile) => parseTestMd(await readTestFileText(testFile)).steps,
  printSteps: async (testFile) => printTestMdSteps(await readTestFileText(testFile)),
  lockedInputs: async (root, testFileLabel) => ({ files: await kaneLockedInputs(root, testFileLabel), unresolved: [] }),
  outputPaths: kaneOutputPaths,
  verify: async (ctx) => (await import('./run-kane.js')).runKane(ctx),
};
