// Placeholder until the command verifier lands.
import type { VerifierAdapter } from '../types.js';
import { InputError } from '../../errors.js';

const notYet = (): never => {
  throw new InputError('verifier.type "command" is not available yet; use "kane"');
};

export const commandAdapter: VerifierAdapter = {
  type: 'command',
  defaultCommand: () => ({ command: 'elenchos-verifier', args: [] }),
  checkTestFileName: () => null,
  readSteps: async () => notYet(),
  lockedInputs: async () => [],
  outputPaths: () => [],
  verify: async () => notYet(),
};
