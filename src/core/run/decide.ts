// The decision after each verified attempt (SPEC §3 step 4.10), as a pure function.
import type { FinalRunState, VerdictEndReason, VerdictStatus } from '../../states.js';

export interface Budget {
  repairsUsed: number;
  maxRepairAttempts: number;
  /** Re-verifications used since the last agent dispatch. */
  verifierRetriesUsed: number;
  maxVerifierRetries: number;
}

export type Decision =
  { next: 'finish'; state: FinalRunState; reason: VerdictEndReason | null } | { next: 'repair' } | { next: 'reverify' };

export interface DecideOptions {
  repairs: boolean;
  /** The verifier said the same error again is certain (a test that goes to a fixed host): no re-verification. */
  deterministic?: boolean;
}

/**
 * PASS ends VERIFIED; FAIL repairs while the budget lasts; verifier trouble re-verifies without charging
 * repairs, unless a retry is certain to end the same.
 */
export function decideNext(status: VerdictStatus, budget: Budget, options: DecideOptions = { repairs: true }): Decision {
  switch (status) {
    case 'PASS':
      return { next: 'finish', state: 'VERIFIED', reason: null };
    case 'FAIL':
      return options.repairs && budget.repairsUsed < budget.maxRepairAttempts
        ? { next: 'repair' }
        : { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' };
    case 'VERIFIER_ERROR':
    case 'INCONCLUSIVE':
      return budget.verifierRetriesUsed < budget.maxVerifierRetries && options.deterministic !== true
        ? { next: 'reverify' }
        : { next: 'finish', state: 'ERROR', reason: status };
  }
}
