// The Kane stream reader's facts, event by event: what each event leaves behind, what is capped, what is a violation.
import { describe, expect, it } from 'vitest';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';
import type { VerifierProgress } from '../../src/verifiers/types.js';

type Event = Record<string, unknown>;
const start = (i: number, heading: string | null = `Step ${i}`): Event => ({ type: 'test_md_step_start', step_index: i, heading });
const end = (i: number, status: unknown = 'passed', more: Event = {}): Event => ({
  type: 'test_md_step_end',
  step_index: i,
  status,
  ...more,
});
const runEnd = (status: string, more: Event = {}): Event => ({ type: 'run_end', status, ...more });
const done = (more: Event = {}): Event => ({ type: 'test_md_done', overall_status: 'passed', ...more });

function read(events: Event[], onProgress?: (p: VerifierProgress) => void) {
  const state = new KaneStreamState(onProgress);
  for (const event of events) state.feed(event);
  return state.result();
}

describe('KaneStreamState: the stream as a whole', () => {
  it('starts empty', () => {
    expect(read([])).toEqual({
      cliVersion: null,
      contractVersion: null,
      steps: new Map(),
      summary: null,
      done: null,
      errorCount: 0,
      errors: [],
      warnings: [],
      orphans: [],
      eventsAfterDone: 0,
      violations: [],
      violationCount: 0,
      typeCounts: {},
      creditsConsumed: null,
    });
  });

  it('keeps the CLI version of stream_start, and the first contract version any event carried', () => {
    const facts = read([
      { type: 'progress', v: '2' },
      { type: 'stream_start', cli_version: '0.9.1', v: 3 },
      { type: 'stream_start', v: 4 },
      { type: 'stream_start', cli_version: '' },
    ]);
    expect(facts.cliVersion).toBe('0.9.1');
    expect(facts.contractVersion).toBe(3);
    expect(
      read([
        { type: 'progress', v: 0 },
        { type: 'x', v: 1 },
      ]).contractVersion,
    ).toBe(0);
  });

  it('counts events by type, untyped ones apart, and folds types past 64 into (other)', () => {
    const facts = read([{ type: 'progress' }, { type: 'progress' }, { no: 'type' }, { type: 7 }]);
    expect(facts.typeCounts).toEqual({ progress: 2, '(untyped)': 2 });
    const many = read(Array.from({ length: 70 }, (_, i) => ({ type: `t${i}` })).concat([{ type: 't0' }, { type: 't69' }]));
    expect(Object.keys(many.typeCounts)).toHaveLength(65);
    expect(many.typeCounts.t0).toBe(2);
    expect(many.typeCounts.t63).toBe(1);
    expect(many.typeCounts.t64).toBeUndefined();
    expect(many.typeCounts['(other)']).toBe(7);
  });

  it('keeps the first five error messages and counts them all; an error without a message is shown as its JSON', () => {
    const errors = Array.from({ length: 7 }, (_, i) => ({ type: 'error', message: `e${i}` }));
    const facts = read(errors);
    expect(facts.errorCount).toBe(7);
    expect(facts.errors).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    const bare = read([{ type: 'error', code: 'X', detail: 'y'.repeat(400) }]).errors[0]!;
    expect(bare.startsWith('{"type":"error","code":"X"')).toBe(true);
    expect(bare).toHaveLength(300);
  });

  it('keeps the first five warnings, by message, else code, else "warning"', () => {
    expect(read([{ type: 'warning', message: 'm', code: 'c' }, { type: 'warning', code: 'c' }, { type: 'warning' }]).warnings).toEqual([
      'm',
      'c',
      'warning',
    ]);
    expect(read(Array.from({ length: 6 }, (_, i) => ({ type: 'warning', message: `w${i}` }))).warnings).toHaveLength(5);
  });

  it('reads test_md_done and test_md_summary', () => {
    const facts = read([
      {
        type: 'test_md_summary',
        overall_status: 'failed',
        steps: { total: '3', passed: 1, failed: 1, skipped: 1 },
        cancelled: 'true',
        commit: { reason: 'step 2 failed' },
      },
      done({ overall_status: 'failed', session_id: 's-1', duration_s: '12.5', share_url: 'https://x/s-1' }),
    ]);
    expect(facts.summary).toEqual({
      overallStatus: 'failed',
      total: 3,
      passed: 1,
      failed: 1,
      skipped: 1,
      cancelled: true,
      commitReason: 'step 2 failed',
    });
    expect(facts.done).toEqual({ overallStatus: 'failed', sessionId: 's-1', durationSeconds: 12.5, shareUrl: 'https://x/s-1' });
    expect(read([{ type: 'test_md_summary' }]).summary).toEqual({
      overallStatus: null,
      total: null,
      passed: null,
      failed: null,
      skipped: null,
      cancelled: null,
      commitReason: null,
    });
  });

  it('counts every event after test_md_done; only step, verdict and result events there are violations', () => {
    const facts = read([
      done(),
      { type: 'progress' },
      { type: 'error', message: 'late' },
      { type: 'test_md_bug_verdict', step_index: 1, confirmed: true },
      { type: 'warning' },
    ]);
    expect(facts.eventsAfterDone).toBe(4);
    expect(facts.violations).toEqual(['test_md_bug_verdict after test_md_done']);
    expect(facts.violationCount).toBe(1);
  });

  it('keeps the first five violations and counts them all', () => {
    const state = new KaneStreamState();
    for (let i = 0; i < 7; i++) state.violation(`v${i}`);
    expect(state.result().violations).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    expect(state.result().violationCount).toBe(7);
  });
});

describe('KaneStreamState: steps', () => {
  it('records a step from start to end', () => {
    const facts = read([
      start(2, 'Open the cart'),
      runEnd('failed', {
        reason: 'total is wrong',
        one_liner: 'wrong total',
        reason_code: 'assertion_error.confirmed_product_bug',
        result_code: '740',
        verdict: { confirmed: true, family: 'application_issue' },
      }),
      end(2, 'failed', { duration_s: 4 }),
    ]);
    expect(facts.steps.get(2)).toEqual({
      index: 2,
      heading: 'Open the cart',
      headingConflict: false,
      started: true,
      status: 'failed',
      endCount: 1,
      endConflict: false,
      durationSeconds: 4,
      runFailed: true,
      reason: 'total is wrong',
      oneLiner: 'wrong total',
      reasonCode: 'assertion_error.confirmed_product_bug',
      resultCode: 740,
      runVerdict: expect.objectContaining({ confirmed: true, family: 'application_issue' }),
      bugVerdict: null,
    });
    expect(facts.orphans).toEqual([]);
    expect(facts.violationCount).toBe(0);
  });

  it('a restarted step keeps one heading unless the restart names another', () => {
    expect(read([start(1, 'A'), start(1, 'A')]).steps.get(1)).toMatchObject({ heading: 'A', headingConflict: false });
    expect(read([start(1, 'A'), start(1, 'B')]).steps.get(1)).toMatchObject({ heading: 'B', headingConflict: true });
    // The first start has nothing to conflict with.
    expect(read([start(1, null)]).steps.get(1)).toMatchObject({ heading: null, headingConflict: false, started: true });
  });

  it('a run_end explains its step: the last failing one, else the last one', () => {
    const step = (...runs: Event[]) => read([start(1), ...runs]).steps.get(1)!;
    expect(step(runEnd('failed', { reason: 'first' }), runEnd('passed', { reason: 'healed' }))).toMatchObject({
      runFailed: true,
      reason: 'first',
    });
    expect(step(runEnd('passed', { reason: 'first' }), runEnd('failed', { reason: 'second', one_liner: 'x' }))).toMatchObject({
      runFailed: true,
      reason: 'second',
      oneLiner: 'x',
    });
    expect(step(runEnd('failed', { reason: 'first' }), runEnd('failed', { reason: 'second' }))).toMatchObject({ reason: 'second' });
    expect(step(runEnd('passed', { reason: 'first', reason_code: 'a' }), runEnd('passed', { reason_code: 'b' }))).toMatchObject({
      runFailed: false,
      reason: null,
      reasonCode: 'b',
    });
    // Only the exact word "failed" fails a run.
    expect(step(runEnd('FAILED'))).toMatchObject({ runFailed: false });
  });

  it("sums the runs' credits, taking a verdict's only when the run_end has none; negatives and junk are ignored", () => {
    const credits = (...runs: Event[]) => read([start(1), ...runs]).creditsConsumed;
    expect(credits(runEnd('passed'))).toBeNull();
    expect(credits(runEnd('passed', { credits_consumed: 2 }), runEnd('passed', { credits_consumed: '1.5' }))).toBe(3.5);
    expect(credits(runEnd('failed', { credits_consumed: 2, verdict: { confirmed: true, credits_consumed: 5 } }))).toBe(2);
    expect(credits(runEnd('failed', { verdict: { confirmed: true, credits_consumed: 5 } }))).toBe(5);
    expect(credits(runEnd('passed', { credits_consumed: -1 }))).toBeNull();
    expect(credits(runEnd('passed', { credits_consumed: 0 }))).toBe(0);
    expect(credits(runEnd('passed', { credits_consumed: 'lots' }))).toBeNull();
    // A failed run after a failed one is skipped for its explanation, not for its credits.
    expect(credits(runEnd('failed', { credits_consumed: 1 }), runEnd('passed', { credits_consumed: 1 }))).toBe(2);
  });

  it('a bug verdict goes to the step it names, else the running step; several merge, the first one first', () => {
    const facts = read([
      start(1),
      { type: 'test_md_bug_verdict', confirmed: true, one_liner: 'first' },
      { type: 'test_md_bug_verdict', family: 'application_issue', one_liner: 'second' },
      { type: 'test_md_bug_verdict', step_index: 3, bug_title: 'elsewhere' },
    ]);
    expect(facts.steps.get(1)!.bugVerdict).toMatchObject({ confirmed: true, family: 'application_issue', oneLiner: 'first' });
    expect(facts.steps.get(3)!.bugVerdict).toMatchObject({ bugTitle: 'elsewhere' });
    expect(facts.steps.get(3)!.started).toBe(false);
  });

  it('a step end: status passed or failed, anything else a failure; a failure stays; a second end that disagrees is a conflict', () => {
    const step = (...events: Event[]) => read([start(1), ...events]).steps.get(1)!;
    expect(step(end(1, 'passed'))).toMatchObject({ status: 'passed', endCount: 1, endConflict: false });
    expect(step(end(1, 'skipped'))).toMatchObject({ status: 'failed' });
    expect(step(end(1, 'passed'), end(1, 'passed'))).toMatchObject({ status: 'passed', endCount: 2, endConflict: false });
    expect(step(end(1, 'passed'), end(1, 'failed'))).toMatchObject({ status: 'failed', endConflict: true });
    expect(step(end(1, 'failed'), end(1, 'passed'))).toMatchObject({ status: 'failed', endCount: 2, endConflict: true });
    expect(step(end(1, 'failed'), end(1, 'failed'))).toMatchObject({ status: 'failed', endConflict: false });
    expect(step(end(1, 'passed', { duration_s: 3 }), end(1, 'passed'))).toMatchObject({ durationSeconds: 3 });
    expect(step(end(1, 'passed', { duration_s: 3 }), end(1, 'passed', { duration_s: '5' }))).toMatchObject({ durationSeconds: 5 });
  });

  it('after its end a step is no longer running: a run_end then belongs to no step', () => {
    const facts = read([start(1), end(1), runEnd('failed', { reason: 'late' })]);
    expect(facts.steps.get(1)!.reason).toBeNull();
    expect(facts.orphans).toEqual(['run_end outside any step']);
    // Ending another step leaves the running one running.
    const other = read([start(1), start(2), end(1), runEnd('failed', { reason: 'for 2' })]);
    expect(other.steps.get(2)!.reason).toBe('for 2');
    expect(other.orphans).toEqual([]);
  });

  it('events that name no step, or a step never started, are orphans and violations (the first five kept)', () => {
    const facts = read([
      { type: 'test_md_step_start' },
      runEnd('passed'),
      { type: 'test_md_bug_verdict', confirmed: true },
      { type: 'test_md_step_end', status: 'passed' },
      end(4),
      end(5),
      end(6),
    ]);
    expect(facts.orphans).toEqual([
      'test_md_step_start without a step_index',
      'run_end outside any step',
      'test_md_bug_verdict without a step',
      'test_md_step_end without a step_index',
      'test_md_step_end for step 4, which never started',
    ]);
    expect(facts.violationCount).toBe(7);
    expect(facts.violations).toEqual(facts.orphans);
    // The never-started step is still recorded, as ended.
    expect(facts.steps.get(4)).toMatchObject({ started: false, status: 'passed', endCount: 1 });
    expect(facts.steps.has(0)).toBe(false);
  });
});

describe('KaneStreamState: progress', () => {
  it('tells the listener each start and the first end of a step', () => {
    const heard: VerifierProgress[] = [];
    read([start(1), end(1, 'passed', { duration_s: 2 }), end(1, 'failed'), start(2, null), end(2, 'failed')], (p) => heard.push(p));
    expect(heard).toEqual([
      { kind: 'step-start', step: 1, heading: 'Step 1' },
      { kind: 'step-end', step: 1, heading: 'Step 1', status: 'passed', durationSeconds: 2 },
      { kind: 'step-start', step: 2, heading: '' },
      { kind: 'step-end', step: 2, heading: '', status: 'failed', durationSeconds: null },
    ]);
  });

  it('a listener that throws changes nothing', () => {
    const facts = read([start(1), runEnd('failed'), end(1, 'failed')], () => {
      throw new Error('broken listener');
    });
    expect(facts.steps.get(1)).toMatchObject({ started: true, status: 'failed', runFailed: true });
  });
});
