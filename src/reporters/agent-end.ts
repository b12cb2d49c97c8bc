// How an attempt's agent ended and what it cost, read back from attempt.json (`show`, the HTML report).
import * as z from 'zod';
import { describeEnding } from '../agents/ending.js';
import { AGENT_ENDINGS } from '../states.js';

/** Whether any attempt's agent reported dollars (false when none ran: nothing to say either way). */
export function agentReportsDollars(attempts: readonly ({ agent: { costUsd?: number | null } | null } | null)[]): boolean {
  const agents = attempts.flatMap((a) => (a?.agent ? [a.agent] : []));
  return agents.length === 0 || agents.some((a) => typeof a.costUsd === 'number');
}

// Read leniently: an ending this version does not know (a newer record, a hand edit) is no ending, and
// words that are not text are no words; neither hides the rest of the attempt.
const EndingSchema = z.object({ kind: z.enum(AGENT_ENDINGS), detail: z.string().catch('') });
const AgentEndSchema = z.object({
  ending: EndingSchema,
  retriedAfter: EndingSchema.nullable().catch(null).optional(),
  costUsd: z.number().nullable().catch(null).optional(),
});

/** `limit-reached (error_max_turns …), $0.04` from attempt.json's `agent` (untrusted shape); null without an ending. */
export function describeAgentEnd(agent: unknown): string | null {
  const parsed = AgentEndSchema.safeParse(agent);
  if (!parsed.success) return null;
  const { ending, retriedAfter, costUsd } = parsed.data;
  const cost = typeof costUsd === 'number' ? `$${costUsd}` : 'cost not reported';
  return `${describeEnding(ending)}${retriedAfter ? `, after one retry of ${describeEnding(retriedAfter)}` : ''}; ${cost}`;
}
