// Streams that keep every count consistent yet break Kane's event order or shape: never PASS.
import { describe, expect, it } from 'vitest';
import { classifyKane, type ProcessOutcome } from '../../src/verifiers/kane/classify.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';

const declared = [1, 2].map((index) => ({ index, heading: `Step ${index}`, optional: false }));
const exited = (exitCode: number | null): ProcessOutcome => ({
  exitCode,
  signal: null,
  timedOut: false,
  aborted: false,
  outputCapped: false,
  spawnError: null,
  timeoutMs: 60_000,
  lastStderrLine: null,
});
type Event = Record<string, unknown>;
const start = (i: number): Event => ({ type: 'test_md_step_start', step_index: i, heading: `Step ${i}`, ref: null });
const runEnd = (status: string, more: Event = {}): Event => ({
  type: 'run_end',
  status,
  result_code: status === 'passed' ? 100 : 740,
  ...more,
});
const end = (i: number, status = 'passed'): Event => ({ type: 'test_md_step_end', step_index: i, status, duration_s: 1 });
const passed = (i: number): Event[] => [start(i), runEnd('passed'), end(i)];
const summary = (overall = 'passed', counts: Event = { total: 2, passed: 2, failed: 0, skipped: 0 }, more: Event = {}): Event => ({
  type: 'test_md_summary',
  overall_status: overall,
  steps: counts,
  cancelled: false,
  ...more,
});
const done = (overall = 'passed'): Event => ({ type: 'test_md_done', overall_status: overall, session_id: 's' });

function classify(events: Event[], violations: string[] = []) {
  const state = new KaneStreamState();
  for (const v of violations) state.violation(v);
  for (const e of events) state.feed(e);
  return classifyKane({ facts: state.result(), process: exited(0), declared, eventCount: events.length, evidencePack: null });
}

describe('Kane stream order and shape', () => {
  it('the well-formed stream these attacks start from is a PASS', () => {
    expect(classify([...passed(1), ...passed(2), summary(), done()])).toMatchObject({ status: 'PASS', rule: 'passed' });
  });

  it.each([
    [
      'a step that ends passed without ever starting',
      [...passed(1), runEnd('passed'), end(2), summary(), done()],
      'test_md_step_end for step 2, which never started',
    ],
    ['a step_start after test_md_done', [...passed(1), ...passed(2), summary(), done(), start(2)], 'test_md_step_start after test_md_done'],
    ['a second test_md_done', [...passed(1), ...passed(2), summary(), done(), done()], 'test_md_done after test_md_done'],
    ['a run_end after test_md_done', [...passed(1), ...passed(2), summary(), done(), runEnd('failed')], 'run_end after test_md_done'],
    ['a summary after test_md_done', [...passed(1), ...passed(2), summary(), done(), summary()], 'test_md_summary after test_md_done'],
    [
      'a step_end after test_md_done',
      [...passed(1), ...passed(2), summary(), done(), end(2, 'failed')],
      'test_md_step_end after test_md_done',
    ],
    [
      'a bug verdict after test_md_done',
      [...passed(1), ...passed(2), summary(), done(), { type: 'test_md_bug_verdict', step_index: 2, confirmed: true }],
      'test_md_bug_verdict after test_md_done',
    ],
    ['a run_end outside any step', [...passed(1), runEnd('passed'), ...passed(2), summary(), done()], 'run_end outside any step'],
    [
      'a step_start without a step_index',
      [...passed(1), { type: 'test_md_step_start', heading: 'x' }, ...passed(2), summary(), done()],
      'test_md_step_start without a step_index',
    ],
    [
      'a step_end without a step_index',
      [...passed(1), ...passed(2), { type: 'test_md_step_end', status: 'passed' }, summary(), done()],
      'test_md_step_end without a step_index',
    ],
    [
      'a bug verdict naming no step',
      [{ type: 'test_md_bug_verdict', confirmed: false }, ...passed(1), ...passed(2), summary(), done()],
      'test_md_bug_verdict without a step',
    ],
  ])('INCONCLUSIVE for %s', (_what, events, message) => {
    const c = classify(events);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'malformed' });
    expect(c.summary).toContain(message);
    expect(c.findings).toContainEqual(expect.objectContaining({ kind: 'inconsistency', reason: message }));
  });

  it('a violation found outside the event (a repeated key in its line) is INCONCLUSIVE too', () => {
    const c = classify([...passed(1), ...passed(2), summary(), done()], ['a run_end event repeats the key "status"']);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'malformed' });
    expect(c.summary).toBe(`the stream breaks Kane's event order or shape (1 violation(s)): a run_end event repeats the key "status"`);
  });

  it('counts every violation but keeps only the first five', () => {
    const state = new KaneStreamState();
    for (let i = 0; i < 7; i++) state.feed(runEnd('passed'));
    expect(state.result().violationCount).toBe(7);
    expect(state.result().violations).toHaveLength(5);
    expect(state.result().orphans).toHaveLength(5);
  });

  it('unknown and progress events after test_md_done are counted, not violations', () => {
    const state = new KaneStreamState();
    for (const e of [...passed(1), ...passed(2), summary(), done(), { type: 'stream_end' }, { type: 'warning', message: 'w' }])
      state.feed(e);
    expect(state.result()).toMatchObject({ eventsAfterDone: 2, violationCount: 0 });
  });
});

describe('Kane stream: the known gaps', () => {
  it('cancelled: true in the summary is a VERIFIER_ERROR, never a pass', () => {
    const c = classify([
      ...passed(1),
      ...passed(2),
      summary('passed', { total: 2, passed: 2, failed: 0, skipped: 0 }, { cancelled: true }),
      done(),
    ]);
    expect(c).toMatchObject({ status: 'VERIFIER_ERROR', rule: 'cancelled', summary: 'Kane reports the run as cancelled' });
  });

  it('a failed overall with no failed step is not a contradiction when Kane says cancelled', () => {
    const c = classify([
      ...passed(1),
      summary('failed', { total: 2, passed: 1, failed: 0, skipped: 1 }, { cancelled: true }),
      done('failed'),
    ]);
    expect(c.rule).toBe('cancelled');
  });

  it('two run_end in one step: a later pass does not hide an earlier failure', () => {
    const state = new KaneStreamState();
    const events = [
      start(1),
      runEnd('failed', {
        reason: 'first try',
        reason_code: 'assertion_error.x',
        verdict: { confirmed: true, family: 'application_issue' },
      }),
      runEnd('passed', { reason: 'healed' }),
      end(1, 'failed'),
    ];
    for (const e of events) state.feed(e);
    expect(state.result().steps.get(1)).toMatchObject({
      runFailed: true,
      reason: 'first try',
      reasonCode: 'assertion_error.x',
      resultCode: 740,
    });
  });

  it('two run_end in one step: the later one explains a step whose runs all passed', () => {
    const state = new KaneStreamState();
    for (const e of [
      start(1),
      runEnd('passed', { reason: 'one', one_liner: 'a' }),
      runEnd('passed', { reason: 'two', one_liner: 'b' }),
      end(1),
    ])
      state.feed(e);
    expect(state.result().steps.get(1)).toMatchObject({ runFailed: false, reason: 'two', oneLiner: 'b' });
  });

  it('an optional step that never ran does not make a pass of a run whose steps did not all run', () => {
    const state = new KaneStreamState();
    for (const e of [...passed(1), summary('passed', { total: 2, passed: 1, failed: 0, skipped: 1 }), done()]) state.feed(e);
    const optional = [declared[0]!, { index: 2, heading: 'Step 2', optional: true }];
    const c = classifyKane({ facts: state.result(), process: exited(0), declared: optional, eventCount: 5, evidencePack: null });
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'steps-not-run', summary: 'Kane passed, but step 2 did not run' });
    expect(c.stepVerdicts.get(2)).toBe('skipped');
  });
});
