// Which candidates a best-of run starts: one per agent named with --agents, --best-of times each.
import type { Config } from '../../config/config-schema.js';
import { DEFAULT_AGENT_NAME } from '../../config/config-schema.js';
import { InputError } from '../../errors.js';

/** More would only queue: each candidate is a worktree, an app and an agent. */
export const MAX_CANDIDATES = 16;

export interface CandidatePlan {
  /** Its folder under `candidates/` and its label: the agent's name, with `-<n>` when the agent runs more than once. */
  name: string;
  /** `default` (the config's `agent`) or a key of `agents`. */
  agentName: string;
  /** 1-based position in the plan (ELENCHOS_CANDIDATE_INDEX). */
  index: number;
  agent: Config['agent'];
}

export interface PlanOptions {
  agents?: readonly string[];
  bestOf?: number;
}

/** The candidates in the order they start; refuses (exit 3) names the config does not define. */
export function planCandidates(config: Config, configLabel: string, options: PlanOptions): CandidatePlan[] {
  const names = options.agents && options.agents.length > 0 ? [...options.agents] : [DEFAULT_AGENT_NAME];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new InputError(`--agents names "${name}" twice; to run one agent several times use --best-of <n>`);
    seen.add(name);
    if (name !== DEFAULT_AGENT_NAME && !(name in config.agents)) {
      const known = [DEFAULT_AGENT_NAME, ...Object.keys(config.agents)].join(', ');
      throw new InputError(
        `${configLabel}: --agents names "${name}", which agents does not define; add agents.${name}, or pick one of: ${known}`,
      );
    }
  }
  const times = options.bestOf ?? 1;
  if (names.length * times > MAX_CANDIDATES)
    throw new InputError(
      `${names.length * times} candidates (${names.length} agent(s) × --best-of ${times}): at most ${MAX_CANDIDATES}; ask for fewer`,
    );
  if (names.length * times < 2)
    throw new InputError('one candidate is a plain run: name two agents with --agents a,b, or ask for --best-of 2 or more');
  const plan: CandidatePlan[] = [];
  for (const agentName of names) {
    const agent = agentName === DEFAULT_AGENT_NAME ? config.agent : config.agents[agentName]!;
    for (let n = 1; n <= times; n++) {
      plan.push({ name: times > 1 ? `${agentName}-${n}` : agentName, agentName, index: plan.length + 1, agent });
    }
  }
  return plan;
}
