// `agent.type: codex`: `codex exec --json -` in the worktree, the prompt on stdin; turns, tokens and ending from its events.
import { dispatchAgent } from './dispatch.js';
import type { AgentEnding } from './ending.js';
import type { AgentAdapter, AgentTokens } from './types.js';
import { modelArgs } from './model-flag.js';

// `turn.completed.usage` (codex-rs/exec/src/exec_events.rs `Usage`, newer builds add the last two).
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
    const { outcome } = await dispatchAgent(context, {
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
        // Only a failed turn ends the attempt; a top-level `error` ("Reconnecting... 2/5") is Codex retrying.
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
    const noted = reconnects > 0 ? `, ${reconnects} stream error(s) Codex recovered from` : '';
    if (failure !== null) {
      const ending: AgentEnding = { kind: 'crashed', detail: `turn.failed: ${String(failure).slice(0, 300)}` };
      return {
        ok: false,
        reason: 'AGENT_FAILED',
        message: `Codex reported a failure: ${String(failure).slice(0, 300)}`,
        exitCode: outcome.exitCode,
        durationMs: outcome.durationMs,
        costUsd: null,
        turns,
        tokens,
        ending,
      };
    }
    if (!outcome.ok) {
      const crashed = outcome.reason === 'AGENT_FAILED';
      return { ...outcome, turns, tokens, ...(crashed ? { ending: { kind: 'crashed' as const, detail: outcome.message } } : {}) };
    }
    return { ...outcome, turns, tokens, summary: lastMessage, ending: { kind: 'finished', detail: `${turns} turn(s)${noted}` } };
  },
};

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
