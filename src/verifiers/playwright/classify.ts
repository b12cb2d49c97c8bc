// Turns a Playwright run (process facts + JSON report) into the attempt status, per-criterion results and findings.
import { judgeCriteria, type CriteriaMap, type CriterionResult, type StepVerdict } from '../../contract/criteria-map.js';
import type { Criterion } from '../../contract/task-schema.js';
import type { AttemptStatus, Finding } from '../types.js';
import { classifyTest, type TestOutcome } from './classify-test.js';
import type { ReadReportResult, ReportAttachment, ReportTest } from './json-report.js';
import { criteriaInList, testHeading } from './declared-tests.js';
import { lastLines } from '../../util/text.js';

/** A finding with what a Playwright failure adds: where it was thrown and the trace/screenshots beside it. */
export interface PlaywrightFinding extends Finding {
  /** `file:line:column` of the error in the spec. */
  location: string | null;
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
  criteria: readonly Criterion[];
  map: CriteriaMap;
  process: ProcessFacts;
  report: ReadReportResult;
}

export interface Classification {
  status: AttemptStatus;
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

/** SPEC §4 for Playwright: verifier trouble first, then contradictions, then product failures, then PASS. */
export function classifyPlaywright(input: ClassifyInput): Classification {
  const { criteria, map } = input;
  const early = processFailure(input);
  if (early !== null) {
    return { status: 'VERIFIER_ERROR', summary: early, criteria: judgeCriteria(criteria, map, new Map()), findings: [finding('verifier_error', null, null, early, 'verifier_error')], outcomes: new Map() };
  }
  const report = (input.report as Extract<ReadReportResult, { ok: true }>).report;
  const findings: PlaywrightFinding[] = [];
  const outcomes = new Map<number, TestOutcome>();
  const { pairs, missing, extra } = matchTests(map, report.tests);
  const contract = new Set(criteria.map((c) => c.id.toUpperCase()));
  for (const { step, test } of pairs) {
    const outcome = classifyTest(test);
    outcomes.set(step.index, outcome);
    if (outcome.kind !== 'passed') findings.push(testFinding(step.index, test, outcome));
    const reported = reportedCriteria(test).filter((id) => contract.has(id));
    const declared = step.criteria.map((id) => id.toUpperCase());
    if (!sameSet(reported, declared)) {
      findings.push(finding('inconsistency', step.index, step.heading, `Playwright reports this test verifying [${reported.join(', ')}], \`playwright test --list\` said [${declared.join(', ')}] (does the spec compute its tags from the environment?)`, 'criteria_mismatch'));
    }
  }
  for (const step of missing) findings.push(finding('inconsistency', step.index, step.heading, 'listed by `playwright test --list` but missing from Playwright\'s report', 'test_missing'));
  for (const test of extra) findings.push(finding('inconsistency', null, test.title, `reported by Playwright (line ${test.line}) but not in \`playwright test --list\` of the spec (a title computed from the environment?)`, 'test_undeclared'));

  const verdicts = new Map([...outcomes].map(([index, outcome]) => [index, VERDICT[outcome.kind]]));
  const results = judgeCriteria(criteria, map, verdicts);
  const count = (kind: TestOutcome['kind']) => [...outcomes.values()].filter((o) => o.kind === kind).length;
  const inconsistencies = findings.filter((f) => f.kind === 'inconsistency').length;
  const notPass = results.filter((r) => r.status !== 'PASS');

  let status: AttemptStatus;
  let summary: string;
  if (count('verifier_error') > 0) {
    status = 'VERIFIER_ERROR';
    const first = findings.find((f) => f.kind === 'verifier_error');
    summary = `${count('verifier_error')} test(s) could not be run reliably (${first?.reasonCode}): ${firstLine(first?.reason)}`;
  } else if (inconsistencies > 0) {
    status = 'INCONCLUSIVE';
    summary = `the report does not match the spec: ${findings.find((f) => f.kind === 'inconsistency')?.reason}`;
  } else if (count('product_failure') > 0) {
    status = 'FAIL';
    const failed = results.filter((r) => r.status === 'FAIL').map((r) => r.id);
    summary = `${count('product_failure')} test(s) failed an assertion; failed criteria: ${failed.join(', ')}`;
  } else if (count('flaky') + count('unattributed_failure') + count('skipped') > 0) {
    status = 'INCONCLUSIVE';
    summary = [
      count('flaky') > 0 ? `${count('flaky')} test(s) passed only on retry` : '',
      count('unattributed_failure') > 0 ? `${count('unattributed_failure')} test(s) failed without an assertion failure` : '',
      count('skipped') > 0 ? `${count('skipped')} test(s) skipped` : '',
    ].filter(Boolean).join('; ');
  } else if (notPass.length > 0) {
    status = 'INCONCLUSIVE';
    summary = `every test passed, but ${notPass.map((r) => r.id).join(', ')} ${notPass.length === 1 ? 'is' : 'are'} verified by no test`;
  } else if (input.process.exitCode !== 0) {
    status = 'INCONCLUSIVE';
    summary = `every test passed, but Playwright exited with code ${input.process.exitCode}`;
  } else {
    status = 'PASS';
    summary = `${outcomes.size} test(s) passed; every criterion verified`;
  }
  return { status, summary, criteria: results, findings, outcomes };
}

/** Why the run as a whole gave no usable report, or null. */
function processFailure({ process: p, report }: ClassifyInput): string | null {
  const tail = lastLines(p.stderrTail, 3, ' | ').slice(0, 600);
  if (p.spawnError) return `could not start Playwright: ${p.spawnError}`;
  if (p.aborted) return 'verification interrupted';
  if (p.timedOut) return `Playwright did not finish within ${Math.round(p.timeoutMs / 1000)}s (killed)`;
  if (!report.ok) return `${report.reason} (exit code ${p.exitCode})${tail ? `: ${tail}` : ''}`;
  if (report.report.errors.length > 0) return `Playwright failed outside the tests: ${firstLines(report.report.errors[0]!.message, 3)}`;
  return null;
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

function testFinding(index: number, test: ReportTest, outcome: TestOutcome): PlaywrightFinding {
  const reason = outcome.error ? firstLines(outcome.error.message, 8) : outcome.kind === 'skipped' ? 'skipped' : null;
  const attachments = test.results.flatMap((r) => r.attachments).filter((a) => a.path !== null);
  const kind: Finding['kind'] =
    outcome.kind === 'product_failure' ? 'product_failure' : outcome.kind === 'verifier_error' ? 'verifier_error' : 'unattributed_failure';
  return {
    ...finding(kind, index, test.title, reason, outcome.reasonCode),
    location: outcome.error?.location ?? `${test.file}:${test.line}:${test.column}`,
    attachments,
    evidencePack: attachments.find((a) => a.name === 'trace')?.path ?? null,
  };
}

function finding(kind: Finding['kind'], step: number | null, heading: string | null, reason: string | null, reasonCode: string | null): PlaywrightFinding {
  return { step, heading, kind, reason, reasonCode, resultCode: null, verdict: null, sessionId: null, evidencePack: null, location: null, attachments: [] };
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The first `n` non-empty lines, trimmed to a sane length. */
export function firstLines(text: string, n: number): string {
  return text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '').slice(0, n).join('\n').slice(0, 2000);
}
const firstLine = (text: string | null | undefined) => firstLines(text ?? '', 1);
