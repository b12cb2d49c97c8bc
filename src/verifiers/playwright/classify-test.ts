// How one Playwright test ended, from its results: passed, a product failure, the verifier's own failure…
import type { ReportError, ReportTest } from './json-report.js';

export type TestOutcomeKind = 'passed' | 'product_failure' | 'verifier_error' | 'flaky' | 'unattributed_failure' | 'skipped';

export interface TestOutcome {
  kind: TestOutcomeKind;
  /** assertion | test_timeout | browser_launch | interrupted | flaky | error | skipped | expected_to_fail | null when passed */
  reasonCode: string | null;
  /** The error that decided it (the first one of the deciding result). */
  error: ReportError | null;
}

const TEST_TIMEOUT = /\bTest timeout of \d+ms exceeded/;
const BROWSER_LAUNCH = /browserType\.launch|Failed to launch|Executable doesn't exist|executable doesn't exist|Browser closed unexpectedly/;
// Playwright's matcher errors start `Error: expect(received).toBe(expected)` or `expect(locator).toHaveText(expected) failed`.
const ASSERTION = /(^|\n)\s*(Error: )?expect(\.soft|\.poll)?\(|\.(toHave|toBe|toEqual|toStrictEqual|toContain|toMatch|toThrow)\w*\(/;

/** Classifies a test: an `expect` failure is the product's, a launch failure or a timeout is ours, a retry pass is flaky. */
export function classifyTest(test: ReportTest): TestOutcome {
  if (test.status === 'skipped') return { kind: 'skipped', reasonCode: 'skipped', error: null };
  // `test.fail()` turns a failing assertion into "expected": the product misbehaved, so it never proves a criterion.
  if (test.expectedStatus !== 'passed') {
    const failed = test.results.find((r) => r.status !== 'passed');
    const note = `the test is marked to expect "${test.expectedStatus}" (test.fail()), so it cannot prove its criteria`;
    return { kind: 'unattributed_failure', reasonCode: 'expected_to_fail', error: failed?.errors[0] ?? { message: note, location: null } };
  }
  if (test.status === 'flaky') {
    const failed = test.results.find((r) => r.status !== 'passed');
    return { kind: 'flaky', reasonCode: 'flaky', error: failed?.errors[0] ?? null };
  }
  if (test.status === 'expected') return { kind: 'passed', reasonCode: null, error: null };
  const failed = test.results.filter((r) => r.status !== 'passed' && r.status !== 'skipped');
  let product: TestOutcome | null = null;
  let other: TestOutcome | null = null;
  for (const result of failed) {
    const first = result.errors[0] ?? null;
    const timeout = result.errors.find((e) => TEST_TIMEOUT.test(e.message));
    if (result.status === 'timedOut' || timeout) return { kind: 'verifier_error', reasonCode: 'test_timeout', error: timeout ?? first };
    const launch = result.errors.find((e) => BROWSER_LAUNCH.test(e.message));
    if (launch) return { kind: 'verifier_error', reasonCode: 'browser_launch', error: launch };
    if (result.status === 'interrupted') return { kind: 'verifier_error', reasonCode: 'interrupted', error: first };
    if (result.errors.length > 0 && result.errors.every((e) => ASSERTION.test(e.message))) product ??= { kind: 'product_failure', reasonCode: 'assertion', error: first };
    else other ??= { kind: 'unattributed_failure', reasonCode: 'error', error: first };
  }
  // A product failure counts only when every failed run of the test failed on an assertion.
  if (other) return other;
  return product ?? { kind: 'unattributed_failure', reasonCode: 'error', error: null };
}
