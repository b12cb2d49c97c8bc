// Placeholder until the Playwright verifier lands.
import type { VerifierAdapter } from '../types.js';
import { InputError } from '../../errors.js';

const notYet = (): never => {
  throw new InputError('verifier.type "playwright" is not available yet; use "kane"');
};

export const playwrightAdapter: VerifierAdapter = {
  type: 'playwright',
  defaultCommand: () => ({ command: 'npx', args: ['playwright'] }),
  checkTestFileName: () => null,
  readSteps: async () => notYet(),
  lockedInputs: async () => [],
  outputPaths: () => [],
  verify: async () => notYet(),
};
