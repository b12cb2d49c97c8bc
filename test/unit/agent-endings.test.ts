// How a Claude Code `result` event is read (SDKResultMessage), and the one retry after a transient API error.
import { describe, expect, it } from 'vitest';
import { claudeEnding, type ClaudeResultEvent } from '../../src/agents/claude-ending.js';
import { describeEnding, transientStatus, transientText, verifiable } from '../../src/agents/ending.js';
import { addCosts, afterRetry, worthRetrying } from '../../src/agents/retry.js';
import type { AgentOutcome } from '../../src/agents/types.js';

const success: ClaudeResultEvent = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  stop_reason: 'end_turn',
  terminal_reason: 'completed',
  num_turns: 4,
  result: 'Done.',
  permission_denials: [],
};
const kind = (patch: Partial<ClaudeResultEvent>, exitCode: number | null = 0) => claudeEnding({ ...success, ...patch }, exitCode).kind;

describe('claudeEnding', () => {
  it('a plain success is finished, with the denied tool calls noted', () => {
    expect(claudeEnding(success, 0)).toEqual({ kind: 'finished', detail: 'success after 4 turn(s)' });
    expect(claudeEnding({ ...success, permission_denials: [{ tool_name: 'Bash' }] }, 0).detail).toContain('1 tool call(s) denied');
  });

  it("the agent's own limits are limit-reached, whatever is_error and the exit code say", () => {
    // error_max_budget_usd arrives with is_error false: it used to be taken for success.
    expect(kind({ subtype: 'error_max_budget_usd', is_error: false })).toBe('limit-reached');
    expect(kind({ subtype: 'error_max_turns', is_error: true }, 1)).toBe('limit-reached');
    expect(kind({ subtype: 'error_max_turns', is_error: false }, 0)).toBe('limit-reached');
    expect(kind({ subtype: 'error_max_structured_output_retries', is_error: true }, 1)).toBe('limit-reached');
    expect(kind({ terminal_reason: 'max_turns' })).toBe('limit-reached');
    expect(kind({ subtype: 'success', is_error: true, terminal_reason: 'prompt_too_long' })).toBe('limit-reached');
    expect(kind({ stop_reason: 'max_tokens' })).toBe('limit-reached');
    expect(claudeEnding({ ...success, subtype: 'error_max_turns', is_error: true }, 1).detail).toBe(
      'error_max_turns, the turn limit (--max-turns) after 4 turn(s)',
    );
  });

  it('a failed API call inside a "success" is a transient API error when a retry may help, a crash when not', () => {
    expect(kind({ is_error: true, api_error_status: 529 })).toBe('transient-api-error');
    expect(kind({ is_error: true, api_error_status: 429 })).toBe('transient-api-error');
    expect(kind({ is_error: true, api_error_status: 500 })).toBe('transient-api-error');
    expect(kind({ is_error: true, terminal_reason: 'api_error' })).toBe('transient-api-error');
    expect(kind({ is_error: true, api_error_status: 401 })).toBe('crashed');
    expect(kind({ is_error: true, api_error_status: 400, terminal_reason: 'api_error' })).toBe('crashed');
  });

  it('a refusal and a hook-stopped turn are refused', () => {
    expect(kind({ stop_reason: 'refusal', result: "I can't help with that." })).toBe('refused');
    expect(kind({ stop_reason: 'tool_use', terminal_reason: 'hook_stopped', result: '' })).toBe('refused');
  });

  it('a dead turn, an execution error, no result or a non-zero exit after "success" is crashed', () => {
    expect(kind({ stop_reason: 'tool_use', terminal_reason: undefined, result: '' })).toBe('crashed');
    expect(kind({ subtype: 'error_during_execution', is_error: true }, 1)).toBe('crashed');
    expect(kind({ is_error: true })).toBe('crashed');
    expect(kind({}, 1)).toBe('crashed');
    expect(claudeEnding(null, 0)).toEqual({ kind: 'crashed', detail: 'no result event' });
    expect(claudeEnding(null, 3)).toEqual({ kind: 'crashed', detail: 'no result event, exit code 3' });
    // A tool_use stop that still said something is not dead.
    expect(kind({ stop_reason: 'tool_use', result: 'Done.' })).toBe('finished');
  });

  it('only a crash leaves nothing to verify', () => {
    expect(verifiable({ kind: 'crashed', detail: '' })).toBe(false);
    for (const k of ['finished', 'limit-reached', 'transient-api-error', 'refused'] as const)
      expect(verifiable({ kind: k, detail: '' })).toBe(true);
    expect(describeEnding({ kind: 'refused', detail: 'stop_reason refusal' })).toBe('refused (stop_reason refusal)');
    expect([408, 429, 500, 503, 529].every(transientStatus)).toBe(true);
    expect([400, 401, 403, 404, 413].some(transientStatus)).toBe(false);
  });

  it('a turn Elenchos cut short (timed out, interrupted) is not verified either', () => {
    expect(verifiable({ kind: 'timed-out', detail: 'killed after agent.timeoutSeconds (30s)' })).toBe(false);
    expect(verifiable({ kind: 'interrupted', detail: 'stopped by an interrupt' })).toBe(false);
  });

  // Codex's failed-turn messages, as codex-rs/core/src/error.rs words them (test/fixtures/bin/codex cites it).
  it('reads a transient API failure from its words: statuses, overload, rate limits, a dropped stream', () => {
    for (const text of [
      'exceeded retry limit, last status: 429 Too Many Requests, request id: req_1',
      'unexpected status 503 Service Unavailable: upstream connect error',
      "We're currently experiencing high demand, which may cause temporary errors.",
      'stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)',
      '[API Error: got status: 503 Service Unavailable. The model is overloaded.]',
      'Rate limit reached for gpt-5 in organization org-1',
    ])
      expect(transientText(text), text).toBe(true);
    for (const text of [
      'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header',
      'unexpected status 400 Bad Request: invalid_request_error',
      "Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
      "You've hit your usage limit. Try again at 3:00 PM.",
      'sandbox error: sandbox denied exec error, exit code: 1',
    ])
      expect(transientText(text), text).toBe(false);
  });
});

describe('the retry after a transient API error', () => {
  const outcome = (patch: Partial<AgentOutcome & { ok: true }>): AgentOutcome => ({
    ok: true,
    exitCode: 0,
    durationMs: 1000,
    costUsd: 0.01,
    turns: 1,
    tokens: { input: 10, output: 2 },
    summary: null,
    ...patch,
  });

  it('is worth it only after a transient API error', () => {
    expect(worthRetrying(outcome({ ending: { kind: 'transient-api-error', detail: 'api_error_status 529' } }))).toBe(true);
    for (const k of ['finished', 'limit-reached', 'refused', 'crashed', 'timed-out', 'interrupted'] as const)
      expect(worthRetrying(outcome({ ending: { kind: k, detail: '' } }))).toBe(false);
    expect(worthRetrying(outcome({}))).toBe(false);
  });

  it('adds up both dispatches and keeps the first ending', () => {
    const first = outcome({ ending: { kind: 'transient-api-error', detail: 'api_error_status 529' } });
    const second = outcome({
      costUsd: 0.04,
      turns: 4,
      durationMs: 3000,
      tokens: { input: 100, output: 20 },
      summary: 'ok',
      ending: { kind: 'finished', detail: 'success' },
    });
    expect(afterRetry(first, second)).toEqual({
      ok: true,
      exitCode: 0,
      durationMs: 4000,
      costUsd: 0.05,
      turns: 5,
      tokens: { input: 110, output: 22 },
      summary: 'ok',
      ending: { kind: 'finished', detail: 'success' },
      retriedAfter: { kind: 'transient-api-error', detail: 'api_error_status 529' },
    });
    expect(afterRetry(outcome({ costUsd: null }), outcome({ costUsd: null })).costUsd).toBeNull();
    expect(addCosts({ a: 1, b: null, c: null }, { a: 2, b: 3, c: null })).toEqual({ a: 3, b: 3, c: null });
  });
});
