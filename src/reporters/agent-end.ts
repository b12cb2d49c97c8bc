// How an attempt's agent ended and what it cost, read back from attempt.json (`show`, the HTML report).
import { describeEnding, type AgentEnding } from '../agents/ending.js';
import { AGENT_ENDINGS } from '../states.js';

/** Whether any attempt's agent reported dollars (false when none ran: nothing to say either way). */
export function agentReportsDollars(attempts: (Record<string, unknown> | null)[]): boolean {
  const agents = attempts.map((a) => a?.agent as { costUsd?: unknown } | null | undefined).filter((a) => a);
  return agents.length === 0 || agents.some((a) => typeof a!.costUsd === 'number');
}

/** `limit-reached (error_max_turns …), $0.04` from attempt.json's `agent` (untrusted shape); null without an ending. */
export function describeAgentEnd(agent: unknown): string | null {
  if (typeof agent !== 'object' || agent === null) return null;
  const a = agent as { ending?: unknown; retriedAfter?: unknown; costUsd?: unknown };
  const ending = endingOf(a.ending);
  if (!ending) return null;
  const retried = endingOf(a.retriedAfter);
  const cost = typeof a.costUsd === 'number' ? `$${a.costUsd}` : 'cost not reported';
  return `${describeEnding(ending)}${retried ? `, after one retry of ${describeEnding(retried)}` : ''}; ${cost}`;
}

function endingOf(value: unknown): AgentEnding | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kind, detail } = value as { kind?: unknown; detail?: unknown };
  return typeof kind === 'string' && (AGENT_ENDINGS as readonly string[]).includes(kind)
    ? { kind: kind as AgentEnding['kind'], detail: typeof detail === 'string' ? detail : '' }
    : null;
}
