// A dollar cap needs an agent that reports dollars: refused up front rather than a cap that never fires.
// Kept apart from the adapters (and their spawn helper) so that `check` can ask without loading them.
import type { Config } from '../config/config-schema.js';

/**
 * The `agent.type`s whose output carries a dollar cost (Claude Code's `total_cost_usd`, OpenCode's
 * `step_finish.cost`). Codex and Gemini CLI report tokens only, a `command` agent nothing. An adapter that reads dollars adds its type here.
 */
const REPORTS_DOLLARS: ReadonlySet<string> = new Set(['claude', 'opencode']);

/** Whether `type`'s adapter can report what a dispatch cost in dollars. */
export function reportsDollars(type: string): boolean {
  return REPORTS_DOLLARS.has(type);
}

/** The one-line problem with `budget.maxCostUsd` (or --max-cost-usd) for this config's agent, or null. */
export function costCapProblem(config: Pick<Config, 'agent' | 'budget'>, label: string): string | null {
  const cap = config.budget.maxCostUsd;
  if (cap === undefined || reportsDollars(config.agent.type)) return null;
  return (
    `${label}: budget.maxCostUsd / --max-cost-usd ${cap} can never fire: agent.type "${config.agent.type}" reports no dollar cost; ` +
    'remove the cap, or bound the run with --max-minutes (budget.maxMinutes)'
  );
}
