// One more dispatch after a transient API error: the rule, and the two dispatches added up as one.
import type { AgentOutcome, AgentTokens } from './types.js';

/** A dispatch is tried again only after a transient API error, and only once per attempt (docs/agents.md#endings). */
export const TRANSIENT_RETRIES = 1;

/** Whether `outcome` is worth one more dispatch. */
export function worthRetrying(outcome: AgentOutcome): boolean {
  return outcome.ending?.kind === 'transient-api-error';
}

/** The retry's outcome, with what both dispatches spent and the first one's ending kept as `retriedAfter`. */
export function afterRetry(first: AgentOutcome, second: AgentOutcome): AgentOutcome {
  return {
    ...second,
    durationMs: first.durationMs + second.durationMs,
    costUsd: sum(first.costUsd, second.costUsd),
    turns: sum(first.turns, second.turns),
    tokens: addTokens(first.tokens ?? null, second.tokens ?? null),
    ...(first.ending ? { retriedAfter: first.ending } : {}),
  };
}

/** Adds two cost records field by field; a field neither reported stays null. */
export function addCosts<T extends Record<string, number | null>>(a: T, b: T): T {
  const out: Record<string, number | null> = { ...a };
  for (const key of Object.keys(b)) out[key] = sum(a[key] ?? null, b[key] ?? null);
  return out as T;
}

function addTokens(a: AgentTokens | null, b: AgentTokens | null): AgentTokens | null {
  if (a === null || b === null) return a ?? b;
  return { input: a.input + b.input, output: a.output + b.output };
}

function sum(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}
