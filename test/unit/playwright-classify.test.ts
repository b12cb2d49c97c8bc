// The Playwright run as a whole, on hand-built reports (no browser): the run's own failures, pairing the
// report with the listing, what each kind of test trouble makes of the attempt, and the findings' words.
import { describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { classifyPlaywright, firstLines, type ProcessFacts } from '../../src/verifiers/playwright/classify.js';
import { declaredSteps } from '../../src/verifiers/playwright/declared-tests.js';
import type { ReadReportResult, ReportError, ReportResult, ReportTest } from '../../src/verifiers/playwright/json-report.js';
import { criteria } from '../fixtures/playwright/verify-context.js';

const ROOT = '/w/tree';
const CLICK = `Error: locator.click: Test timeout of 3000ms exceeded.\nCall log:\n  - waiting for getByRole('button', { name: 'Reset' })\n\n  at ${ROOT}/tests/a.spec.ts:4:53`;
const RESOLVED = `TimeoutError: locator.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for locator('#go')\n  - locator resolved to <button disabled>Go</button>\n  - element is not enabled\n`;
const EXPECT_TEXT =
  'Error: expect(locator).toHaveText(expected) failed\n\nLocator: locator(\'#total\')\nExpected: "12"\nReceived: "10"\nTimeout: 5000ms\n\nCall log:\n  - Expect "toHaveText" with timeout 5000ms\n  - waiting for locator(\'#total\')\n';
const TO_BE = 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 2';
const REFUSED =
  'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/\nCall log:\n  - navigating to "http://127.0.0.1:9/"\n';
const TYPE_ERROR = "TypeError: Cannot read properties of undefined (reading 'x')";
const LAUNCH = "Error: browserType.launch: Executable doesn't exist at /nope/chrome";

const ok: ProcessFacts = { exitCode: 1, timedOut: false, aborted: false, spawnError: null, stderrTail: '', timeoutMs: 60_000 };
const err = (message: string, location: string | null = null): ReportError => ({ message, location });
const result = (status: string, errors: ReportError[] = [], more: Partial<ReportResult> = {}): ReportResult => ({
  status,
  retry: 0,
  durationMs: 1,
  errors,
  attachments: [],
  lastUrl: 'http://127.0.0.1:4517/',
  opened: true,
  ...more,
});
const test = (title: string, line: number, results: ReportResult[], more: Partial<ReportTest> = {}): ReportTest => {
  const failed = results.some((r) => r.status !== 'passed' && r.status !== 'skipped');
  const passedLater = failed && results.at(-1)?.status === 'passed';
  return {
    title,
    describePath: [],
    projectName: '',
    file: 'tests/a.spec.ts',
    line,
    column: 5,
    tags: (title.match(/@[A-Z]+-\d+/g) ?? []).map(String),
    annotations: [],
    status: passedLater
      ? 'flaky'
      : failed
        ? 'unexpected'
        : results.length > 0 && results.every((r) => r.status === 'skipped')
          ? 'skipped'
          : 'expected',
    expectedStatus: 'passed',
    results,
    ...more,
  };
};
const pass = (title: string, line: number) => test(title, line, [result('passed')]);

/** Classifies `tests` as both the listing and the report (the usual case), against criteria AC-001…AC-00n. */
function classify(tests: ReportTest[], facts: Partial<ProcessFacts> = {}, n = 2, listed: ReportTest[] = tests) {
  const cs = criteria(n);
  return classifyPlaywright({
    root: ROOT,
    criteria: cs,
    map: mapCriteria(cs, declaredSteps(listed)),
    process: { ...ok, ...facts },
    report: { ok: true, report: { tests, errors: [] } },
  });
}

describe('the run itself failed', () => {
  const early = (facts: Partial<ProcessFacts>, report: ReadReportResult = { ok: true, report: { tests: [], errors: [] } }) => {
    const cs = criteria(1);
    return classifyPlaywright({ root: ROOT, criteria: cs, map: mapCriteria(cs, []), process: { ...ok, ...facts }, report });
  };

  it('says why, in order: could not start, interrupted, timed out, no report, errors outside the tests', () => {
    const bad: ReadReportResult = { ok: false, reason: 'Playwright wrote no JSON report' };
    expect(early({ spawnError: 'ENOENT', aborted: true, timedOut: true }, bad).summary).toBe('could not start Playwright: ENOENT');
    expect(early({ aborted: true, timedOut: true }, bad).summary).toBe('verification interrupted');
    expect(early({ timedOut: true, timeoutMs: 90_400 }, bad).summary).toBe('Playwright did not finish within 90s (killed)');
    expect(early({ timedOut: true, timeoutMs: 89_500 }).summary).toBe('Playwright did not finish within 90s (killed)');
    expect(early({ exitCode: 1 }, bad).summary).toBe('Playwright wrote no JSON report (exit code 1)');
    expect(early({ exitCode: 2, stderrTail: 'one\n\ntwo  \nthree\nfour\n\n' }, bad).summary).toBe(
      'Playwright wrote no JSON report (exit code 2): two | three | four',
    );
    expect(early({ stderrTail: 'x'.repeat(700) }, bad).summary).toBe(`Playwright wrote no JSON report (exit code 1): ${'x'.repeat(600)}`);
    const outside = early(
      {},
      {
        ok: true,
        report: {
          tests: [],
          errors: [err(`Error: No tests found\n\n  in ${ROOT}/tests/a.spec.ts\n\n  line three\n  line four`), err('second error')],
        },
      },
    );
    expect(outside.summary).toBe('Playwright failed outside the tests: Error: No tests found\n  in tests/a.spec.ts\n  line three');
  });

  it('is a VERIFIER_ERROR with every criterion unjudged and one finding that says why', () => {
    const classified = early({ aborted: true });
    expect(classified).toEqual({
      status: 'VERIFIER_ERROR',
      summary: 'verification interrupted',
      criteria: [{ id: 'AC-001', description: 'criterion 1', status: 'UNVERIFIED', steps: [], note: 'no step verifies this criterion' }],
      findings: [
        {
          step: null,
          heading: null,
          kind: 'verifier_error',
          reason: 'verification interrupted',
          reasonCode: 'verifier_error',
          resultCode: null,
          verdict: null,
          sessionId: null,
          evidencePack: null,
          location: null,
          attachments: [],
        },
      ],
      outcomes: new Map(),
    });
  });
});

describe('the report against the listing', () => {
  it('pairs tests of the same title in order, and reports each only once', () => {
    const tests = [pass('same @AC-001', 1), test('same @AC-002', 2, [result('failed', [err(TO_BE)])])];
    tests[1]!.title = 'same @AC-001';
    tests[1]!.tags = ['@AC-002'];
    const classified = classify(tests, {}, 2);
    expect([...classified.outcomes].map(([i, o]) => [i, o.kind])).toEqual([
      [1, 'passed'],
      [2, 'product_failure'],
    ]);
    expect(classified.status).toBe('FAIL');
  });

  it('names tests by project when the spec runs in more than one', () => {
    const chromium = { ...pass('one @AC-001', 1), projectName: 'chromium' };
    const firefox = { ...pass('one @AC-001', 1), projectName: 'firefox' };
    const classified = classify([chromium, firefox], { exitCode: 0 }, 1);
    expect(classified.status).toBe('PASS');
    expect(classified.outcomes.size).toBe(2);
    // The listing had only chromium: firefox's test is undeclared, under its project-prefixed name.
    const partial = classify([chromium, firefox], { exitCode: 0 }, 1, [chromium, { ...firefox, projectName: 'webkit' }]);
    expect(partial.findings.map((f) => [f.reasonCode, f.heading])).toEqual([
      ['test_missing', '[webkit] one @AC-001'],
      ['test_undeclared', 'one @AC-001'],
    ]);
    expect(partial.findings[1]!.reason).toBe(
      'reported by Playwright (line 1) but not in `playwright test --list` of the spec (a title computed from the environment?)',
    );
    expect(partial.status).toBe('INCONCLUSIVE');
    expect(partial.summary).toBe(
      "the report does not match the spec: listed by `playwright test --list` but missing from Playwright's report",
    );
  });

  it('a test whose reported criteria differ from the listed ones makes the report untrustworthy, even over a FAIL', () => {
    const listed = [pass('one @AC-001', 1), pass('two @AC-002', 2)];
    const reported = [pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(TO_BE)])], { tags: ['@AC-001'] })];
    const classified = classify(reported, {}, 2, listed);
    expect(classified.status).toBe('INCONCLUSIVE');
    expect(classified.findings.find((f) => f.reasonCode === 'criteria_mismatch')).toMatchObject({
      step: 2,
      heading: 'two @AC-002',
      kind: 'inconsistency',
      reason:
        'Playwright reports this test verifying [AC-001], `playwright test --list` said [AC-002] (does the spec compute its tags from the environment?)',
    });
  });

  it('compares criteria case-insensitively, as sets, ignoring ids outside the contract', () => {
    const listed = [pass('one', 1)];
    listed[0]!.tags = ['@AC-001', '@ac-002'];
    const reported = [
      { ...pass('one', 1), tags: ['@ac-002', '@AC-001', '@AC-009'], annotations: [{ type: 'verifies', description: 'AC-001' }] },
    ];
    expect(classify(reported, { exitCode: 0 }, 2, listed)).toMatchObject({ status: 'PASS', findings: [] });
    // One fewer on either side is a mismatch, and so is a verifies annotation adding one.
    const fewer = [{ ...pass('one', 1), tags: ['@AC-001'] }];
    expect(classify(fewer, { exitCode: 0 }, 2, listed).findings[0]!.reasonCode).toBe('criteria_mismatch');
    const more = [{ ...pass('one', 1), tags: ['@AC-001'], annotations: [{ type: 'verifies', description: 'AC-002, AC-003' }] }];
    expect(classify(more, { exitCode: 0 }, 3, listed).findings[0]!.reasonCode).toBe('criteria_mismatch');
    const other = [{ ...pass('one', 1), tags: ['@AC-001'], annotations: [{ type: 'issue', description: 'AC-002' }] }];
    expect(classify(other, { exitCode: 0 }, 2, listed).findings[0]!.reasonCode).toBe('criteria_mismatch');
  });
});

describe('the attempt status', () => {
  it('PASS: every test passed, every criterion verified, exit code 0', () => {
    expect(classify([pass('one @AC-001', 1), pass('two @AC-002', 2)], { exitCode: 0 })).toMatchObject({
      status: 'PASS',
      summary: '2 test(s) passed; every criterion verified',
    });
    expect(classify([pass('one @AC-001', 1), pass('two @AC-002', 2)], { exitCode: 1 })).toMatchObject({
      status: 'INCONCLUSIVE',
      summary: 'every test passed, but Playwright exited with code 1',
    });
  });

  it('INCONCLUSIVE when a criterion has no test, naming it', () => {
    expect(classify([pass('one @AC-001', 1)], { exitCode: 0 }, 2).summary).toBe('every test passed, but AC-002 is verified by no test');
    expect(classify([pass('one @AC-001', 1)], { exitCode: 0 }, 3).summary).toBe(
      'every test passed, but AC-002, AC-003 are verified by no test',
    );
  });

  it('FAIL names the failed tests, the first reason and the failed criteria', () => {
    const classified = classify(
      [test('one @AC-001', 1, [result('failed', [err(TO_BE)])]), test('two @AC-002', 2, [result('failed', [err(EXPECT_TEXT)])])],
      {},
      3,
    );
    expect(classified.status).toBe('FAIL');
    expect(classified.summary).toBe(
      'product failure in test 1, 2: expect(received).toBe(expected) // Object.is equality: Expected: 3; Received: 2; failed criteria: AC-001, AC-002; could not be judged: AC-003',
    );
  });

  it('a test the app failed in is a VERIFIER_ERROR naming the app; other verifier trouble names its cause', () => {
    const refused = classify([pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(REFUSED)])])]);
    expect(refused).toMatchObject({ status: 'VERIFIER_ERROR' });
    expect(refused.summary).toBe(
      "the app refused or never answered in 1 test(s) (the app's failure, not a judged criterion): the app refused or never answered (the app's failure): page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/",
    );
    const launch = classify([
      test('one @AC-001', 1, [result('failed', [err(LAUNCH)])]),
      test('two @AC-002', 2, [result('failed', [err(LAUNCH)])]),
    ]);
    expect(launch.summary).toBe(
      `2 test(s) could not be run reliably (browser_launch): browserType.launch: Executable doesn't exist at /nope/chrome`,
    );
  });

  it("a test that went to another host than the app is the test's mistake, said as such and certain to repeat", () => {
    const atApp = (tests: ReportTest[], appUrl: string) => {
      const cs = criteria(2);
      return classifyPlaywright({
        root: ROOT,
        appUrl,
        criteria: cs,
        map: mapCriteria(cs, declaredSteps(tests)),
        process: ok,
        report: { ok: true, report: { tests, errors: [] } },
      });
    };
    const fixed =
      'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:5173/\nCall log:\n  - navigating to "http://localhost:5173/", waiting until "load"\n';
    const elsewhere = atApp([pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(fixed)])])], 'http://127.0.0.1:4517');
    expect(elsewhere.status).toBe('VERIFIER_ERROR');
    expect(elsewhere.summary).toMatch(
      /^test 2 "two @AC-002": your test went to http:\/\/localhost:5173\/, the app is at http:\/\/127\.0\.0\.1:4517\/: /,
    );
    expect(elsewhere.findings[0]).toMatchObject({ reasonCode: 'wrong_host', deterministic: true });
    // The app's own host refusing stays the app's failure, retried; so does another loopback name for its port.
    const appDown = atApp([pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(REFUSED)])])], 'http://127.0.0.1:9');
    expect(appDown.findings[0]).toMatchObject({ reasonCode: 'app_unreachable' });
    expect(appDown.findings[0]!.deterministic).toBeUndefined();
    const otherName = atApp([pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(REFUSED)])])], 'http://localhost:9/');
    expect(otherName.findings[0]).toMatchObject({ reasonCode: 'app_unreachable' });
    // The attack: an app that redirects its own page to a dead host must not pass for the test's mistake (and
    // so skip its re-verification): the test went to the app, the call log says so.
    const redirected =
      'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:5173/\nCall log:\n  - navigating to "http://127.0.0.1:4517/", waiting until "load"\n';
    const byApp = atApp([pass('one @AC-001', 1), test('two @AC-002', 2, [result('failed', [err(redirected)])])], 'http://127.0.0.1:4517');
    expect(byApp.findings[0]).toMatchObject({ reasonCode: 'app_unreachable' });
  });

  it('a product failure in a test that names no criterion is INCONCLUSIVE, never FAIL', () => {
    const classified = classify([pass('one @AC-001', 1), pass('two @AC-002', 2), test('three', 3, [result('failed', [err(TO_BE)])])]);
    expect(classified.status).toBe('INCONCLUSIVE');
    expect(classified.summary).toMatch(/^test 3 "three" failed on the product but names no criterion: expect\(received\)/);
    // With a tagged product failure beside it, the tagged one makes the FAIL and names only itself.
    const both = classify([
      test('one @AC-001', 1, [result('failed', [err(TO_BE)])]),
      pass('two @AC-002', 2),
      test('three', 3, [result('failed', [err(TO_BE)])]),
    ]);
    expect(both.status).toBe('FAIL');
    expect(both.summary).toMatch(/^product failure in test 1: /);
  });

  it('flaky, unattributed and skipped tests are counted together as INCONCLUSIVE', () => {
    const classified = classify(
      [
        test('one @AC-001', 1, [result('failed', [err(TO_BE)]), result('passed')]),
        test('two @AC-002', 2, [result('failed', [err(TYPE_ERROR)])]),
        test('three @AC-003', 3, [result('skipped')]),
        test('four @AC-004', 4, [result('failed', [err(TYPE_ERROR)])]),
      ],
      { exitCode: 0 },
      4,
    );
    expect(classified.status).toBe('INCONCLUSIVE');
    expect(classified.summary).toBe('1 test(s) passed only on retry; 2 test(s) failed without an assertion failure; 1 test(s) skipped');
    expect(classified.criteria.map((c) => c.status)).toEqual(['UNVERIFIED', 'UNVERIFIED', 'UNVERIFIED', 'UNVERIFIED']);
    expect(classify([pass('one @AC-001', 1), test('two @AC-002', 2, [result('skipped')])], { exitCode: 0 }).summary).toBe(
      '1 test(s) skipped',
    );
  });
});

describe('findings', () => {
  it('a product failure: where, what, the page, the detail and the trace', () => {
    const trace = { name: 'trace', contentType: 'application/zip', path: `${ROOT}/test-results/a/trace.zip` };
    const shot = { name: 'screenshot', contentType: 'image/png', path: '/ev/shot.png' };
    const failing = test('one @AC-001', 1, [
      result('failed', [err(EXPECT_TEXT, `${ROOT}/tests/a.spec.ts:9:3`), err(`second at ${ROOT}/x`)], {
        attachments: [shot, { name: 'stdout', contentType: 'text/plain', path: null }, trace],
        lastUrl: 'http://127.0.0.1:4517/cart',
      }),
    ]);
    const [finding] = classify([failing], {}, 1).findings;
    expect(finding).toEqual({
      step: 1,
      heading: 'one @AC-001',
      kind: 'product_failure',
      reason: `expect(locator).toHaveText(expected) failed (locator('#total') on http://127.0.0.1:4517/cart): Expected: "12"; Received: "10"`,
      reasonCode: 'assertion',
      resultCode: null,
      verdict: null,
      sessionId: null,
      evidencePack: `${ROOT}/test-results/a/trace.zip`,
      detail: `${EXPECT_TEXT}\n\nsecond at x`,
      location: 'tests/a.spec.ts:9:3',
      locator: "locator('#total')",
      lastUrl: 'http://127.0.0.1:4517/cart',
      attachments: [shot, trace],
    });
  });

  it("without an error location, the test's own; without a trace, no evidence pack; a long detail is capped", () => {
    const long = `${TO_BE}\n${'x'.repeat(20_000)}`;
    const [finding] = classify([test('one @AC-001', 7, [result('failed', [err(long)], { lastUrl: null })])], {}, 1).findings;
    expect(finding).toMatchObject({
      location: 'tests/a.spec.ts:7:5',
      evidencePack: null,
      lastUrl: null,
      reason: 'expect(received).toBe(expected) // Object.is equality: Expected: 3; Received: 2',
    });
    expect(Buffer.byteLength(finding!.detail!)).toBeLessThan(16 * 1024 + 100);
    expect(finding!.detail).toMatch(/more bytes cut\]$/);
  });

  it('an assertion without Expected/Received lines or a locator is its first line', () => {
    const [finding] = classify(
      [test('one @AC-001', 1, [result('failed', [err('Error: expect(received).toBeTruthy()\n\nmore')])])],
      {},
      1,
    ).findings;
    expect(finding!.reason).toBe('expect(received).toBeTruthy()');
  });

  it('a locator that never appeared, or appeared and never became usable', () => {
    const never = classify([test('one @AC-001', 1, [result('timedOut', [err(CLICK)], { lastUrl: 'http://h/p' })])], {}, 1).findings[0]!;
    expect(never).toMatchObject({ reasonCode: 'locator_timeout', kind: 'product_failure' });
    expect(never.reason).toBe(
      "waited for getByRole('button', { name: 'Reset' }) on http://h/p, which never appeared (locator.click: Test timeout of 3000ms exceeded.)",
    );
    expect(never.detail).toContain('at tests/a.spec.ts:4:53');
    // With a retry only the retry is traced: its URL names the page, whichever try failed first.
    const retried = classify(
      [
        test('one @AC-001', 1, [
          result('timedOut', [err(CLICK)], { lastUrl: null, opened: null }),
          result('timedOut', [err(CLICK)], { retry: 1, lastUrl: 'http://h/q' }),
        ]),
      ],
      {},
      1,
    ).findings[0]!;
    expect(retried).toMatchObject({ reasonCode: 'locator_timeout', kind: 'product_failure', lastUrl: 'http://h/q' });
    expect(retried.reason).toContain("waited for getByRole('button', { name: 'Reset' }) on http://h/q, which never appeared");
    const unusable = classify([test('one @AC-001', 1, [result('failed', [err(RESOLVED)], { lastUrl: null })])], {}, 1).findings[0]!;
    expect(unusable.reason).toBe(
      "waited for locator('#go'), which never became usable (element is not enabled) (TimeoutError: locator.click: Timeout 500ms exceeded.)",
    );
  });

  it('a test that never opened the app, a test the app failed, a skipped one, an unattributed one', () => {
    const blank = classify([test('one @AC-001', 1, [result('timedOut', [err(CLICK)], { lastUrl: 'about:blank', opened: false })])], {}, 1);
    expect(blank.findings[0]).toMatchObject({ kind: 'verifier_error', reasonCode: 'no_page' });
    expect(blank.findings[0]!.reason).toBe(
      "waited for getByRole('button', { name: 'Reset' }) on about:blank: the test never opened the app (locator.click: Test timeout of 3000ms exceeded.)",
    );
    expect(blank.summary).toMatch(/^1 test\(s\) could not be run reliably \(no_page\): waited for/);
    const skipped = classify([pass('one @AC-001', 1), test('two @AC-002', 2, [result('skipped')])], { exitCode: 0 });
    expect(skipped.findings).toEqual([
      expect.objectContaining({
        step: 2,
        kind: 'unattributed_failure',
        reason: 'skipped',
        reasonCode: 'skipped',
        location: 'tests/a.spec.ts:2:5',
      }),
    ]);
    const typeError = classify([test('one @AC-001', 1, [result('failed', [err(TYPE_ERROR)])])], {}, 1);
    expect(typeError.findings[0]).toMatchObject({ kind: 'unattributed_failure', reason: TYPE_ERROR, detail: TYPE_ERROR });
    const silent = classify([test('one @AC-001', 1, [result('failed', [])])], {}, 1);
    expect(silent.findings[0]).toMatchObject({ kind: 'unattributed_failure', reason: null, detail: null });
  });

  it('the root is taken off paths with or without its trailing slash, and nowhere else', () => {
    const cs = criteria(1);
    const failing = test('one @AC-001', 1, [
      result('failed', [err(`${TO_BE}\n at ${ROOT}/tests/a.spec.ts:3:1 and /w/treehouse/x`, `${ROOT}/tests/a.spec.ts:3:1`)]),
    ]);
    for (const root of [ROOT, `${ROOT}/`]) {
      const [finding] = classifyPlaywright({
        root,
        criteria: cs,
        map: mapCriteria(cs, declaredSteps([failing])),
        process: ok,
        report: { ok: true, report: { tests: [failing], errors: [] } },
      }).findings;
      expect(finding!.location).toBe('tests/a.spec.ts:3:1');
      expect(finding!.detail).toBe(`${TO_BE}\n at tests/a.spec.ts:3:1 and /w/treehouse/x`);
    }
    const [unrooted] = classifyPlaywright({
      criteria: cs,
      map: mapCriteria(cs, declaredSteps([failing])),
      process: ok,
      report: { ok: true, report: { tests: [failing], errors: [] } },
    }).findings;
    expect(unrooted!.location).toBe(`${ROOT}/tests/a.spec.ts:3:1`);
  });
});

describe('firstLines', () => {
  it('keeps the first n non-blank lines, trailing spaces trimmed, at most 2000 characters', () => {
    expect(firstLines('\n  a  \n\n   \nb\t\nc', 2)).toBe('  a\nb');
    expect(firstLines('x'.repeat(3000), 1)).toHaveLength(2000);
    expect(firstLines('', 3)).toBe('');
  });
});

describe('classification details', () => {
  it('a criteria mismatch lists both sides in full', () => {
    const listed = [{ ...pass('one', 1), tags: ['@AC-001', '@AC-002'] }];
    const reported = [{ ...pass('one', 1), tags: ['@AC-003', '@AC-004'] }];
    expect(classify(reported, { exitCode: 0 }, 4, listed).findings[0]!.reason).toBe(
      'Playwright reports this test verifying [AC-003, AC-004], `playwright test --list` said [AC-001, AC-002] (does the spec compute its tags from the environment?)',
    );
    const extra = classify([pass('one @AC-001', 1), pass('two @AC-001', 2)], { exitCode: 0 }, 1, [pass('one @AC-001', 1)]);
    expect(extra.findings).toEqual([
      expect.objectContaining({ step: null, heading: 'two @AC-001', kind: 'inconsistency', reasonCode: 'test_undeclared' }),
    ]);
  });

  it('a verifies annotation counts as much as a tag, and one without a description names nothing', () => {
    const listed = [{ ...pass('one', 1), tags: ['@AC-001', '@AC-002'] }];
    const reported = [
      {
        ...pass('one', 1),
        tags: ['@AC-001'],
        annotations: [
          { type: 'verifies', description: 'ac-002' },
          { type: 'verifies', description: null },
        ],
      },
    ];
    expect(classify(reported, { exitCode: 0 }, 2, listed)).toMatchObject({ status: 'PASS', findings: [] });
  });

  it('a test that names no criterion and fails without an assertion is counted with the unattributed ones', () => {
    const classified = classify([pass('one @AC-001', 1), pass('two @AC-002', 2), test('three', 3, [result('failed', [err(TYPE_ERROR)])])], {
      exitCode: 1,
    });
    expect(classified).toMatchObject({ status: 'INCONCLUSIVE', summary: '1 test(s) failed without an assertion failure' });
  });

  it('a criterion no test verifies is named even when Playwright also exited non-zero', () => {
    expect(classify([pass('one @AC-001', 1)], { exitCode: 1 }, 2).summary).toBe('every test passed, but AC-002 is verified by no test');
  });

  it('the FAIL summary names only the tests that failed on the product', () => {
    const classified = classify([
      test('one @AC-001', 1, [result('failed', [err(TO_BE)])]),
      test('two @AC-002', 2, [result('failed', [err(TYPE_ERROR)])]),
    ]);
    expect(classified.status).toBe('FAIL');
    expect(classified.summary).toMatch(/^product failure in test 1: expect\(received\)/);
    expect(classified.summary).toMatch(/; failed criteria: AC-001; could not be judged: AC-002$/);
  });

  it("each kind of test trouble leaves its criterion's note: failed for another reason, or did not run", () => {
    const classified = classify(
      [
        test('one @AC-001', 1, [result('failed', [err(LAUNCH)])]),
        test('two @AC-002', 2, [result('failed', [err(TO_BE)]), result('passed')]),
        test('three @AC-003', 3, [result('failed', [err(TYPE_ERROR)])]),
        test('four @AC-004', 4, [result('skipped')]),
      ],
      {},
      4,
    );
    expect(classified.criteria.map((c) => c.note)).toEqual([
      'step 1 failed for a reason that is not a confirmed product failure',
      'step 2 failed for a reason that is not a confirmed product failure',
      'step 3 failed for a reason that is not a confirmed product failure',
      'step 4 did not run',
    ]);
  });

  it("an assertion's headline takes the Expected and Received lines that start a line, indented or not", () => {
    const headline = (message: string) => classify([test('one @AC-001', 1, [result('failed', [err(message)])])], {}, 1).findings[0]!.reason;
    expect(headline('Error: expect(received).toEqual(expected)\n\n    Expected: {"a": 1}\n    Received: {"a": 2}')).toBe(
      'expect(received).toEqual(expected): Expected: {"a": 1}; Received: {"a": 2}',
    );
    expect(headline('Error: expect(received).toBeTruthy()\n\nReceived: 0')).toBe('expect(received).toBeTruthy(): Received: 0');
    // A huge value is cut: the headline stays one readable line; the detail keeps the whole message.
    const huge = `Expected: "${'x'.repeat(400)}"`;
    expect(headline(`Error: expect(received).toBe(expected)\n\n${huge}\nReceived: "y"`)).toBe(
      `expect(received).toBe(expected): ${huge.slice(0, 300)}`,
    );
    expect(headline('Error: expect(received).toBe(expected) Expected and Received differ\n\nExpected: 1\nReceived: 2')).toBe(
      'expect(received).toBe(expected) Expected and Received differ: Expected: 1; Received: 2',
    );
  });
});
