// The attempt loop's accounting (src/core/run/decide.ts): each case is a sequence of attempt outcomes
// and what the loop does after each, up to how the run ends.
import { describe, expect, it } from 'vitest';
import { afterAttempt, firstState, type LoopLimits, type LoopState } from '../../src/core/run/decide.js';
import type { AttemptRecord } from '../../src/core/run/run-context.js';

type Status = AttemptRecord['status'];

/** Plays `statuses` through the accounting; returns the kind of each attempt and how the run ended. */
function play(statuses: Status[], limits: LoopLimits) {
  let state: LoopState = firstState(limits);
  const kinds: string[] = [];
  for (const [i, status] of statuses.entries()) {
    kinds.push(state.kind);
    const step = afterAttempt(state, status, `s${i + 1}`, limits);
    if (step.next === 'finish') return { kinds, end: step.terminal, played: i + 1 };
    state = step.state;
  }
  return { kinds, end: null, played: statuses.length, state };
}

const run = (maxRepairAttempts: number, maxVerifierRetries: number): LoopLimits => ({
  maxRepairAttempts,
  maxVerifierRetries,
  repairs: true,
});
const verify = (maxVerifierRetries: number): LoopLimits => ({ maxRepairAttempts: 3, maxVerifierRetries, repairs: false });

describe('the attempt loop accounting', () => {
  it('a first PASS is VERIFIED, with no message', () => {
    expect(play(['PASS'], run(2, 1))).toMatchObject({ kinds: ['agent'], end: { state: 'VERIFIED', reason: null, message: null } });
  });

  it('FAIL is repaired while repairs last, then FAILED naming how many were used', () => {
    expect(play(['FAIL', 'FAIL', 'FAIL'], run(2, 1))).toMatchObject({
      kinds: ['agent', 'agent', 'agent'],
      end: { state: 'FAILED', reason: 'PRODUCT_FAILURE', message: 'product failure remained after 2 repair(s): s3' },
    });
    expect(play(['FAIL', 'PASS'], run(1, 0))).toMatchObject({ kinds: ['agent', 'agent'], end: { state: 'VERIFIED' } });
  });

  it('with no repairs allowed, the first FAIL ends the run', () => {
    expect(play(['FAIL'], run(0, 1))).toMatchObject({
      played: 1,
      end: { state: 'FAILED', message: 'product failure remained after 0 repair(s): s1' },
    });
  });

  it('verifier trouble re-verifies without charging a repair, and an exhausted retry ends as that trouble', () => {
    expect(play(['VERIFIER_ERROR', 'PASS'], run(0, 1))).toMatchObject({ kinds: ['agent', 'reverify'], end: { state: 'VERIFIED' } });
    expect(play(['INCONCLUSIVE', 'INCONCLUSIVE'], run(2, 1))).toMatchObject({
      kinds: ['agent', 'reverify'],
      end: { state: 'ERROR', reason: 'INCONCLUSIVE', message: 'INCONCLUSIVE 2 time(s) in a row: s2' },
    });
    expect(play(['VERIFIER_ERROR'], run(2, 0))).toMatchObject({
      end: { state: 'ERROR', reason: 'VERIFIER_ERROR', message: 'VERIFIER_ERROR 1 time(s) in a row: s1' },
    });
  });

  it('verifier retries start again after each repair', () => {
    const { kinds, end } = play(['VERIFIER_ERROR', 'FAIL', 'VERIFIER_ERROR', 'FAIL', 'PASS'], run(2, 1));
    expect(kinds).toEqual(['agent', 'reverify', 'agent', 'reverify', 'agent']);
    expect(end).toMatchObject({ state: 'VERIFIED' });
  });

  it('a FAIL after a re-verify is a repair, counted once', () => {
    expect(play(['VERIFIER_ERROR', 'FAIL', 'FAIL'], run(1, 1))).toMatchObject({
      kinds: ['agent', 'reverify', 'agent'],
      end: { state: 'FAILED', message: 'product failure remained after 1 repair(s): s3' },
    });
  });

  it('verify never repairs: a FAIL ends FAILED with the verifier summary alone', () => {
    expect(play(['FAIL'], verify(2))).toMatchObject({
      kinds: ['verify'],
      end: { state: 'FAILED', reason: 'PRODUCT_FAILURE', message: 's1' },
    });
    expect(play(['VERIFIER_ERROR', 'VERIFIER_ERROR', 'PASS'], verify(2))).toMatchObject({
      kinds: ['verify', 'reverify', 'reverify'],
      end: { state: 'VERIFIED' },
    });
  });

  it('an attempt that ended without a verdict ends the run as an internal error', () => {
    for (const status of ['NOT_VERIFIED', 'APP_FAILED'] as const)
      expect(play([status], run(2, 1)).end).toEqual({
        state: 'ERROR',
        reason: 'INTERNAL_ERROR',
        message: 'an attempt ended without a verdict',
      });
  });
});
