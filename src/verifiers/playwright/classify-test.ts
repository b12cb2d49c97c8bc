// How one Playwright test ended, from its results, by cause: passed, a product failure, the app or the
// verifier failing, flaky… The rule and the report shapes behind it are in docs/playwright.md.
import { readErrorFacts, type ErrorFacts } from './error-facts.js';
import type { ReportError, ReportResult, ReportTest } from './json-report.js';
import type { TestOutcomeKind } from '../../states.js';

export interface TestOutcome {
  kind: TestOutcomeKind;
  /**
   * assertion | locator_timeout | test_timeout | app_unreachable | wrong_host | no_page | browser_launch | interrupted
   * | flaky | error | skipped | expected_to_fail | null when passed
   */
  reasonCode: string | null;
  /** The error that decided it. */
  error: ReportError | null;
  /** Every error of the deciding result, the deciding one first. */
  errors: ReportError[];
  /** For a locator timeout: the locator the call waited for. */
  locator: string | null;
  /** The deciding result's index in `test.results` (its trace says the last URL). */
  result: number | null;
  /** wrong_host: where the test's navigation went instead of the app. */
  wentTo?: string;
}

const BROWSER_LAUNCH = /browserType\.launch|Failed to launch|Executable doesn't exist|executable doesn't exist|Browser closed unexpectedly/;
// Playwright's matcher errors start `Error: expect(received).toBe(expected)` or `expect(locator).toHaveText(expected) failed`.
const ASSERTION = /(^|\n)\s*(Error: )?expect(\.soft|\.poll)?\(|\.(toHave|toBe|toEqual|toStrictEqual|toContain|toMatch|toThrow)\w*\(/;
// Calls that wait for an element of the page: actions and reads on a locator, element assertions, waitForSelector.
const LOCATOR_CALL =
  /^(locator\.\w+|(page|frame)\.(click|dblclick|fill|type|press|check|uncheck|hover|tap|focus|selectOption|setInputFiles|textContent|innerText|innerHTML|inputValue|getAttribute|isVisible|isChecked|isEnabled|dragAndDrop|waitForSelector)|expect(\.soft|\.poll)?\(locator\)\.(not\.)?\w+)$/;

/** Classifies a test by the cause of its failure; every failed try must agree before it is the product's. */
export function classifyTest(test: ReportTest, appUrl: string | null = null): TestOutcome {
  const outcome = (
    kind: TestOutcomeKind,
    reasonCode: string | null,
    result: number | null,
    error: ReportError | null = null,
    errors: ReportError[] = error ? [error] : [],
    locator: string | null = null,
  ): TestOutcome => ({ kind, reasonCode, error, errors, locator, result });
  if (test.status === 'skipped') return outcome('skipped', 'skipped', null);
  // `test.fail()` turns a failing assertion into "expected": the product misbehaved, so it never proves a criterion.
  if (test.expectedStatus !== 'passed') {
    const index = test.results.findIndex((r) => r.status !== 'passed');
    const note = `the test is marked to expect "${test.expectedStatus}" (test.fail()), so it cannot prove its criteria`;
    return outcome(
      'unattributed_failure',
      'expected_to_fail',
      index < 0 ? null : index,
      test.results[index]?.errors[0] ?? { message: note, location: null },
    );
  }
  if (test.status === 'flaky') {
    const index = test.results.findIndex((r) => r.status !== 'passed');
    const failed = test.results[index];
    return outcome('flaky', 'flaky', index, failed?.errors[0] ?? null, failed?.errors ?? []);
  }
  if (test.status === 'expected') return outcome('passed', null, null);
  const tries = test.results
    .map((result, index) => ({ result, index }))
    .filter(({ result }) => result.status !== 'passed' && result.status !== 'skipped')
    .map(({ result, index }) => classifyResult(result, index, result.lastUrl ?? null, result.opened ?? null, appUrl));
  // Verifier or app trouble on any try outweighs the others; a product failure counts only when every failed try was one.
  // Among product failures, the first try that kept a trace speaks (only it knows the page's URL: with a
  // retry, Elenchos traces the retry alone).
  return (
    tries.find((t) => t.kind === 'verifier_error') ??
    tries.find((t) => t.kind !== 'product_failure') ??
    tries.find((t) => t.result !== null && test.results[t.result]?.lastUrl) ??
    tries[0] ??
    outcome('unattributed_failure', 'error', null)
  );
}

/** One failed try, by cause. */
function classifyResult(
  result: ReportResult,
  index: number,
  url: string | null,
  opened: boolean | null,
  appUrl: string | null,
): TestOutcome {
  const errors = result.errors;
  const facts = errors.map((error) => ({ error, facts: readErrorFacts(error) }));
  const decide = (kind: TestOutcomeKind, reasonCode: string, error: ReportError | null, locator: string | null = null): TestOutcome => {
    // The deciding error first, then the others in Playwright's order (a bare "Test timeout" last: it says least).
    const rest = errors.filter((e) => e !== error).sort((a, b) => Number(isBare(a)) - Number(isBare(b)));
    return { kind, reasonCode, error, errors: error ? [error, ...rest] : rest, locator, result: index };
  };
  const launch = errors.find((e) => BROWSER_LAUNCH.test(e.message));
  if (launch) return decide('verifier_error', 'browser_launch', launch);
  if (result.status === 'interrupted') return decide('verifier_error', 'interrupted', errors[0] ?? null);
  // A navigation the app refused or never answered, or a page that is Chromium's error page: the app's failure.
  const navigation = facts.find(({ facts: f }) => f.navigation || f.netError !== null);
  // …unless it went to another host than the app's (`page.goto('http://localhost:5173')`): the test's
  // mistake, and the same on every retry.
  const elsewhere = navigation && appUrl !== null ? navigationTarget(navigation.facts, navigation.error) : null;
  if (navigation && elsewhere !== null && !sameServer(elsewhere, appUrl!))
    return { ...decide('verifier_error', 'wrong_host', navigation.error), wentTo: elsewhere };
  if (navigation || (url !== null && url.startsWith('chrome-error:')))
    return decide('verifier_error', 'app_unreachable', navigation?.error ?? errors[0] ?? null);
  // The page loaded and a call waited for one of its elements until a timeout: the element is not there (or never
  // became usable) — the product's failure, whichever timeout (action, expect, or the test's) ran out first.
  const located = facts.find(({ facts: f }) => isLocatorWait(f));
  const timedOut = result.status === 'timedOut' || facts.some(({ facts: f }) => f.bareTimeout);
  if (
    located &&
    (timedOut || /^TimeoutError: |Timeout \d+ms exceeded/.test(located.error.message) || ASSERTION.test(located.error.message))
  ) {
    // Waiting for an element on a page that never left about:blank is the spec's mistake (it never opened the
    // app), not the product's; an app that blanks its own page after loading is judged like any other.
    if (url === 'about:blank' && opened !== true) return decide('verifier_error', 'no_page', located.error, located.facts.waitedFor);
    return decide(
      'product_failure',
      located.facts.api?.startsWith('expect') ? 'assertion' : 'locator_timeout',
      located.error,
      located.facts.waitedFor,
    );
  }
  if (timedOut) return decide('verifier_error', 'test_timeout', errors.find((e) => !isBare(e)) ?? errors[0] ?? null);
  if (errors.length > 0 && errors.every((e) => ASSERTION.test(e.message))) return decide('product_failure', 'assertion', errors[0]!);
  return decide('unattributed_failure', 'error', errors[0] ?? null);
}

// `page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:5173/`
const NET_ERROR_AT = /\bnet::ERR_[A-Z_]+ at (\S+)/;

/** Where a failed navigation was going: the call log's `navigating to "…"`, or the URL after Chromium's error. */
function navigationTarget(facts: ErrorFacts, error: ReportError): string | null {
  const url = facts.navigatingTo ?? NET_ERROR_AT.exec(error.message)?.[1] ?? null;
  return url !== null && URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? url : null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `url` is served by the app at `appUrl`: the same origin, or the same port on another loopback
 * name (`localhost` for `127.0.0.1`), which reaches the same listening app in most setups.
 */
export function sameServer(url: string, appUrl: string): boolean {
  if (!URL.canParse(url) || !URL.canParse(appUrl)) return true;
  const a = new URL(url);
  const b = new URL(appUrl);
  if (a.origin === b.origin) return true;
  return a.protocol === b.protocol && a.port === b.port && LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname);
}

function isLocatorWait(facts: ErrorFacts): boolean {
  return facts.waitedFor !== null && facts.api !== null && LOCATOR_CALL.test(facts.api);
}
const isBare = (error: ReportError) => readErrorFacts(error).bareTimeout;
