// Reads Claude Code's final `result` event as the Agent SDK defines it (SDKResultMessage) into an AgentEnding.
import { transientStatus, type AgentEnding } from './ending.js';

/** The fields of Claude Code's `result` event that say how the turn ended (all optional: the CLI's output moves). */
export interface ClaudeResultEvent {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  /** The model's last stop reason: `end_turn`, `max_tokens`, `refusal`, `tool_use`, … */
  stop_reason?: string | null;
  /** Why the loop ended: `completed`, `max_turns`, `api_error`, `prompt_too_long`, `hook_stopped`, … */
  terminal_reason?: string | null;
  /** The HTTP status of a failed API call (a failed call still arrives as `subtype: "success"`). */
  api_error_status?: number | null;
  num_turns?: number;
  total_cost_usd?: number;
  result?: string;
  errors?: unknown[];
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  modelUsage?: Record<string, unknown>;
  permission_denials?: { tool_name?: string }[];
}

// The SDK's error subtypes that mean one of the agent's own limits stopped it, not a fault.
const LIMIT_SUBTYPES: Record<string, string> = {
  error_max_turns: 'the turn limit (--max-turns)',
  error_max_budget_usd: 'its own budget (--max-budget-usd)',
  error_max_structured_output_retries: 'the structured-output retries',
};
const LIMIT_TERMINAL: Record<string, string> = {
  max_turns: 'the turn limit (--max-turns)',
  prompt_too_long: 'the context window (prompt_too_long)',
  blocking_limit: 'the context window (blocking_limit)',
};

/**
 * How the turn ended, from the result event (null: none came) and the exit code. The exit code alone
 * says little: 0 also covers max-turns and hook-blocked stops, and an error result may exit 1.
 */
export function claudeEnding(result: ClaudeResultEvent | null, exitCode: number | null): AgentEnding {
  if (result === null) {
    return { kind: 'crashed', detail: `no result event${exitCode !== null && exitCode !== 0 ? `, exit code ${exitCode}` : ''}` };
  }
  const subtype = result.subtype ?? '';
  const terminal = result.terminal_reason ?? '';
  const stop = result.stop_reason ?? '';
  const turns = typeof result.num_turns === 'number' ? ` after ${result.num_turns} turn(s)` : '';
  const status = typeof result.api_error_status === 'number' ? result.api_error_status : null;
  const text = typeof result.result === 'string' ? result.result.trim() : '';
  const said = text ? `: ${text.slice(0, 200)}` : '';
  if (subtype in LIMIT_SUBTYPES) return { kind: 'limit-reached', detail: `${subtype}, ${LIMIT_SUBTYPES[subtype]}${turns}` };
  if (terminal in LIMIT_TERMINAL)
    return { kind: 'limit-reached', detail: `terminal_reason ${terminal}, ${LIMIT_TERMINAL[terminal]}${turns}` };
  // A failed API call comes as subtype "success" with is_error and the status, or as terminal_reason api_error.
  if (status !== null || terminal === 'api_error') {
    const how = `${status !== null ? `api_error_status ${status}` : 'terminal_reason api_error'}${said}`;
    return { kind: status === null || transientStatus(status) ? 'transient-api-error' : 'crashed', detail: how };
  }
  if (stop === 'refusal') return { kind: 'refused', detail: `stop_reason refusal${said}` };
  if (terminal === 'hook_stopped') return { kind: 'refused', detail: `terminal_reason hook_stopped: a hook stopped the turn${turns}` };
  if (subtype === 'error_during_execution' || result.is_error === true) {
    return { kind: 'crashed', detail: `${subtype || 'is_error'}${said}` };
  }
  if (stop === 'max_tokens') return { kind: 'limit-reached', detail: `stop_reason max_tokens, the output limit${turns}` };
  // A "success" that stopped on a tool call with nothing said is a dead turn, not a finished one.
  if (stop === 'tool_use' && !text) {
    return { kind: 'crashed', detail: `stop_reason tool_use with an empty result${terminal ? `, terminal_reason ${terminal}` : ''}` };
  }
  if (exitCode !== null && exitCode !== 0) return { kind: 'crashed', detail: `exit code ${exitCode} after a ${subtype || 'result'}` };
  const denied = result.permission_denials?.length ?? 0;
  return { kind: 'finished', detail: `${subtype || 'result'}${turns}${denied > 0 ? `, ${denied} tool call(s) denied` : ''}` };
}
