// The one rule every verifier uses to turn per-criterion results plus its own trouble into the
// attempt's status: a confirmed product failure wins over trouble elsewhere, unless the report itself
// cannot be trusted.
import type { CriterionResult } from '../contract/criteria-map.js';
import type { TroubleStatus, VerdictStatus } from '../states.js';

/**
 * What went wrong besides the product, as the verifier saw it.
 * - `run`: the report as a whole is unusable or untrustworthy (could not start, killed, interrupted,
 *   cut off, contradicts itself or the test file). Nothing in it may steer the agent, so it decides
 *   the attempt even when a criterion looks FAIL: a forged or garbled report must not be able to
 *   write the next repair prompt.
 * - `test`: one test/step could not be judged (it timed out on something that is not the product,
 *   passed only on retry, failed without a verdict). The other tests' results still stand.
 */
export interface Trouble {
  scope: 'run' | 'test';
  status: TroubleStatus;
  summary: string;
}

/** The verifier's own words for each outcome (a FAIL's gets "; could not be judged: …" appended). */
export interface Summaries {
  fail: string;
  pass: string;
  unverified: (ids: string[]) => string;
}

export interface AttemptDecision {
  status: VerdictStatus;
  summary: string;
  /** Criteria confirmed FAIL. */
  failed: string[];
  /** Criteria neither PASS nor FAIL. */
  unjudged: string[];
}

/**
 * The attempt status (docs/verification.md), shared by every verifier, first match wins: run-level trouble; a criterion confirmed FAIL
 * (→ FAIL, repairable, naming the criteria that could not be judged); test-level trouble; a criterion
 * not PASS (→ INCONCLUSIVE); PASS. `troubles` are in the verifier's own order of precedence.
 * A failure that names no criterion never makes a FAIL: FAIL always has a failed criterion.
 */
export function decideAttemptStatus(
  criteria: readonly CriterionResult[],
  troubles: readonly Trouble[],
  summaries: Summaries,
): AttemptDecision {
  const failed = criteria.filter((c) => c.status === 'FAIL').map((c) => c.id);
  const unjudged = criteria.filter((c) => c.status !== 'PASS' && c.status !== 'FAIL').map((c) => c.id);
  const decision = (status: VerdictStatus, summary: string): AttemptDecision => ({ status, summary, failed, unjudged });
  const run = troubles.find((t) => t.scope === 'run');
  if (run) return decision(run.status, run.summary);
  if (failed.length > 0) {
    const notJudged = unjudged.length > 0 ? `; could not be judged: ${unjudged.join(', ')}` : '';
    return decision('FAIL', `${summaries.fail}${notJudged}`);
  }
  const test = troubles.find((t) => t.scope === 'test');
  if (test) return decision(test.status, test.summary);
  if (unjudged.length > 0) return decision('INCONCLUSIVE', summaries.unverified(unjudged));
  return decision('PASS', summaries.pass);
}
