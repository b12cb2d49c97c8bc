// Turns a Playwright run (process facts + JSON report) into the attempt status, per-criterion results and findings.
import { judgeCriteria, type CriteriaMap, type CriterionResult } from '../../contract/criteria-map.js';
import type { StepVerdict, VerdictStatus } from '../../states.js';
import type { Criterion } from '../../contract/task-schema.js';
import type { Finding } from '../types.js';
import { classifyTest, type TestOutcome } from './classify-test.js';
import type { JsonReport, ReadReportResult, ReportAttachment, ReportTest } from './json-report.js';
import { criteriaInList, testHeading } from './declared-tests.js';
import path from 'node:path';
import { capBytes, lastLines } from '../../util/text.js';
import { decideAttemptStatus, type Trouble } from '../attempt-status.js';
import { readErrorFacts } from './error-facts.js';

// A finding's whole message (an assertion's diff, every error of the test) up to this many bytes.
const MAX_DETAIL_BYTES = 16 * 1024;

/** A finding with what a Playwright failure adds: where it was thrown and the trace/screenshots beside it. */
export interface PlaywrightFinding extends Finding {
  /** Repository-relative `file:line:column` of the error in the spec. */
  location: string | null;
  /** The locator a timed-out call waited for. */
  locator?: string | null;
  /** The page's last URL (from the test's trace). */
  lastUrl?: string | null;
  attachments: ReportAttachment[];
}

export interface ProcessFacts {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError: string | null;
  stderrTail: string;
  timeoutMs: number;
}

export interface ClassifyInput {
  /** Where Playwright ran (the worktree or checkout): paths under it are reported repository-relative. */
  root?: string;
  criteria: readonly Criterion[];
  map: CriteriaMap;
  process: ProcessFacts;
  report: ReadReportResult;
  /** The run was filtered (`--grep`): a criterion whose tests were left out is not "verified by no test". */
  filtered?: string;
}

export interface Classification {
  status: VerdictStatus;
  summary: string;
  criteria: CriterionResult[];
  findings: PlaywrightFinding[];
  /** Declared test index → how it ended (absent when it did not run). */
  outcomes: Map<number, TestOutcome>;
}

const VERDICT: Record<TestOutcome['kind'], StepVerdict> = {
  passed: 'passed',
  product_failure: 'product_failure',
  verifier_error: 'failed_other',
  flaky: 'failed_other',
  unattributed_failure: 'failed_other',
  skipped: 'skipped',
};

/** The attempt status for Playwright (docs/playwright.md#classification), through the shared rule (attempt-status.ts): run trouble, confirmed FAIL, test trouble, PASS. */
export function classifyPlaywright(input: ClassifyInput): Classification {
  const { criteria, map } = input;
  const usable = usableReport(input);
  if ('failure' in usable) {
    return {
      status: 'VERIFIER_ERROR',
      summary: usable.failure,
      criteria: judgeCriteria(criteria, map, new Map()),
      findings: [finding('verifier_error', null, null, usable.failure, 'verifier_error')],
      outcomes: new Map(),
    };
  }
  const { findings, outcomes } = classifyTests(input, usable.report);
  const verdicts = new Map([...outcomes].map(([index, outcome]) => [index, VERDICT[outcome.kind]]));
  const results = judgeCriteria(criteria, map, verdicts);
  const untagged = (f: PlaywrightFinding) => (map.steps.find((s) => s.index === f.step)?.criteria.length ?? 0) === 0;
  const troubles = reportTroubles(input, findings, outcomes, results, untagged);
  const failedTests = findings.filter((f) => f.kind === 'product_failure' && !untagged(f));
  const decision = decideAttemptStatus(results, troubles, {
    fail: `product failure in test ${failedTests.map((f) => f.step).join(', ')}: ${failedTests[0]?.reason ?? ''}; failed criteria: ${results
      .filter((r) => r.status === 'FAIL')
      .map((r) => r.id)
      .join(', ')}`,
    pass: `${outcomes.size} test(s) passed; every criterion verified`,
    unverified: (ids) =>
      input.filtered
        ? `every test ${input.filtered} selected passed; ${ids.join(', ')} not judged: ${ids.length === 1 ? 'it is' : 'they are'} verified by tests it left out`
        : `every test passed, but ${ids.join(', ')} ${ids.length === 1 ? 'is' : 'are'} verified by no test`,
  });
  return { status: decision.status, summary: decision.summary, criteria: results, findings, outcomes };
}

/**
 * Each listed test paired with its report: how it ended, a finding when it did not pass, and an
 * inconsistency where the report and `playwright test --list` disagree (criteria, a test missing or extra).
 */
function classifyTests(input: ClassifyInput, report: JsonReport): { findings: PlaywrightFinding[]; outcomes: Map<number, TestOutcome> } {
  const findings: PlaywrightFinding[] = [];
  const outcomes = new Map<number, TestOutcome>();
  const { pairs, missing, extra } = matchTests(input.map, report.tests);
  const contract = new Set(input.criteria.map((c) => c.id.toUpperCase()));
  for (const { step, test } of pairs) {
    const outcome = classifyTest(test);
    outcomes.set(step.index, outcome);
    if (outcome.kind !== 'passed') findings.push(testFinding(step.index, test, outcome, input.root));
    const reported = reportedCriteria(test).filter((id) => contract.has(id));
    const declared = step.criteria.map((id) => id.toUpperCase());
    if (!sameSet(reported, declared)) {
      findings.push(
        finding(
          'inconsistency',
          step.index,
          step.heading,
          `Playwright reports this test verifying [${reported.join(', ')}], \`playwright test --list\` said [${declared.join(', ')}] (does the spec compute its tags from the environment?)`,
          'criteria_mismatch',
        ),
      );
    }
  }
  for (const step of missing)
    findings.push(
      finding(
        'inconsistency',
        step.index,
        step.heading,
        "listed by `playwright test --list` but missing from Playwright's report",
        'test_missing',
      ),
    );
  for (const test of extra)
    findings.push(
      finding(
        'inconsistency',
        null,
        test.title,
        `reported by Playwright (line ${test.line}) but not in \`playwright test --list\` of the spec (a title computed from the environment?)`,
        'test_undeclared',
      ),
    );
  return { findings, outcomes };
}

/** What besides the product went wrong, in the shared rule's order of precedence (attempt-status.ts). */
function reportTroubles(
  input: ClassifyInput,
  findings: readonly PlaywrightFinding[],
  outcomes: ReadonlyMap<number, TestOutcome>,
  results: readonly CriterionResult[],
  untagged: (f: PlaywrightFinding) => boolean,
): Trouble[] {
  const troubles: Trouble[] = [];
  const tests = (kind: TestOutcome['kind']) => findings.filter((f) => f.step !== null && outcomes.get(f.step)?.kind === kind);
  // The report disagreeing with the spec is run trouble: nothing in it may decide a FAIL the agent is told about.
  const mismatch = findings.find((f) => f.kind === 'inconsistency');
  if (mismatch) troubles.push({ scope: 'run', status: 'INCONCLUSIVE', summary: `the report does not match the spec: ${mismatch.reason}` });
  const broken = tests('verifier_error');
  if (broken.length > 0) {
    const app = broken.filter((f) => f.reasonCode === 'app_unreachable');
    troubles.push({
      scope: 'test',
      status: 'VERIFIER_ERROR',
      summary:
        app.length > 0
          ? `the app refused or never answered in ${app.length} test(s) (the app's failure, not a judged criterion): ${app[0]!.reason}`
          : `${broken.length} test(s) could not be run reliably (${broken[0]!.reasonCode}): ${broken[0]!.reason}`,
    });
  }
  // A test that names no criterion cannot make a FAIL (a FAIL always names its failed criteria), nor a PASS.
  const orphan = findings.find((f) => f.kind === 'product_failure' && untagged(f));
  if (orphan)
    troubles.push({
      scope: 'test',
      status: 'INCONCLUSIVE',
      summary: `test ${orphan.step} "${orphan.heading}" failed on the product but names no criterion: ${orphan.reason}`,
    });
  const other = [
    tests('flaky').length > 0 ? `${tests('flaky').length} test(s) passed only on retry` : '',
    tests('unattributed_failure').length > 0 ? `${tests('unattributed_failure').length} test(s) failed without an assertion failure` : '',
    tests('skipped').length > 0 ? `${tests('skipped').length} test(s) skipped` : '',
  ].filter(Boolean);
  if (other.length > 0) troubles.push({ scope: 'test', status: 'INCONCLUSIVE', summary: other.join('; ') });
  if (results.every((r) => r.status === 'PASS') && input.process.exitCode !== 0)
    troubles.push({
      scope: 'test',
      status: 'INCONCLUSIVE',
      summary: `every test passed, but Playwright exited with code ${input.process.exitCode}`,
    });
  return troubles;
}

/** The report, or why the run as a whole gave no usable one. */
function usableReport(input: ClassifyInput): { report: JsonReport } | { failure: string } {
  const { process: p, report } = input;
  const tail = lastLines(p.stderrTail, 3, ' | ').slice(0, 600);
  if (p.spawnError) return { failure: `could not start Playwright: ${p.spawnError}` };
  if (p.aborted) return { failure: 'verification interrupted' };
  if (p.timedOut) return { failure: `Playwright did not finish within ${Math.round(p.timeoutMs / 1000)}s (killed)` };
  if (!report.ok) return { failure: `${report.reason} (exit code ${p.exitCode})${tail ? `: ${tail}` : ''}` };
  if (report.report.errors.length > 0)
    return { failure: `Playwright failed outside the tests: ${firstLines(relativize(report.report.errors[0]!.message, input.root), 3)}` };
  return { report: report.report };
}

/** Pairs listed tests with reported ones by heading (the n-th test of a heading with the n-th of the same heading). */
function matchTests(map: CriteriaMap, tests: readonly ReportTest[]) {
  const multiProject = new Set(tests.map((t) => t.projectName)).size > 1;
  const byKey = new Map<string, ReportTest>();
  const seen = new Map<string, number>();
  const keyOf = (title: string) => {
    const n = (seen.get(title) ?? 0) + 1;
    seen.set(title, n);
    return `${n}\u0000${title}`;
  };
  for (const test of tests) byKey.set(keyOf(testHeading(test, multiProject)), test);
  seen.clear();
  const pairs: { step: CriteriaMap['steps'][number]; test: ReportTest }[] = [];
  const missing: CriteriaMap['steps'] = [];
  for (const step of map.steps) {
    const key = keyOf(step.heading);
    const test = byKey.get(key);
    if (test) {
      pairs.push({ step, test });
      byKey.delete(key);
    } else {
      missing.push(step);
    }
  }
  return { pairs, missing, extra: [...byKey.values()] };
}

/** Criterion ids Playwright itself attributes to a test (tags, `verifies` annotations), upper-cased. */
function reportedCriteria(test: ReportTest): string[] {
  const ids = [
    ...test.tags.flatMap((tag) => criteriaInList(tag)),
    ...test.annotations.filter((a) => a.type === 'verifies').flatMap((a) => criteriaInList(a.description ?? '')),
  ];
  return [...new Set(ids.map((id) => id.toUpperCase()))];
}

function testFinding(index: number, test: ReportTest, outcome: TestOutcome, root: string | undefined): PlaywrightFinding {
  const attachments = test.results.flatMap((r) => r.attachments).filter((a) => a.path !== null);
  const kind: Finding['kind'] =
    outcome.kind === 'product_failure' ? 'product_failure' : outcome.kind === 'verifier_error' ? 'verifier_error' : 'unattributed_failure';
  const lastUrl = outcome.result === null ? null : (test.results[outcome.result]?.lastUrl ?? null);
  const detail =
    outcome.errors.length > 0 ? capBytes(outcome.errors.map((e) => relativize(e.message, root)).join('\n\n'), MAX_DETAIL_BYTES) : null;
  const location = outcome.error?.location ?? `${test.file}:${test.line}:${test.column}`;
  return {
    ...finding(kind, index, test.title, headline(outcome, lastUrl), outcome.reasonCode),
    detail,
    location: relativize(location, root),
    locator: outcome.locator,
    lastUrl,
    attachments,
    evidencePack: attachments.find((a) => a.name === 'trace')?.path ?? null,
  };
}

/** One line a person can act on: for a missing element, the locator and the page it was missing from. */
function headline(outcome: TestOutcome, url: string | null): string | null {
  const first = outcome.error ? firstLine(outcome.error.message).replace(/^Error: /, '') : null;
  const on = url ? ` on ${url}` : '';
  switch (outcome.reasonCode) {
    case 'locator_timeout': {
      const log = outcome.error ? readErrorFacts(outcome.error).callLog : [];
      const resolved = log.some((l) => /resolved to/.test(l));
      return `waited for ${outcome.locator}${on}, which ${resolved ? `never became usable (${log.at(-1)})` : 'never appeared'} (${first})`;
    }
    case 'assertion': {
      // The matcher's own Expected/Received lines say what was wrong without opening the detail.
      const lines = outcome.error?.message.split('\n').map((l) => l.trim()) ?? [];
      const said = [lines.find((l) => /^Expected\b/.test(l)), lines.find((l) => /^Received\b/.test(l))]
        .filter(Boolean)
        .join('; ')
        .slice(0, 300);
      return `${first}${outcome.locator ? ` (${outcome.locator}${on})` : ''}${said ? `: ${said}` : ''}`;
    }
    case 'app_unreachable':
      return `the app refused or never answered (the app's failure): ${first}`;
    case 'no_page':
      return `waited for ${outcome.locator} on about:blank: the test never opened the app (${first})`;
    case 'skipped':
      return 'skipped';
    default:
      return first;
  }
}

/** Paths under the worktree (or checkout) as repository-relative ones: the worktree is gone after the run. */
function relativize(text: string, root: string | undefined): string {
  if (!root) return text;
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  return text.split(prefix).join('');
}

function finding(
  kind: Finding['kind'],
  step: number | null,
  heading: string | null,
  reason: string | null,
  reasonCode: string | null,
): PlaywrightFinding {
  return {
    step,
    heading,
    kind,
    reason,
    reasonCode,
    resultCode: null,
    verdict: null,
    sessionId: null,
    evidencePack: null,
    location: null,
    attachments: [],
  };
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The first `n` non-empty lines, trimmed to a sane length. */
export function firstLines(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(0, n)
    .join('\n')
    .slice(0, 2000);
}
const firstLine = (text: string | null | undefined) => firstLines(text ?? '', 1);
