// Placeholder until the Kane runner lands (issue: the Kane verifier).
import type { VerificationResult, VerifyContext } from '../types.js';

export async function runKane(_context: VerifyContext): Promise<VerificationResult> {
  throw new Error('the Kane runner is not built yet');
}
