// Before anything runs: which guards are already known not to stand (no process table that sees other
// processes, a required sandbox that is off), so the run says so at once, and ends at once when the verdict
// needs them, before an agent spends anything on work that could never be VERIFIED.
import type { AttemptGuards } from '../../evidence/guards-record.js';
import { readProcessTable } from '../../process/process-table.js';
import type { BlindGuard } from '../events.js';
import { withScan, type GuardPlan } from './guards-stood.js';

export interface GuardsAtStart {
  /** What was seen: the sandbox as planned, the process table as it reads now. */
  guards: AttemptGuards;
  /** Guards that cannot stand, each with why and whether the verdict needs it. */
  blind: BlindGuard[];
}

/** Looks at what can be known before the run: the process table (as the scans will ask it) and the sandbox. */
export function lookAtStart(plan: GuardPlan, ownWorktree: boolean): GuardsAtStart {
  // As the scans after the agent and after verification will ask: tags always, held directories in a worktree of ours.
  const table = readProcessTable({ environment: true, directories: ownWorktree });
  const processScan = withScan(undefined, 'start', table);
  const blind: BlindGuard[] = [];
  if (!processScan.stood)
    blind.push({ guard: 'processScan', why: processScan.why ?? table.why, required: plan.required.includes('processScan') });
  if (!plan.sandbox.stood && plan.required.includes('sandbox'))
    blind.push({ guard: 'sandbox', why: plan.sandbox.why ?? plan.sandbox.how, required: true });
  return { guards: { sandbox: plan.sandbox, processScan }, blind };
}
