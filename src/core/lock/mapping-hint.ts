// A criterion no step verifies, refused with how a user makes a test verify it, in the words of their verifier.
import type { VerifierType } from '../../contract/task-schema.js';
import { PreflightError } from '../../errors.js';
import type { ResolvedTask } from '../resolve-task.js';

/** The fix for "criterion `id` is verified by no step/test of `testFile`". */
export function howToVerify(verifierType: VerifierType, id: string, testFile: string): string {
  // Playwright reads criteria from tags (or a `verifies` annotation): `@verifies` in a title does nothing there.
  if (verifierType === 'playwright')
    return `tag the test that checks it in ${testFile}: test('…', { tag: '@${id}' }, async ({ page }) => { … })`;
  return `add "@verifies ${id}" to the step that checks it in ${testFile}`;
}

/** A criterion no step verifies can never be PASS: refuse before an agent spends an hour on it. */
export function checkMapping(resolved: ResolvedTask): void {
  const { map } = resolved;
  const problems = [
    ...map.unmapped.map(
      (id) =>
        `${resolved.label}: criterion ${id} is verified by no step; ${howToVerify(resolved.verifierType, id, resolved.testFileLabel)}`,
    ),
    ...map.unknown.map(
      (u) =>
        `${resolved.testFileLabel}: step ${u.step} says @verifies ${u.id}, which is not a criterion of ${resolved.label}${u.suggestion ? ` (did you mean ${u.suggestion}?)` : ''}`,
    ),
  ];
  if (problems.length > 0) {
    throw new PreflightError(
      'UNMAPPED_CRITERIA',
      `${resolved.label}: the criteria do not map onto the test (${problems.length} problem(s)); elenchos check ${resolved.label} shows the mapping`,
      { details: problems },
    );
  }
}
