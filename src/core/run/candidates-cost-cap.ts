// A best-of run's dollar cap, over every candidate's agent at once: it can fire as soon as one of them
// reports dollars, so it is refused only when none does; the others are named in the run's header.
import { costCapCoverage } from '../../agents/cost-cap.js';
import { loadConfig } from '../../config/load-config.js';
import { PreflightError } from '../../errors.js';
import { findRepoRoot } from '../../git/git.js';
import { planCandidates } from '../best-of/plan.js';

export interface CandidatesCostCapOptions {
  cwd: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  agents?: string[];
  bestOf?: number;
}

/**
 * Before a best-of run starts: throws (exit 3, one line) when no agent its candidates would use reports
 * dollars and a cap is set; returns the header line naming the agents whose spend the cap cannot count,
 * or null. A config or plan it cannot read is left to the run, which reports it in its own order.
 */
export async function candidatesCostCap(options: CandidatesCostCapOptions): Promise<string | null> {
  const root = await findRepoRoot(options.cwd);
  if (root === null) return null;
  const loaded = await loadConfig({ root, file: options.configFile, env: options.env, overrides: options.overrides }).catch(() => null);
  if (loaded === null) return null;
  let plan: ReturnType<typeof planCandidates>;
  try {
    plan = planCandidates(loaded.config, loaded.label, { agents: options.agents, bestOf: options.bestOf });
  } catch {
    return null;
  }
  const agents = plan.map((c) => ({ name: c.agentName, type: c.agent.type }));
  const coverage = costCapCoverage(agents, loaded.config.budget.maxCostUsd, loaded.label);
  if (coverage.refusal) throw new PreflightError('COST_CAP_UNENFORCEABLE', coverage.refusal);
  return coverage.note;
}
