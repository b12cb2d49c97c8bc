// classifyKane's exact words and findings, rule by rule: what a person and the repair prompt read.
import { describe, expect, it } from 'vitest';
import { classifyKane, type ProcessOutcome } from '../../src/verifiers/kane/classify.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';

const declared = [1, 2, 3].map((index) => ({ index, heading: `Step ${index}`, optional: false }));
const exited = (exitCode: number | null, more: Partial<ProcessOutcome> = {}): ProcessOutcome => ({
  exitCode,
  signal: null,
  timedOut: false,
  aborted: false,
  outputCapped: false,
  spawnError: null,
  timeoutMs: 90_000,
  lastStderrLine: null,
  ...more,
});
type Event = Record<string, unknown>;
const start = (i: number, heading = `Kane's step ${i}`): Event => ({ type: 'test_md_step_start', step_index: i, heading, ref: null });
const end = (i: number, status: string): Event => ({ type: 'test_md_step_end', step_index: i, status });
const passed = (i: number): Event[] => [start(i, `Step ${i}`), { type: 'run_end', status: 'passed' }, end(i, 'passed')];
const failed = (i: number, run: Event = {}): Event[] => [
  start(i, `Step ${i}`),
  { type: 'run_end', status: 'failed', ...run },
  end(i, 'failed'),
];
const closing = (overall: string, counts: Event): Event[] => [
  { type: 'test_md_summary', overall_status: overall, steps: { total: 3, ...counts }, cancelled: false },
  { type: 'test_md_done', overall_status: overall, session_id: 'sid' },
];

function classify(events: Event[], process = exited(1), eventCount = events.length) {
  const state = new KaneStreamState();
  for (const e of events) state.feed(e);
  return classifyKane({ facts: state.result(), process, declared, eventCount, evidencePack: '/pack' });
}
const finding = (kind: string, reason: string, step: number | null, heading: string | null) => ({
  step,
  heading,
  kind,
  reason,
  reasonCode: null,
  resultCode: null,
  verdict: null,
  sessionId: null,
  evidencePack: '/pack',
});

describe('classifyKane: process outcomes come first, with the step that was running', () => {
  // Step 1 passed, step 2 started under Kane's own heading and never ended: that is the running step.
  const running = [...passed(1), start(2)];
  it.each([
    [
      exited(null, { spawnError: 'ENOENT' }),
      'spawn-failed',
      'kane-cli could not be started: ENOENT',
      finding('verifier_error', 'ENOENT', null, null),
    ],
    [
      exited(null, { timedOut: true }),
      'timeout',
      "no result within 90 s (Elenchos's own timeout); the whole process group was killed",
      finding('verifier_error', "no result within 90 s (Elenchos's own timeout); the whole process group was killed", 2, "Kane's step 2"),
    ],
    [
      exited(null, { aborted: true }),
      'aborted',
      'verification was interrupted',
      finding('verifier_error', 'interrupted', 2, "Kane's step 2"),
    ],
    [
      exited(2, { lastStderrLine: 'bad auth' }),
      'exit-2',
      'kane-cli exited 2 (a setup, auth, parse or browser error): bad auth',
      finding('verifier_error', 'kane-cli exited 2 (a setup, auth, parse or browser error): bad auth', 2, "Kane's step 2"),
    ],
    [
      exited(3),
      'exit-3',
      'kane-cli exited 3 (cancelled or timed out)',
      finding('verifier_error', 'kane-cli exited 3 (cancelled or timed out)', 2, "Kane's step 2"),
    ],
    [
      exited(null, { signal: 'SIGSEGV' }),
      'crashed',
      'kane-cli was killed by SIGSEGV',
      finding('verifier_error', 'kane-cli was killed by SIGSEGV', 2, "Kane's step 2"),
    ],
    [
      exited(7),
      'crashed',
      'kane-cli exited 7 (not a testmd exit code)',
      finding('verifier_error', 'kane-cli exited 7 (not a testmd exit code)', 2, "Kane's step 2"),
    ],
  ])('%j → %s', (process, rule, summary, first) => {
    const c = classify(running, process);
    expect(c).toMatchObject({ status: 'VERIFIER_ERROR', rule, summary });
    expect(c.findings[0]).toEqual(first);
  });

  it('an output cap is INCONCLUSIVE, with no finding of its own', () => {
    const c = classify(running, exited(null, { outputCapped: true, signal: 'SIGKILL' }));
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'output-capped', findings: [] });
    expect(c.summary).toBe('kane-cli printed more output than Elenchos accepts; the stream was cut and is unusable');
  });

  it('a timeout of a stream with no running step names no step', () => {
    expect(classify(passed(1), exited(null, { timedOut: true, timeoutMs: 1500 })).findings[0]).toMatchObject({
      step: null,
      heading: null,
      reason: expect.stringMatching(/^no result within 2 s/),
    });
  });
});

describe('classifyKane: the stream', () => {
  it('truncated: names the running step', () => {
    const c = classify([...passed(1), start(2, 'Step 2')], exited(0));
    expect(c).toMatchObject({
      status: 'INCONCLUSIVE',
      rule: 'truncated',
      summary: 'the stream ended before test_md_done (truncated): no final result',
    });
    expect(c.findings).toEqual([{ ...finding('inconsistency', 'no test_md_done', 2, 'Step 2'), sessionId: null }]);
    expect(c.stepVerdicts.get(2)).toBe('failed_other');
    expect(c.stepNotes.get(2)).toBe('step 2 started but never finished');
  });

  it('empty: no event at all', () => {
    expect(classify([], exited(1))).toMatchObject({
      status: 'INCONCLUSIVE',
      rule: 'empty',
      summary: 'kane-cli exited 1 without printing a single event',
    });
  });

  it('error events: every message a finding, the count in the summary', () => {
    const c = classify([...passed(1), { type: 'error', message: 'first' }, { type: 'error', code: 'x' }, ...closing('passed', {})]);
    expect(c).toMatchObject({ status: 'VERIFIER_ERROR', rule: 'error-event', summary: 'Kane reported 2 error event(s): first' });
    expect(c.findings.map((f) => [f.kind, f.reason])).toEqual([
      ['verifier_error', 'first'],
      ['verifier_error', '{"type":"error","code":"x"}'],
    ]);
  });

  it('product failures: findings in step order, the summary names each step and the first headline', () => {
    const verdict = (title: string) => ({ verdict: { confirmed: true, family: 'application_issue', bug_title: title } });
    const c = classify([
      ...failed(1, verdict('One is wrong')),
      ...passed(2),
      ...failed(3, verdict('Three is wrong')),
      ...closing('failed', { passed: 1, failed: 2, skipped: 0 }),
    ]);
    expect(c).toMatchObject({ status: 'FAIL', rule: 'product-failure', summary: 'product failure at step 1, 3: One is wrong' });
    expect(c.findings.map((f) => [f.step, f.heading, f.kind, f.sessionId])).toEqual([
      [1, 'Step 1', 'product_failure', 'sid'],
      [3, 'Step 3', 'product_failure', 'sid'],
    ]);
  });

  it('findings follow step order even when Kane reports the steps out of order', () => {
    const unattributed = classify([...failed(3), ...failed(1), ...passed(2), ...closing('failed', { passed: 1, failed: 2, skipped: 0 })]);
    expect(unattributed.findings.map((f) => f.step)).toEqual([1, 3]);
  });

  it('a pass, steps that did not run and stream violations say how many and which', () => {
    expect(classify([...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 3, failed: 0, skipped: 0 })]).summary).toBe(
      'Kane passed all 3 step(s)',
    );
    const notRun = classify([...passed(1), ...closing('passed', { passed: 1, failed: 0, skipped: 2 })]);
    expect(notRun.summary).toBe('Kane passed, but step 2, 3 did not run');
    const state = new KaneStreamState();
    state.violation('one');
    state.violation('two');
    const c = classifyKane({ facts: state.result(), process: exited(0), declared, eventCount: 0, evidencePack: null });
    expect(c.summary).toBe("the stream breaks Kane's event order or shape (2 violation(s)): one; two");
  });

  it.each([
    [{ one_liner: 'short', reason: 'long reason' }, 'short'],
    [{ reason: 'long reason' }, 'long reason'],
    [{ verdict: { confirmed: true, family: 'application_issue', one_liner: 'from the verdict' }, one_liner: 'run' }, 'from the verdict'],
    [{ result_code: 740 }, '"Step 2" failed'],
  ])('the product failure headline falls back in order: %j → %s', (run, headline) => {
    const c = classify([
      ...passed(1),
      ...failed(2, { result_code: 740, ...run }),
      ...closing('failed', { passed: 1, failed: 1, skipped: 1 }),
    ]);
    expect(c.summary).toBe(`product failure at step 2: ${headline}`);
  });

  it('a verifier failure and an unattributed one say which steps', () => {
    const v = classify([
      ...passed(1),
      ...failed(2, { reason_code: 'infra_error.browser' }),
      ...closing('failed', { passed: 1, failed: 1, skipped: 1 }),
    ]);
    expect(v).toMatchObject({ status: 'VERIFIER_ERROR', rule: 'verifier-failure' });
    expect(v.summary).toMatch(/^step 2 failed because of the verifier, not the product: /);
    const u = classify([...failed(1), ...passed(2), ...failed(3), ...closing('failed', { passed: 1, failed: 2, skipped: 0 })]);
    expect(u).toMatchObject({ status: 'INCONCLUSIVE', rule: 'unattributed', summary: 'step 1, 3 failed without a verdict that says why' });
  });

  it('a contradiction names itself, with a finding per problem', () => {
    const c = classify([...passed(1), ...passed(2), ...passed(3), ...closing('passed', { passed: 2, failed: 0, skipped: 0 })]);
    expect(c).toMatchObject({
      status: 'INCONCLUSIVE',
      rule: 'contradiction',
      summary: 'Kane contradicts itself: test_md_summary counts 2 passed step(s), the step events show 3',
    });
    expect(c.findings).toEqual([
      { ...finding('inconsistency', 'test_md_summary counts 2 passed step(s), the step events show 3', null, null), sessionId: 'sid' },
    ]);
  });

  it('a pairing problem marks only its step, with the reason as its note', () => {
    const c = classify([
      ...passed(1),
      start(2, 'Another heading'),
      { type: 'run_end', status: 'passed' },
      end(2, 'passed'),
      ...passed(3),
      ...closing('passed', { passed: 3, failed: 0, skipped: 0 }),
    ]);
    expect(c).toMatchObject({ status: 'INCONCLUSIVE', rule: 'pairing' });
    expect(c.summary).toBe(
      'the stream does not match the test file: step 2: Kane reported the heading "Another heading", the test file says "Step 2"',
    );
    expect([...c.stepVerdicts.values()]).toEqual(['passed', 'failed_other', 'passed']);
    expect(c.stepNotes.get(2)).toContain('Another heading');
    expect(c.findings[0]).toMatchObject({ kind: 'inconsistency', step: 2, heading: 'Another heading' });
  });
});
