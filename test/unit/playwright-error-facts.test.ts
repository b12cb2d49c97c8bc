// Reading Playwright's error messages by cause; the messages are verbatim from @playwright/test 1.58.2 JSON reports.
import { describe, expect, it } from 'vitest';
import { classifyTest } from '../../src/verifiers/playwright/classify-test.js';
import { readErrorFacts } from '../../src/verifiers/playwright/error-facts.js';
import type { ReportTest } from '../../src/verifiers/playwright/json-report.js';
import { capBytes } from '../../src/util/text.js';

const BARE = 'Test timeout of 3000ms exceeded.';
const CLICK =
  "Error: locator.click: Test timeout of 3000ms exceeded.\nCall log:\n  - waiting for getByRole('button', { name: 'Reset' })\n\n\n  2 | test('x', async ({ page }) => {\n    at /w/tests/cases.spec.ts:4:53";
const EXPECT =
  "Error: expect(locator).toBeVisible() failed\n\nLocator: getByRole('button', { name: 'Reset' })\nExpected: visible\nError: element(s) not found\n\nCall log:\n  - Expect \"toBeVisible\" with timeout 5000ms\n  - waiting for getByRole('button', { name: 'Reset' })\n\n\n   6 | x";
const WAIT_SELECTOR =
  "Error: page.waitForSelector: Test timeout of 3000ms exceeded.\nCall log:\n  - waiting for locator('#nope') to be visible\n";
const STALL = 'Error: page.waitForTimeout: Test timeout of 3000ms exceeded.\n\n  20 | x';
const EVALUATE = 'Error: page.evaluate: Test timeout of 3000ms exceeded.\n\n  40 | x';
const GOTO_SILENT =
  'Error: page.goto: net::ERR_ABORTED; maybe frame was detached?\nCall log:\n  - navigating to "http://127.0.0.1:4517/hang", waiting until "load"\n';
const GOTO_REFUSED =
  'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\nCall log:\n  - navigating to "http://127.0.0.1:9/", waiting until "load"\n';
const ACTION = "TimeoutError: locator.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for locator('#nope')\n";

const test = (
  status: string,
  errors: string[],
  lastUrl: string | null = 'http://127.0.0.1:4517/',
  opened: boolean | null = lastUrl === null ? null : lastUrl !== 'about:blank',
): ReportTest => ({
  describePath: [],
  projectName: '',
  title: 't',
  file: 'a.spec.ts',
  line: 1,
  column: 1,
  tags: [],
  annotations: [],
  status: 'unexpected',
  expectedStatus: 'passed',
  results: [
    { status, retry: 0, durationMs: 1, errors: errors.map((message) => ({ message, location: null })), attachments: [], lastUrl, opened },
  ],
});
const outcome = (status: string, errors: string[], lastUrl?: string | null, opened?: boolean | null) => {
  const o = classifyTest(test(status, errors, lastUrl, opened));
  return [o.kind, o.reasonCode, o.locator];
};

describe('readErrorFacts', () => {
  it('names the call, its call log and the locator it was waiting for', () => {
    expect(readErrorFacts({ message: CLICK, location: null })).toMatchObject({
      api: 'locator.click',
      waitedFor: "getByRole('button', { name: 'Reset' })",
      navigation: false,
      bareTimeout: false,
    });
    expect(readErrorFacts({ message: EXPECT, location: null })).toMatchObject({
      api: 'expect(locator).toBeVisible',
      callLog: ['Expect "toBeVisible" with timeout 5000ms', "waiting for getByRole('button', { name: 'Reset' })"],
    });
    expect(readErrorFacts({ message: WAIT_SELECTOR, location: null }).waitedFor).toBe("locator('#nope')");
    expect(readErrorFacts({ message: GOTO_REFUSED, location: null })).toMatchObject({
      api: 'page.goto',
      navigation: true,
      netError: 'ERR_CONNECTION_REFUSED',
      navigatingTo: 'http://127.0.0.1:9/',
    });
    expect(readErrorFacts({ message: BARE, location: null }).bareTimeout).toBe(true);
  });
});

describe('classifyTest by cause', () => {
  it('a call that waited for an element of a loaded page until a timeout is the product failing', () => {
    expect(outcome('timedOut', [BARE, CLICK])).toEqual(['product_failure', 'locator_timeout', "getByRole('button', { name: 'Reset' })"]);
    expect(outcome('timedOut', [BARE, EXPECT])).toEqual(['product_failure', 'assertion', "getByRole('button', { name: 'Reset' })"]);
    expect(outcome('timedOut', [BARE, WAIT_SELECTOR])).toEqual(['product_failure', 'locator_timeout', "locator('#nope')"]);
    expect(outcome('failed', [ACTION])).toEqual(['product_failure', 'locator_timeout', "locator('#nope')"]);
    // An app that blanks its own page after loading cannot turn its missing element into verifier trouble.
    expect(outcome('timedOut', [BARE, CLICK], 'about:blank', true)[0]).toBe('product_failure');
    // No trace to tell the URL: the page is taken as loaded (no navigation failed).
    expect(outcome('timedOut', [BARE, CLICK], null)[0]).toBe('product_failure');
  });

  it("a timeout on anything else, a navigation the app refused or never answered, or a blank page is not the product's", () => {
    expect(outcome('timedOut', [BARE, STALL])).toEqual(['verifier_error', 'test_timeout', null]);
    expect(outcome('timedOut', [BARE, EVALUATE])).toEqual(['verifier_error', 'test_timeout', null]);
    expect(outcome('timedOut', [BARE])).toEqual(['verifier_error', 'test_timeout', null]);
    expect(outcome('timedOut', [BARE, BARE, 'Fixture "trace recording" timeout of 3000ms exceeded during teardown.', GOTO_SILENT])).toEqual(
      ['verifier_error', 'app_unreachable', null],
    );
    expect(outcome('failed', [GOTO_REFUSED])).toEqual(['verifier_error', 'app_unreachable', null]);
    expect(outcome('timedOut', [BARE, CLICK], 'chrome-error://chromewebdata/')[1]).toBe('app_unreachable');
    expect(outcome('timedOut', [BARE, CLICK], 'about:blank')).toEqual([
      'verifier_error',
      'no_page',
      "getByRole('button', { name: 'Reset' })",
    ]);
  });

  it('keeps every error of the deciding try, the one that names the locator first', () => {
    const o = classifyTest(test('timedOut', [BARE, CLICK]));
    expect(o.errors.map((e) => e.message)).toEqual([CLICK, BARE]);
  });

  it('a product failure needs every failed try to agree; trouble on any try wins', () => {
    const t = test('timedOut', [BARE, CLICK]);
    t.results.push({ ...t.results[0]!, retry: 1, errors: [{ message: STALL, location: null }] });
    expect(classifyTest(t)).toMatchObject({ kind: 'verifier_error', reasonCode: 'test_timeout' });
  });
});

describe('capBytes', () => {
  it('caps by bytes, never inside a character, and says how much was cut', () => {
    expect(capBytes('short', 100)).toBe('short');
    const text = 'é'.repeat(10); // 20 bytes
    expect(capBytes(text, 5)).toBe('éé\n[… 16 more bytes cut]');
  });
});
