// The stream checks on their own: every problem they name, word for word.
import { describe, expect, it } from 'vitest';
import { checkCounts, checkPairing, falseGreen } from '../../src/verifiers/kane/stream-checks.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';

const declared = [1, 2, 3].map((index) => ({ index, heading: `Step ${index}`, optional: index === 3 }));
type Event = Record<string, unknown>;
const start = (i: number, heading = `Step ${i}`): Event => ({ type: 'test_md_step_start', step_index: i, heading });
const end = (i: number, status: string): Event => ({ type: 'test_md_step_end', step_index: i, status });
const summary = (overall: unknown, steps: Event, cancelled = false): Event => ({
  type: 'test_md_summary',
  overall_status: overall,
  steps,
  cancelled,
});
const done = (overall?: unknown): Event => ({ type: 'test_md_done', ...(overall === undefined ? {} : { overall_status: overall }) });

function facts(events: Event[]) {
  const s = new KaneStreamState();
  for (const e of events) s.feed(e);
  return s.result();
}
const messages = (list: { message: string }[]) => list.map((p) => p.message);

describe('checkPairing', () => {
  it('compares headings with runs of whitespace folded and ends trimmed', () => {
    expect(checkPairing(facts([start(1, '  Step\t 1 '), start(2, 'Step  2')]), declared)).toEqual([]);
    expect(messages(checkPairing(facts([start(1, 'Step1')]), declared))).toEqual([
      'step 1: Kane reported the heading "Step1", the test file says "Step 1"',
    ]);
  });

  it('names a step beyond the file, two headings for one step, a step with another heading', () => {
    const problems = checkPairing(facts([start(4), start(1), start(1, 'Other'), start(2, 'Else')]), declared);
    expect(problems).toEqual([
      { kind: 'pairing', step: 4, message: 'Kane reported step 4, but the test file has 3 step(s)' },
      { kind: 'pairing', step: 1, message: 'Kane reported two different headings for step 1' },
      { kind: 'pairing', step: 2, message: 'step 2: Kane reported the heading "Else", the test file says "Step 2"' },
    ]);
  });

  it('a step Kane ended without naming a heading is not a mismatch', () => {
    expect(checkPairing(facts([end(2, 'passed')]), declared)).toEqual([]);
  });
});

describe('checkCounts', () => {
  const ran = [start(1), end(1, 'passed'), start(2), end(2, 'failed')];
  it('accepts counts that agree', () => {
    expect(
      checkCounts(facts([...ran, summary('failed', { total: 3, passed: 1, failed: 1, skipped: 1 }), done('failed')]), declared),
    ).toEqual([]);
  });

  it.each([
    [[...ran, done('failed')], ['the stream has test_md_done but no test_md_summary']],
    [[...ran, summary('passed', {}), done('failed')], ['test_md_summary says passed, test_md_done says failed']],
    [
      [...ran, summary('failed', { passed: 2, failed: 0, skipped: 0, total: 4 }), done('failed')],
      [
        'test_md_summary counts 2 passed step(s), the step events show 1',
        'test_md_summary counts 0 failed step(s), the step events show 1',
        'test_md_summary counts 0 skipped step(s), but 1 step(s) of the test file never ended',
        'test_md_summary counts 4 step(s), the test file has 3',
      ],
    ],
    [[start(1), end(1, 'passed'), summary('failed', {}), done('failed')], ['Kane says the test failed, but no step failed']],
    [[start(1), end(1, 'passed'), summary('maybe', {}), done()], ['unknown overall_status "maybe"']],
    [[start(1), end(1, 'passed'), summary(null, {}), done()], ['test_md_done carries no overall_status (nor does test_md_summary)']],
    [
      [start(1), end(1, 'passed'), end(1, 'failed'), summary('failed', {}), done('failed')],
      ['step 1 was reported as ended 2 times with different statuses'],
    ],
  ])('%#: names what disagrees', (events, expected) => {
    expect(messages(checkCounts(facts(events), declared))).toEqual(expected);
  });

  it('a cancelled run may fail with no failed step; null counts are not compared; done may lack what the summary says', () => {
    expect(checkCounts(facts([start(1), end(1, 'passed'), summary('failed', { passed: null }, true), done('failed')]), declared)).toEqual(
      [],
    );
    expect(checkCounts(facts([start(1), end(1, 'passed'), summary('passed', {}), done()]), declared)).toEqual([]);
    expect(checkCounts(facts([start(1), end(1, 'passed'), summary(null, {}), done('passed')]), declared)).toEqual([]);
  });

  it('a done without a summary: both problems named, none of them a crash', () => {
    expect(messages(checkCounts(facts([start(1), end(1, 'passed'), done('failed')]), declared))).toEqual([
      'the stream has test_md_done but no test_md_summary',
      'Kane says the test failed, but no step failed',
    ]);
    expect(falseGreen(facts([start(1), end(1, 'failed'), done()]), declared)).toBeNull();
  });

  it('every problem is a contradiction, the step-level one with its step', () => {
    const [problem] = checkCounts(facts([start(1), end(1, 'passed'), end(1, 'failed'), summary('failed', {}), done('failed')]), declared);
    expect(problem).toEqual({ kind: 'contradiction', step: 1, message: 'step 1 was reported as ended 2 times with different statuses' });
  });
});

describe('falseGreen (kane-cli #93)', () => {
  it('passed overall with failed non-optional steps', () => {
    const f = facts([
      start(1),
      end(1, 'failed'),
      start(2),
      end(2, 'failed'),
      start(3),
      end(3, 'failed'),
      summary('failed', {}),
      done('passed'),
    ]);
    expect(falseGreen(f, declared)).toEqual({
      kind: 'contradiction',
      step: 1,
      message: 'Kane says passed, but 2 step(s) failed (step 1, 2) (kane-cli issue #93)',
    });
  });

  it('uses the summary when done says nothing; ignores a failed optional step; nothing when not passed', () => {
    expect(falseGreen(facts([start(2), end(2, 'failed'), summary('passed', {})]), declared)?.step).toBe(2);
    expect(falseGreen(facts([start(3), end(3, 'failed'), summary('passed', {}), done('passed')]), declared)).toBeNull();
    expect(falseGreen(facts([start(1), end(1, 'failed'), summary('failed', {}), done('failed')]), declared)).toBeNull();
    expect(falseGreen(facts([start(1), end(1, 'passed'), summary('passed', {}), done('passed')]), declared)).toBeNull();
    expect(falseGreen(facts([start(5), end(5, 'failed'), done('passed')]), declared)?.message).toContain('step 5');
  });
});
