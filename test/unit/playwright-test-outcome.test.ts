// How one Playwright test ended, rule by rule (classify-test.ts), and the facts read from each error
// message (error-facts.ts): which try decides, which error leads, and the edges of each pattern.
import { describe, expect, it } from 'vitest';
import { classifyTest } from '../../src/verifiers/playwright/classify-test.js';
import { readErrorFacts } from '../../src/verifiers/playwright/error-facts.js';
import type { ReportError, ReportResult, ReportTest } from '../../src/verifiers/playwright/json-report.js';

const BARE = 'Test timeout of 3000ms exceeded.';
const CLICK = "Error: locator.click: Test timeout of 3000ms exceeded.\nCall log:\n  - waiting for getByRole('button', { name: 'Reset' })\n";
const TO_BE = 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 2';
const TYPE_ERROR = "TypeError: Cannot read properties of undefined (reading 'x')";
const STALL = 'Error: page.waitForTimeout: Test timeout of 3000ms exceeded.';
const LAUNCH = "Error: browserType.launch: Executable doesn't exist at /nope/chrome";

const err = (message: string): ReportError => ({ message, location: null });
const result = (status: string, messages: string[] = [], more: Partial<ReportResult> = {}): ReportResult => ({
  status,
  retry: 0,
  durationMs: 1,
  errors: messages.map(err),
  attachments: [],
  lastUrl: 'http://127.0.0.1:4517/',
  opened: true,
  ...more,
});
const test = (status: string, results: ReportResult[], expectedStatus = 'passed'): ReportTest => ({
  title: 't',
  describePath: [],
  projectName: '',
  file: 'a.spec.ts',
  line: 1,
  column: 1,
  tags: [],
  annotations: [],
  status,
  expectedStatus,
  results: results.map((r, retry) => ({ ...r, retry })),
});
/** kind, reason code, the deciding try's index and the deciding error's message. */
const decided = (t: ReportTest) => {
  const o = classifyTest(t);
  return [o.kind, o.reasonCode, o.result, o.error?.message ?? null];
};
const one = (status: string, messages: string[], more: Partial<ReportResult> = {}) =>
  decided(test('unexpected', [result(status, messages, more)]));

describe('classifyTest: the test as a whole', () => {
  it('a passed or skipped test has no error and no deciding try', () => {
    expect(classifyTest(test('expected', [result('passed')]))).toEqual({
      kind: 'passed',
      reasonCode: null,
      error: null,
      errors: [],
      locator: null,
      result: null,
    });
    expect(classifyTest(test('skipped', [result('skipped')]))).toEqual({
      kind: 'skipped',
      reasonCode: 'skipped',
      error: null,
      errors: [],
      locator: null,
      result: null,
    });
  });

  it('a test.fail() test is never a pass: its first try that did not pass decides, else a note says why', () => {
    const marked = test('expected', [result('passed'), result('failed', [TO_BE, TYPE_ERROR])], 'failed');
    expect(classifyTest(marked)).toEqual({
      kind: 'unattributed_failure',
      reasonCode: 'expected_to_fail',
      error: err(TO_BE),
      errors: [err(TO_BE)],
      locator: null,
      result: 1,
    });
    const note = 'the test is marked to expect "failed" (test.fail()), so it cannot prove its criteria';
    expect(classifyTest(test('unexpected', [result('passed')], 'failed'))).toMatchObject({
      kind: 'unattributed_failure',
      reasonCode: 'expected_to_fail',
      error: { message: note, location: null },
      errors: [{ message: note, location: null }],
      result: null,
    });
    expect(classifyTest(test('expected', [result('failed', [TO_BE])], 'failed'))).toMatchObject({ result: 0, error: err(TO_BE) });
    // A failed try without an error message still gets the note.
    expect(classifyTest(test('expected', [result('failed')], 'failed')).error).toEqual({ message: note, location: null });
  });

  it('a flaky test: its first failed try, with all of that try’s errors', () => {
    const flaky = test('flaky', [result('passed'), result('failed', [TO_BE, BARE]), result('failed', [TYPE_ERROR]), result('passed')]);
    expect(classifyTest(flaky)).toEqual({
      kind: 'flaky',
      reasonCode: 'flaky',
      error: err(TO_BE),
      errors: [err(TO_BE), err(BARE)],
      locator: null,
      result: 1,
    });
    // A report that says flaky without any failed try: flaky still, with nothing to show.
    expect(classifyTest(test('flaky', [result('passed')]))).toEqual({
      kind: 'flaky',
      reasonCode: 'flaky',
      error: null,
      errors: [],
      locator: null,
      result: -1,
    });
  });

  it('an unexpected test with no failed try is unattributed', () => {
    expect(decided(test('unexpected', []))).toEqual(['unattributed_failure', 'error', null, null]);
    expect(decided(test('unexpected', [result('passed'), result('skipped')]))).toEqual(['unattributed_failure', 'error', null, null]);
  });

  it('passed and skipped tries never decide; a failed one after them does', () => {
    expect(decided(test('unexpected', [result('passed'), result('skipped'), result('failed', [TYPE_ERROR])]))).toEqual([
      'unattributed_failure',
      'error',
      2,
      TYPE_ERROR,
    ]);
  });

  it('verifier trouble on any try wins, then any try that is not a product failure, then the first try', () => {
    const tries = (...messages: string[][]) =>
      test(
        'unexpected',
        messages.map((m) => result('failed', m)),
      );
    expect(decided(tries([TO_BE], [TYPE_ERROR], [LAUNCH]))).toEqual(['verifier_error', 'browser_launch', 2, LAUNCH]);
    expect(decided(tries([TYPE_ERROR], [LAUNCH]))).toEqual(['verifier_error', 'browser_launch', 1, LAUNCH]);
    expect(decided(tries([TO_BE], [TYPE_ERROR]))).toEqual(['unattributed_failure', 'error', 1, TYPE_ERROR]);
    expect(decided(tries([TO_BE], [`${TO_BE}!`]))).toEqual(['product_failure', 'assertion', 0, TO_BE]);
  });
});

describe('classifyTest: one failed try', () => {
  it('puts the deciding error first, then the others in order with bare timeouts last', () => {
    const o = classifyTest(test('unexpected', [result('timedOut', [BARE, 'first other', CLICK, BARE, 'second other'])]));
    expect(o.errors.map((e) => e.message)).toEqual([CLICK, 'first other', 'second other', BARE, BARE]);
  });

  it('an interrupted try is verifier trouble, with or without an error', () => {
    expect(one('interrupted', ['Error: Test was interrupted.'])).toEqual([
      'verifier_error',
      'interrupted',
      0,
      'Error: Test was interrupted.',
    ]);
    expect(one('interrupted', [])).toEqual(['verifier_error', 'interrupted', 0, null]);
  });

  it("a navigation that failed, or any call that hit a network error, is the app's failure", () => {
    const gotoTimeout =
      'Error: page.goto: Timeout 30000ms exceeded.\nCall log:\n  - navigating to "http://127.0.0.1:4517/", waiting until "load"\n';
    expect(one('timedOut', [BARE, gotoTimeout])).toEqual(['verifier_error', 'app_unreachable', 0, gotoTimeout]);
    const reset = 'Error: page.evaluate: net::ERR_CONNECTION_RESET';
    expect(one('failed', [TYPE_ERROR, reset])).toEqual(['verifier_error', 'app_unreachable', 0, reset]);
    expect(one('failed', [TYPE_ERROR], { lastUrl: 'chrome-error://chromewebdata/' })).toEqual([
      'verifier_error',
      'app_unreachable',
      0,
      TYPE_ERROR,
    ]);
  });

  it('a bare test timeout makes a try timed out even when its status says failed', () => {
    expect(one('failed', [BARE, STALL])).toEqual(['verifier_error', 'test_timeout', 0, STALL]);
    expect(one('failed', [BARE, CLICK])).toEqual(['product_failure', 'locator_timeout', 0, CLICK]);
  });

  it('a test timeout is told by the error that names a call, else the bare one, else nothing', () => {
    expect(one('timedOut', [BARE, STALL, TYPE_ERROR])).toEqual(['verifier_error', 'test_timeout', 0, STALL]);
    expect(one('timedOut', [BARE])).toEqual(['verifier_error', 'test_timeout', 0, BARE]);
    expect(one('timedOut', [])).toEqual(['verifier_error', 'test_timeout', 0, null]);
  });

  it('a call that waited for an element counts for the product only when it timed out or was an assertion', () => {
    const closed = "Error: locator.click: Target page, context or browser has been closed\nCall log:\n  - waiting for locator('#go')\n";
    expect(one('failed', [closed])).toEqual(['unattributed_failure', 'error', 0, closed]);
    const action = "Error: locator.fill: Timeout 15000ms exceeded.\nCall log:\n  - waiting for locator('#name')\n";
    expect(one('failed', [action])).toEqual(['product_failure', 'locator_timeout', 0, action]);
    // The page's own text quoted in the call log is not Playwright saying it timed out.
    const quoted =
      "Error: locator.click: Element is not attached to the DOM\nCall log:\n  - waiting for locator('#toast')\n  - locator resolved to <div>TimeoutError: retry later</div>\n";
    expect(one('failed', [quoted])).toEqual(['unattributed_failure', 'error', 0, quoted]);
    // A call without a call log waited for nothing that can be named.
    const noLog = 'Error: locator.click: Test timeout of 3000ms exceeded.';
    expect(one('timedOut', [BARE, noLog])).toEqual(['verifier_error', 'test_timeout', 0, noLog]);
  });

  it('an assertion is the product failing only when every error of the try is one', () => {
    expect(one('failed', [TO_BE, TYPE_ERROR])).toEqual(['unattributed_failure', 'error', 0, TO_BE]);
    expect(one('failed', [TO_BE, 'Error: expect(received).toEqual(expected)'])).toEqual(['product_failure', 'assertion', 0, TO_BE]);
  });

  it.each([
    'expect(received).toSatisfy(isEven)',
    'Error: expect(received).toSatisfy(isEven)',
    'Error: expect.soft(received).toSatisfy(isEven)',
    'Error: expect.poll(fn).toSatisfy(isEven)',
    'Assertion in a helper:\n    expect(received).toSatisfy(isEven)',
    'Error: Timed out 5000ms waiting for expect(locator).toHaveText(expected)',
    'Error: Timed out 5000ms waiting for expect(locator).toBe(expected)',
  ])('reads %j as an assertion', (message) => {
    expect(one('failed', [message])[0]).toBe('product_failure');
  });

  it.each(['Error: the helper called expect(1) wrongly', 'Error: x.toHaveText is not a function', 'Error: use .toBe (see docs)'])(
    'does not read %j as an assertion',
    (message) => {
      expect(one('failed', [message])[0]).toBe('unattributed_failure');
    },
  );
});

describe('readErrorFacts edges', () => {
  const facts = (message: string) => readErrorFacts(err(message));

  it('reads the call from the first line, with or without an error name, never from the middle of a sentence', () => {
    expect(facts('  Error: page.goto: net::ERR_ABORTED').api).toBe('page.goto');
    expect(facts('locator.click: Timeout 500ms exceeded.').api).toBe('locator.click');
    expect(facts("TypeError: Cannot read properties of undefined (reading 'page.goto')")).toMatchObject({ api: null, navigation: false });
    expect(facts('Error: expect(page).not.toHaveURL(expected)').api).toBe('expect(page).not.toHaveURL');
  });

  it('a bare timeout is exactly that one line (blank lines around it allowed)', () => {
    expect(facts('Test timeout of 3000ms exceeded.').bareTimeout).toBe(true);
    expect(facts('Test timeout of 3000ms exceeded').bareTimeout).toBe(true);
    expect(facts('Test timeout of 3000ms exceeded.\n\n   \n').bareTimeout).toBe(true);
    expect(facts('Test timeout of 3000ms exceeded.\nCall log:\n  - x').bareTimeout).toBe(false);
    expect(facts('Error: Test timeout of 3000ms exceeded.').bareTimeout).toBe(false);
    expect(facts('Test timeout of 3000ms exceeded. While running "beforeAll"').bareTimeout).toBe(false);
  });

  it('reads the call log under an indented "Call log:" up to the first blank line, dashes off', () => {
    expect(facts('Error: x').callLog).toEqual([]);
    expect(facts('Error: x\nmore\n\nlast').callLog).toEqual([]);
    expect(facts('Error: x\n  Call log:\n  - one\n  two - three\n   \n  - after the blank').callLog).toEqual(['one', 'two - three']);
    expect(facts('Call log:\n- first').callLog).toEqual(['first']);
  });

  it('the locator waited for: the last "waiting for" line that names one, at the start of its line', () => {
    const log = (...lines: string[]) =>
      facts(`Error: locator.click: Timeout 1ms exceeded.\nCall log:\n${lines.map((l) => `  - ${l}`).join('\n')}\n`);
    expect(log("waiting for locator('#a') to be visible", "waiting for getByText('b')").waitedFor).toBe("getByText('b')");
    expect(log("waiting for locator('#a') to be visible").waitedFor).toBe("locator('#a')");
    expect(log('waiting for internal:role=button[name="Go"i]').waitedFor).toBe('internal:role=button[name="Go"i]');
    expect(log('waiting for element to be visible, enabled and stable').waitedFor).toBeNull();
    expect(log("retrying, then waiting for locator('#late')").waitedFor).toBeNull();
  });

  it('the navigation target: the first log line that starts "navigating to"', () => {
    const nav = facts(
      'Error: page.goto: Timeout 1ms exceeded.\nCall log:\n  - "load" event fired, not navigating to "http://a/"\n  - navigating to "http://b/", waiting until "load"\n  - navigating to "http://c/"\n',
    );
    expect(nav).toMatchObject({ navigation: true, navigatingTo: 'http://b/' });
    expect(facts('Error: page.goto: x').navigatingTo).toBeNull();
  });
});
