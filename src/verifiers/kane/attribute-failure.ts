// Who is to blame for one failed step: the product, the verifier, or nobody can tell.
// Kane's fields disagree in the wild (t7: reason text "agent is stuck" on a confirmed product bug),
// so the order below is the decision; docs/kane.md shows it as a table.
import type { Verdict } from '../types.js';
import { mergeVerdicts } from './kane-values.js';
import type { StepFacts } from './stream-state.js';

export type Attribution = 'product' | 'verifier' | 'unattributed';

export interface AttributedFailure {
  attribution: Attribution;
  /** Which rule decided, for people and for the docs table. */
  rule: string;
  /** The step's verdict: `run_end.verdict` merged with `test_md_bug_verdict`. */
  verdict: Verdict | null;
}

const PRODUCT_BUG_CODE = 740;
const STUCK_CODE = 330;
const INFRA_CODES = new Set([510]);

/** Applies the attribution rules, first match wins. */
export function attributeFailure(step: StepFacts): AttributedFailure {
  const verdict = mergeVerdicts(step.runVerdict, step.bugVerdict);
  const code = step.reasonCode ?? '';
  const decide = (attribution: Attribution, rule: string): AttributedFailure => ({ attribution, rule, verdict });
  // The browser or Kane's plumbing broke: nothing the step observed can be trusted, whatever triage said.
  if (code.startsWith('infra_error.') || (step.resultCode !== null && INFRA_CODES.has(step.resultCode))) {
    return decide('verifier', `infrastructure error (${step.reasonCode ?? step.resultCode})`);
  }
  // Family before confirmed: triage that blames the automation is never a product failure.
  if (verdict?.family === 'automation_bug') return decide('verifier', 'verdict family automation_bug');
  if (verdict?.confirmed === true) return decide('product', 'verdict confirmed');
  if (step.resultCode === PRODUCT_BUG_CODE || code === 'assertion_error.confirmed_product_bug') {
    return decide('product', `result_code ${PRODUCT_BUG_CODE} (confirmed product bug)`);
  }
  // The agent could not act; an unconfirmed suspicion about the app does not outweigh that.
  if (code.startsWith('stuck.') || code.startsWith('agent_error.') || step.resultCode === STUCK_CODE) {
    return decide('verifier', `the agent could not proceed (${step.reasonCode ?? step.resultCode})`);
  }
  // Downgraded verdicts (citations not verified) still attribute the failure to the app.
  if (verdict?.family === 'application_issue') return decide('product', 'verdict family application_issue (not confirmed)');
  return decide(
    'unattributed',
    verdict ? `verdict without attribution (family ${verdict.family ?? 'none'})` : 'no verdict and no attributing code',
  );
}
