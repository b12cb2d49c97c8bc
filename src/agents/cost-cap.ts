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

/** An agent a run would use: its name (`default` for `agent`, else its key in `agents`) and its type. */
export interface CapAgent {
  name: string;
  type: string;
}

export interface CostCapCoverage {
  /** One line refusing the cap (exit 3): no agent of the run reports dollars, so it could never fire. */
  refusal: string | null;
  /** One line for the run's header: some of its agents report no dollars, and their spend is not counted. */
  note: string | null;
}

/**
 * How far `budget.maxCostUsd` (or --max-cost-usd) reaches over the agents a run would use: refused when
 * none of them reports dollars; when some do, the ones that do not are named (their spend counts for nothing).
 */
export function costCapCoverage(agents: readonly CapAgent[], cap: number | undefined, label: string): CostCapCoverage {
  const unique = [...new Map(agents.map((a) => [a.name, a])).values()];
  const silent = unique.filter((a) => !reportsDollars(a.type));
  if (cap === undefined || silent.length === 0) return { refusal: null, note: null };
  const named = (a: CapAgent) => `${a.name} (agent.type "${a.type}")`;
  if (silent.length < unique.length) {
    const counted = unique.filter((a) => reportsDollars(a.type)).map((a) => a.name);
    return {
      refusal: null,
      note:
        `--max-cost-usd ${cap} counts only the dollars of ${counted.join(', ')}: ` +
        `${silent.map(named).join(', ')} report${silent.length === 1 ? 's' : ''} no dollar cost, and ${silent.length === 1 ? 'its' : 'their'} spend is not counted`,
    };
  }
  const who =
    unique.length === 1
      ? `agent.type "${unique[0]!.type}" reports no dollar cost`
      : `no agent of this run reports a dollar cost (${unique.map(named).join(', ')})`;
  return {
    refusal:
      `${label}: budget.maxCostUsd / --max-cost-usd ${cap} can never fire: ${who}; ` +
      `remove the cap, ${unique.length === 1 ? '' : `run an agent that reports dollars (${[...REPORTS_DOLLARS].join(', ')}), `}or bound the run with --max-minutes (budget.maxMinutes)`,
    note: null,
  };
}

/** The one-line problem with `budget.maxCostUsd` (or --max-cost-usd) for this config's agent (a plain run), or null. */
export function costCapProblem(config: Pick<Config, 'agent' | 'budget'>, label: string): string | null {
  // `default` is DEFAULT_AGENT_NAME, spelled out: config-schema.ts would load zod into `check`'s fast path.
  return costCapCoverage([{ name: 'default', type: config.agent.type }], config.budget.maxCostUsd, label).refusal;
}
