// `agent.type: codex`: `codex exec --json -` in the worktree, the prompt on stdin; turns, tokens and ending from its events.
import { dispatchAgent } from './dispatch.js';
import { transientText, verifiable, type AgentEnding } from './ending.js';
import type { AgentAdapter, AgentTokens } from './types.js';
import { modelArgs } from './model-flag.js';

// `turn.completed.usage` (codex-rs/exec/src/exec_events.rs `Usage`): reasoning_output_tokens since
// openai/codex #19308, cache_write_input_tokens in current builds' output (test/fixtures/bin/codex cites where each is from).
interface CodexUsage {
  input_tokens?: number;
  cached_input_tokens?: number;
  cache_write_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
}

export const codexAgent: AgentAdapter = {
  type: 'codex',
  command: (config) => ({ command: config.command ?? 'codex', args: ['exec', '--json', ...modelArgs(config), ...config.args, '-'] }),
  async dispatch(context) {
    let turns = 0;
    let usage: CodexUsage | null = null;
    let failure: string | null = null;
    let lastMessage: string | null = null;
    let reconnects = 0;
    const { result, outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
      passPrefixes: ['CODEX_'],
      writableHome: ['.codex'],
      onEvent: (event) => {
        if (event.type === 'turn.completed') {
          turns++;
          // The totals are the thread's so far, not the turn's: the last one counts, each token once.
          if (typeof event.usage === 'object' && event.usage !== null) usage = event.usage as CodexUsage;
        }
        // Only a failed turn ends the attempt; a top-level `error` ("Reconnecting... 2/5") is Codex retrying,
        // or the same words as the turn.failed that follows.
        if (event.type === 'turn.failed') {
          const error = event.error as { message?: string } | undefined;
          failure = String(error?.message ?? 'turn.failed');
        }
        if (event.type === 'error') reconnects++;
        const item = event.item as { type?: string; text?: string } | undefined;
        if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') lastMessage = item.text;
      },
    });
    const tokens = tokensOf(usage);
    // Codex reports tokens only, never dollars: cost stays unknown.
    const known = { costUsd: null, turns, tokens };
    // Elenchos's own stop comes first: a turn it cut short ends there, whatever Codex said before.
    if (result.timedOut || result.aborted) return { ...outcome, ...known };
    if (failure !== null) {
      const said = String(failure).slice(0, 300);
      const ending = failureEnding(said);
      // As for Claude Code (docs/agents.md#endings): only a crash is AGENT_FAILED; a limit or a transient API
      // error leaves a worktree worth verifying (and a transient error is dispatched once more first).
      if (verifiable(ending))
        return { ok: true, exitCode: outcome.exitCode ?? 0, durationMs: outcome.durationMs, ...known, summary: lastMessage, ending };
      const message = `Codex reported a failure: ${said}`;
      return { ok: false, reason: 'AGENT_FAILED', message, exitCode: outcome.exitCode, durationMs: outcome.durationMs, ...known, ending };
    }
    if (!outcome.ok) return { ...outcome, ...known, ending: { kind: 'crashed', detail: outcome.message } };
    const noted = reconnects > 0 ? `, ${reconnects} stream error(s) Codex recovered from` : '';
    return { ...outcome, ...known, summary: lastMessage, ending: { kind: 'finished', detail: `${turns} turn(s)${noted}` } };
  },
};

/**
 * What a `turn.failed` message means (codex-rs/core/src/error.rs words them): out of context room is the
 * agent's limit; a 429, a 5xx, "high demand" or a stream that broke off after Codex's own retries is a
 * transient API error (the shared rule, ending.ts); anything else (401, a bad request, a sandbox error) is a crash.
 */
function failureEnding(message: string): AgentEnding {
  const detail = `turn.failed: ${message}`;
  if (/context window/i.test(message)) return { kind: 'limit-reached', detail };
  return { kind: transientText(message) ? 'transient-api-error' : 'crashed', detail };
}

/** Input and output as Codex counts them: cached and cache-write tokens are inside input, reasoning inside output. */
function tokensOf(usage: CodexUsage | null): AgentTokens {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  if (usage === null) return { input: 0, output: 0 };
  return {
    input: n(usage.input_tokens),
    output: n(usage.output_tokens),
    cachedInput: n(usage.cached_input_tokens),
    ...(usage.cache_write_input_tokens !== undefined ? { cacheWriteInput: n(usage.cache_write_input_tokens) } : {}),
    reasoningOutput: n(usage.reasoning_output_tokens),
  };
}
