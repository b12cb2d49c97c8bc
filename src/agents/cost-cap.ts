// A dollar cap needs an agent that reports dollars: refused up front rather than a cap that never fires.
import type { Config } from '../config/config-schema.js';
import { agentAdapter } from './registry.js';

/** The one-line problem with `budget.maxCostUsd` (or --max-cost-usd) for this config's agent, or null. */
export function costCapProblem(config: Pick<Config, 'agent' | 'budget'>, label: string): string | null {
  const cap = config.budget.maxCostUsd;
  if (cap === undefined || agentAdapter(config.agent.type).reportsCost === true) return null;
  return (
    `${label}: budget.maxCostUsd / --max-cost-usd ${cap} can never fire: agent.type "${config.agent.type}" reports no dollar cost; ` +
    'remove the cap, or bound the run with --max-minutes (budget.maxMinutes)'
  );
}
