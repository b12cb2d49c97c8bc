// Fingerprints of a `_test.md`'s steps for the test-weakening lock (also used by the command verifier).
import { fingerprintText, normaliseText, type StepPrint } from '../../contract/step-print.js';
import { parseTestMd } from './test-md.js';

// Kane has no assertion syntax: an assertion is prose that asks to verify, assert, confirm… (reference §9.3).
const ASSERTION_LINE = /\b(verify|verifies|assert|asserts|confirm|confirms|check|checks|ensure|ensures|expect|expects|should|must)\b/i;

/** One print per `## ` step: assertion lines are those that ask Kane to check something. */
export function printTestMdSteps(text: string): StepPrint[] {
  return parseTestMd(text).steps.map((step) => {
    // `@verifies AC-1` names a criterion; it is not itself an assertion.
    const lines = step.body.split('\n').map((line) => line.replace(/@verifies\b[^\n]*/gi, ''));
    const assertions = lines
      .filter((line) => ASSERTION_LINE.test(line))
      .map(normaliseText)
      .filter(Boolean);
    return {
      title: step.heading,
      fingerprint: fingerprintText(`${step.config ?? ''}\n${step.body}`),
      assertions,
      weakened: step.optional ? 'optional: true' : null,
    };
  });
}
