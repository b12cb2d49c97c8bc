// Why an agent's turn stopped, in words shared by every adapter (attempt.json `agent.ending`, `show`);
// the words themselves are AGENT_ENDINGS in src/states.ts.
import type { AgentEndingKind } from '../states.js';

/** The ending and the agent's own words for it (`error_max_turns`, `api_error_status 529`). */
export type AgentEnding = {
  kind: AgentEndingKind;
  detail: string;
};

/**
 * Whether the worktree the agent left is worth verifying: all but a crash (a limit may come after the work),
 * and but a turn Elenchos itself cut short (timed out, interrupted: the run ends there).
 */
export function verifiable(ending: AgentEnding): boolean {
  return ending.kind !== 'crashed' && ending.kind !== 'timed-out' && ending.kind !== 'interrupted';
}

/** HTTP statuses of a model API that a second try may get past: rate limit, server errors, overloaded (529). */
export function transientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Whether an API failure told only in words (an agent's stderr or error message) is one a second try may get
 * past: a transient HTTP status named as such, the words APIs use for overload and rate limits, or a
 * response stream that broke off (Codex: "stream disconnected before completion", once its own retries
 * are used up; "We're currently experiencing high demand", its 5xx).
 */
export function transientText(text: string): boolean {
  const status = /\b(?:status(?:Code)?|code|HTTP)\W{0,3}(\d{3})\b/i.exec(text);
  if (status && transientStatus(Number(status[1]))) return true;
  return /\b(overloaded|rate.?limit(ed)?|too many requests|service unavailable|high demand|stream disconnected|RESOURCE_EXHAUSTED|UNAVAILABLE|DEADLINE_EXCEEDED)\b/i.test(
    text,
  );
}

/** One line for `show` and the progress output: `limit-reached (error_max_turns after 30 turns)`. */
export function describeEnding(ending: AgentEnding): string {
  return ending.detail ? `${ending.kind} (${ending.detail})` : ending.kind;
}
