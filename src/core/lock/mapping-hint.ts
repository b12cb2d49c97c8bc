// How a user makes a test verify a criterion, in the words of their verifier.
import type { VerifierType } from '../../contract/task-schema.js';

/** The fix for "criterion `id` is verified by no step/test of `testFile`". */
export function howToVerify(verifierType: VerifierType, id: string, testFile: string): string {
  // Playwright reads criteria from tags (or a `verifies` annotation): `@verifies` in a title does nothing there.
  if (verifierType === 'playwright')
    return `tag the test that checks it in ${testFile}: test('…', { tag: '@${id}' }, async ({ page }) => { … })`;
  return `add "@verifies ${id}" to the step that checks it in ${testFile}`;
}
