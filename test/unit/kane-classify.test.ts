// The classifier on hand-built streams: the edge cases real captures do not cover.
import { describe, expect, it } from 'vitest';
import { classifyKane, type ProcessOutcome } from '../../src/verifiers/kane/classify.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';
import { decideKaneAttempt } from '../../src/verifiers/kane/run-kane.js';
import { judgeCriteria, mapCriteria } from '../../src/contract/criteria-map.js';

const declared = [1, 2, 3].map((index) => ({ index, heading: `Step ${index}`, optional: false }));
const contract = [1, 2, 3].map((i) => ({ id: `AC-${i}`, description: `criterion ${i}` }));
const map = mapCriteria(
  contract,
  declared.map((d) => ({ index: d.index, heading: d.heading, verifies: [`AC-${d.index}`] })),
);
const exited = (exitCode: number | null, more: Partial<ProcessOutcome> = {}): ProcessOutcome => ({
  exitCode,
  signal: null,
  timedOut: false,
  aborted: false,
  outputCapped: false,
  spawnError: null,
  timeoutMs: 60_000,
  lastStderrLine: null,
  ...more,
});

type Event = Record<string, unknown>;
const start = (i: number, heading = `Step ${i}`): Event => ({ type: 'test_md_step_start', step_index: i, heading, ref: null });
const end = (i: number, status: string): Event => ({ type: 'test_md_step_end', step_index: i, status, duration_s: 1 });
const passed = (i: number): Event[] => [
  start(i),
  { type: 'run_end', status: 'passed', result_code: 100, reason_code: 'success.complete' },
  end(i, 'passed'),
];
const failed = (i: number, runEnd: Event, more: Event[] = []): Event[] => [
  start(i),
  { type: 'run_end', status: 'failed', ...runEnd },
  ...more,
  end(i, 'failed'),
];
const closing = (overall: string, counts: Record<string, number>): Event[] => [
  { type: 'test_md_summary', overall_status: overall, steps: { total: 3, ...counts }, cancelled: false },
  { type: 'test_md_done', overall_status: overall, session_id: 'sid-1' },
];

function classify(events: Event[], process = exited(1)) {
  const state = new KaneStreamState();
  for (const e of events) state.feed(e);
  return classifyKane({ facts: state.result(), process, declared, eventCount: events.length, evidencePack: '/pack' });
}
const failAt3 = (runEnd: Event, more: Event[] = []) =>
  classify([...passed(1), ...passed(2), ...failed(3, runEnd, more), ...closing('failed', { passed: 2, failed: 1, skipped: 0 })]);

describe('classifyKane', () => {
  it('a clean pass is PASS, even with exit 1', () => {
    const c = classify([...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })], exited(1));
    expect(c).toMatchObject({ status: 'PASS', rule: 'passed', findings: [] });
    expect([...c.stepVerdicts.values()]).toEqual(['passed', 'passed', 'passed']);
  });

  it('a done event without any overall_status is not a pass, however clean the steps', () => {
    const c = classify([...passed(1), ...passed(2), ...passed(3), { type: 'test_md_done', session_id: 'sid-1' }], exited(0));
    expect(c.status).toBe('INCONCLUSIVE');
    expect(c.findings.map((f) => f.reason)).toContain('test_md_done carries no overall_status (nor does test_md_summary)');
  });

  it('coerces a string result_code "740" to a product failure', () => {
    const c = failAt3({ result_code: '740', reason_code: 'assertion_error.confirmed_product_bug', reason: 'Final verification failed' });
    expect(c.status).toBe('FAIL');
    expect(c.findings[0]).toMatchObject({ kind: 'product_failure', resultCode: 740, sessionId: 'sid-1', evidencePack: '/pack' });
    expect(c.stepVerdicts.get(3)).toBe('product_failure');
  });

  it('takes the verdict from test_md_bug_verdict alone (failed replay: no codes, no run_end verdict)', () => {
    const verdict = {
      type: 'test_md_bug_verdict',
      step_index: 3,
      confirmed: true,
      family: 'application_issue',
      category: 'ui_data_defect',
      severity: 'major',
      confidence: 0.9,
      bug_title: 'Wrong total',
      one_liner: 'shows $72',
    };
    const c = failAt3({ reason: 'assertion_failed: @ step 3' }, [verdict]);
    expect(c.status).toBe('FAIL');
    expect(c.findings[0]!.verdict).toMatchObject({
      confirmed: true,
      family: 'application_issue',
      bugTitle: 'Wrong total',
      oneLiner: 'shows $72',
    });
    expect(c.findings[0]).toMatchObject({ reasonCode: null, resultCode: null, reason: 'assertion_failed: @ step 3' });
  });

  it('merges run_end.verdict with test_md_bug_verdict, run_end first', () => {
    const c = failAt3(
      { reason: 'x', verdict: { confirmed: true, family: 'application_issue', severity: null, bug_title: 'From run_end' } },
      [{ type: 'test_md_bug_verdict', step_index: 3, severity: 'minor', bug_title: 'From bug verdict', confidence: 0.7 }],
    );
    expect(c.findings[0]!.verdict).toMatchObject({ bugTitle: 'From run_end', severity: 'minor', confidence: 0.7 });
  });

  it('application_issue with confirmed:false and a downgrade_reason is still a product failure (family before confirmed)', () => {
    const c = failAt3({
      reason: 'assertion_failed: @ step 2',
      verdict: { confirmed: false, family: 'application_issue', confidence: 0.97, downgrade_reason: 'citation verification failed: x' },
    });
    expect(c.status).toBe('FAIL');
    expect(c.findings[0]!.verdict).toMatchObject({ confirmed: false, downgradeReason: 'citation verification failed: x' });
  });

  it('confirmed:true with family automation_bug is not a product failure', () => {
    expect(failAt3({ result_code: 740, verdict: { confirmed: true, family: 'automation_bug' } }).status).toBe('VERIFIER_ERROR');
  });

  it('stuck.* with an unconfirmed app suspicion is a VERIFIER_ERROR; with a confirmed verdict it is a FAIL (t7)', () => {
    expect(
      failAt3({ result_code: 330, reason_code: 'stuck.ap_stuck', verdict: { confirmed: false, family: 'application_issue' } }).status,
    ).toBe('VERIFIER_ERROR');
    expect(
      failAt3({ result_code: 330, reason_code: 'stuck.ap_stuck', verdict: { confirmed: true, family: 'application_issue' } }).status,
    ).toBe('FAIL');
  });

  it('infra_error.* beats any verdict', () => {
    expect(
      failAt3({ result_code: 510, reason_code: 'infra_error.screenshot_failed', verdict: { confirmed: true, family: 'application_issue' } })
        .status,
    ).toBe('VERIFIER_ERROR');
  });

  it('a failure with no verdict and no attributing code is INCONCLUSIVE', () => {
    const c = failAt3({ result_code: 710, reason_code: 'assertion_error.final_verification' });
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'unattributed' });
    expect(c.findings[0]!.kind).toBe('unattributed_failure');
  });

  it('through the shared rule: a confirmed FAIL wins over a verifier failure at another step, naming what could not be judged', () => {
    const productAt1 = failed(1, {
      result_code: 740,
      reason_code: 'assertion_error.confirmed_product_bug',
      verdict: { confirmed: true, family: 'application_issue', bug_title: 'No total' },
    });
    const c = classify([
      ...productAt1,
      ...passed(2),
      ...failed(3, { result_code: 510, reason_code: 'infra_error.screenshot_failed' }),
      ...closing('failed', { passed: 1, failed: 2, skipped: 0 }),
    ]);
    expect(c).toMatchObject({ status: 'FAIL', rule: 'product-failure' });
    const criteria = judgeCriteria(contract, map, c.stepVerdicts);
    expect(decideKaneAttempt(c, criteria)).toEqual({
      status: 'FAIL',
      rule: 'product-failure',
      summary: 'product failure at step 1: No total; could not be judged: AC-3',
    });
  });

  it('through the shared rule: a product failure at a step that verifies no criterion is never a FAIL (nor a PASS)', () => {
    const c = failAt3({
      result_code: 740,
      reason_code: 'assertion_error.confirmed_product_bug',
      verdict: { confirmed: true, family: 'application_issue' },
    });
    const untagged = mapCriteria(
      contract.slice(0, 2),
      declared.slice(0, 2).map((d, i) => ({ index: d.index, heading: d.heading, verifies: [`AC-${i + 1}`] })),
    );
    const decided = decideKaneAttempt(c, judgeCriteria(contract.slice(0, 2), untagged, c.stepVerdicts));
    expect(decided).toMatchObject({ status: 'INCONCLUSIVE', rule: 'untagged-product-failure' });
    expect(decided.summary).toMatch(/^product failure at step 3, which verifies no criterion/);
  });

  it('through the shared rule: run-level trouble is never overridden into a FAIL (a stream that contradicts itself must not steer the agent)', () => {
    const productAt1 = failed(1, { result_code: 740, verdict: { confirmed: true, family: 'application_issue' } });
    const c = classify([...productAt1, ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })]);
    expect(c.rule).toBe('contradiction');
    expect(decideKaneAttempt(c, judgeCriteria(contract, map, c.stepVerdicts)).status).toBe('INCONCLUSIVE');
  });

  it('summary counts that disagree with the step events are INCONCLUSIVE', () => {
    const c = classify([...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 2, failed: 1, skipped: 0 })]);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'contradiction' });
    expect(c.summary).toContain('test_md_summary counts 2 passed step(s), the step events show 3');
  });

  it('summary and done that disagree on the overall status are INCONCLUSIVE', () => {
    const events = [...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })];
    (events.at(-1) as Event).overall_status = 'failed';
    expect(classify(events).rule).toBe('contradiction');
  });

  it('a duplicated step_end is tolerated when it agrees, a contradiction when it does not', () => {
    const ok = classify([
      ...passed(1),
      end(1, 'passed'),
      ...passed(2),
      ...passed(3),
      ...closing('passed', { passed: 3, failed: 0, skipped: 0 }),
    ]);
    expect(ok.status).toBe('PASS');
    const bad = classify([
      ...passed(1),
      end(1, 'failed'),
      ...passed(2),
      ...passed(3),
      ...closing('passed', { passed: 3, failed: 0, skipped: 0 }),
    ]);
    expect(bad.status).toBe('INCONCLUSIVE');
    expect(bad.findings.some((f) => f.reason?.includes('step 1 was reported as ended 2 times'))).toBe(true);
  });

  it('unknown event types and fields are ignored', () => {
    const noise = [{ type: 'brand_new_event', whatever: { deep: 1 } }, { no_type: true }, { type: 'memory', x: 1 }];
    const events = [...noise, ...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })];
    events[1] = { ...events[1], future_field: [1, 2] };
    expect(classify(events).status).toBe('PASS');
  });

  it('a step Kane never reported, with a summary that says nothing was skipped, is a contradiction', () => {
    const c = classify([...passed(1), ...passed(2), ...closing('passed', { passed: 2, failed: 0, skipped: 0 })]);
    expect(c.status).toBe('INCONCLUSIVE');
    expect(c.summary).toContain('counts 0 skipped step(s), but 1 step(s) of the test file never ended');
  });

  it('a passing run whose summary admits a skipped step is not a PASS', () => {
    const c = classify([...passed(1), ...passed(2), ...closing('passed', { passed: 2, failed: 0, skipped: 1 })]);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'steps-not-run' });
    expect(c.stepVerdicts.get(3)).toBe('skipped');
  });

  it('a step_index beyond the test file is a pairing problem', () => {
    const c = classify([
      ...passed(1),
      ...passed(2),
      ...passed(3),
      ...passed(4),
      ...closing('passed', { passed: 4, failed: 0, skipped: 0 }),
    ]);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'pairing' });
    expect(c.summary).toContain('Kane reported step 4, but the test file has 3 step(s)');
  });

  it('an error event is a VERIFIER_ERROR even when the stream ends', () => {
    const c = classify([
      { type: 'error', message: 'Controller auth failed' },
      ...failed(1, { reason_code: 'infra_error.controller_auth' }),
    ]);
    expect(c).toMatchObject({ status: 'VERIFIER_ERROR', rule: 'error-event' });
  });

  it('an optional step that failed for the verifier does not sink a passing run; a product failure there still does', () => {
    const withOptional = declared.map((d) => ({ ...d, optional: d.index === 3 }));
    const run = (runEnd: Event) => {
      const state = new KaneStreamState();
      for (const e of [...passed(1), ...passed(2), ...failed(3, runEnd), ...closing('passed', { passed: 2, failed: 1, skipped: 0 })])
        state.feed(e);
      return classifyKane({ facts: state.result(), process: exited(0), declared: withOptional, eventCount: 9, evidencePack: null });
    };
    const flaky = run({ reason_code: 'stuck.ap_stuck' });
    expect(flaky.status).toBe('PASS');
    expect(flaky.stepVerdicts.get(3)).toBe('failed_other');
    expect(flaky.findings[0]).toMatchObject({ step: 3, kind: 'verifier_error' });
    expect(run({ result_code: 740 }).status).toBe('FAIL');
  });

  it('process outcomes come first: timeout, exit 2, exit 3, a crash, an output cap', () => {
    const full = [...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })];
    expect(classify(full, exited(null, { timedOut: true, signal: 'SIGTERM' })).rule).toBe('timeout');
    expect(classify(full, exited(2)).rule).toBe('exit-2');
    expect(classify(full, exited(3)).rule).toBe('exit-3');
    expect(classify(full, exited(null, { signal: 'SIGSEGV' }))).toMatchObject({ status: 'VERIFIER_ERROR', rule: 'crashed' });
    expect(classify(full, exited(0, { outputCapped: true }))).toMatchObject({ status: 'INCONCLUSIVE', rule: 'output-capped' });
    expect(classify([], exited(0))).toMatchObject({ status: 'INCONCLUSIVE', rule: 'empty' });
  });
});
