// The run's decision after each verified attempt, as a table (SPEC §3 step 4.10).
import { describe, expect, it } from 'vitest';
import { decideNext, exitCodeFor, type Decision, type LoopLimits, type LoopState } from '../../src/core/run/decide.js';
import type { RunReason, RunState, VerdictStatus } from '../../src/states.js';

/** Repairs used of their bound, verifier retries used of theirs. */
type Used = { state: LoopState; limits: Omit<LoopLimits, 'repairs'> };
const budget = (repairsUsed: number, maxRepairAttempts: number, retriesUsed: number, maxVerifierRetries: number): Used => ({
  state: { repairsUsed, retriesUsed, kind: 'agent' },
  limits: { maxRepairAttempts, maxVerifierRetries },
});

describe('decideNext', () => {
  const table: [VerdictStatus, Used, boolean, Decision][] = [
    ['PASS', budget(0, 2, 0, 1), true, { next: 'finish', state: 'VERIFIED', reason: null }],
    ['PASS', budget(2, 2, 1, 1), false, { next: 'finish', state: 'VERIFIED', reason: null }],
    ['FAIL', budget(0, 2, 0, 1), true, { next: 'repair' }],
    ['FAIL', budget(1, 2, 0, 1), true, { next: 'repair' }],
    ['FAIL', budget(2, 2, 0, 1), true, { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' }],
    ['FAIL', budget(3, 2, 0, 1), true, { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' }],
    ['FAIL', budget(0, 0, 0, 1), true, { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' }],
    // verify mode: no agent, so no repair however large the budget.
    ['FAIL', budget(0, 2, 0, 1), false, { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' }],
    ['VERIFIER_ERROR', budget(0, 2, 0, 1), true, { next: 'reverify' }],
    ['VERIFIER_ERROR', budget(0, 2, 1, 1), true, { next: 'finish', state: 'ERROR', reason: 'VERIFIER_ERROR' }],
    ['VERIFIER_ERROR', budget(0, 2, 2, 1), false, { next: 'finish', state: 'ERROR', reason: 'VERIFIER_ERROR' }],
    ['VERIFIER_ERROR', budget(0, 2, 0, 0), true, { next: 'finish', state: 'ERROR', reason: 'VERIFIER_ERROR' }],
    ['INCONCLUSIVE', budget(0, 2, 0, 2), true, { next: 'reverify' }],
    ['INCONCLUSIVE', budget(0, 2, 1, 2), false, { next: 'reverify' }],
    ['INCONCLUSIVE', budget(0, 2, 2, 2), true, { next: 'finish', state: 'ERROR', reason: 'INCONCLUSIVE' }],
    // Verifier trouble never spends the agent's repairs, even when they are used up.
    ['INCONCLUSIVE', budget(2, 2, 0, 1), true, { next: 'reverify' }],
  ];
  it.each(table)('%s with %j (repairs %s) → %j', (status, b, repairs, decision) => {
    expect(decideNext(status, b.state, { ...b.limits, repairs })).toEqual(decision);
  });

  it('a run repairs', () => {
    const b = budget(0, 1, 0, 0);
    expect(decideNext('FAIL', b.state, { ...b.limits, repairs: true })).toEqual({ next: 'repair' });
  });
});

describe('exitCodeFor', () => {
  // VERIFIED 0, FAILED 1, anything else 2; an interrupted run is 130 whatever state it reached.
  it.each<[string, string | null, number]>([
    ['VERIFIED', null, 0],
    ['FAILED', 'PRODUCT_FAILURE', 1],
    ['FAILED', 'REPAIR_UNCHANGED', 1],
    ['ERROR', 'INCONCLUSIVE', 2],
    ['ERROR', 'VERIFIER_ERROR', 2],
    ['ERROR', null, 2],
    ['NEEDS_HUMAN', null, 2],
    ['', null, 2],
    ['ERROR', 'INTERRUPTED', 130],
    ['VERIFIED', 'INTERRUPTED', 130],
    ['FAILED', 'INTERRUPTED', 130],
  ])('%s / %s → %i', (state, reason, code) => {
    // States outside RUN_STATES stand for a record no schema vouches for: still ERROR (2), never 0 or 1.
    expect(exitCodeFor(state as RunState, reason as RunReason | null)).toBe(code);
  });
});
