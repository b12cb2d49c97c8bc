// The loop's accounting, as a pure value: repairs used against their bound, verifier retries since the
// last agent turn (they start again after each repair), and what the run ends as once one is exhausted.
import { decideNext } from './decide.js';
import type { AttemptRecord, Terminal } from './run-context.js';

export interface LoopLimits {
  maxRepairAttempts: number;
  maxVerifierRetries: number;
  /** `run` repairs; `verify` never does. */
  repairs: boolean;
}

export interface LoopState {
  repairsUsed: number;
  retriesUsed: number;
  /** What the next attempt is. */
  kind: AttemptRecord['kind'];
}

export type LoopStep = { next: 'finish'; terminal: Terminal } | { next: 'repair' | 'reverify'; state: LoopState };

export function firstState(limits: LoopLimits): LoopState {
  return { repairsUsed: 0, retriesUsed: 0, kind: limits.repairs ? 'agent' : 'verify' };
}

/** What follows an attempt that ended with `status` (and no terminal of its own). */
export function afterAttempt(
  state: LoopState,
  status: AttemptRecord['status'],
  summary: string,
  limits: LoopLimits,
  deterministic = false,
): LoopStep {
  if (status === 'NOT_VERIFIED' || status === 'APP_FAILED')
    return { next: 'finish', terminal: { state: 'ERROR', reason: 'INTERNAL_ERROR', message: 'an attempt ended without a verdict' } };
  const decision = decideNext(
    status,
    {
      repairsUsed: state.repairsUsed,
      maxRepairAttempts: limits.maxRepairAttempts,
      verifierRetriesUsed: state.retriesUsed,
      maxVerifierRetries: limits.maxVerifierRetries,
    },
    { repairs: limits.repairs, deterministic },
  );
  if (decision.next === 'finish') {
    const message =
      decision.state === 'VERIFIED'
        ? null
        : decision.reason === 'PRODUCT_FAILURE'
          ? limits.repairs
            ? `product failure remained after ${state.repairsUsed} repair(s): ${summary}`
            : summary
          : deterministic
            ? `${status}, not re-verified (the same error again is certain): ${summary}`
            : `${status} ${state.retriesUsed + 1} time(s) in a row: ${summary}`;
    return { next: 'finish', terminal: { state: decision.state, reason: decision.reason, message } };
  }
  if (decision.next === 'repair') return { next: 'repair', state: { repairsUsed: state.repairsUsed + 1, retriesUsed: 0, kind: 'agent' } };
  return { next: 'reverify', state: { ...state, retriesUsed: state.retriesUsed + 1, kind: 'reverify' } };
}
