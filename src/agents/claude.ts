// `agent.type: claude`: Claude Code headless, `claude -p --output-format stream-json`; cost and turns from its result event.
import { dispatchAgent } from './dispatch.js';
import type { AgentAdapter } from './types.js';

interface ClaudeResultEvent {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  num_turns?: number;
  total_cost_usd?: number;
  result?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

export const claudeAgent: AgentAdapter = {
  type: 'claude',
  command: (config) => ({
    command: config.command ?? 'claude',
    // The prompt comes on stdin; stream-json needs --verbose in print mode.
    args: ['-p', '--output-format', 'stream-json', '--verbose', ...config.args],
  }),
  async dispatch(context) {
    let final: ClaudeResultEvent | null = null;
    const { outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['AWS_REGION', 'AWS_PROFILE'],
      passPrefixes: ['CLAUDE_CODE_', 'ANTHROPIC_'],
      writableHome: ['.claude', '.claude.json', '.config/claude'],
      onEvent: (event) => {
        if (event.type === 'result') final = event as unknown as ClaudeResultEvent;
      },
    });
    const result = final as ClaudeResultEvent | null;
    const costUsd = typeof result?.total_cost_usd === 'number' ? result.total_cost_usd : null;
    const turns = typeof result?.num_turns === 'number' ? result.num_turns : null;
    const usage = result?.usage;
    // Cached prompt tokens are input too (billed differently, which total_cost_usd already reflects).
    const tokens = usage
      ? {
          input: (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
          output: usage.output_tokens ?? 0,
        }
      : null;
    if (!outcome.ok) return { ...outcome, costUsd, turns, tokens };
    const failed = (message: string) => ({
      ok: false as const,
      reason: 'AGENT_FAILED' as const,
      message,
      exitCode: outcome.exitCode,
      durationMs: outcome.durationMs,
      costUsd,
      turns,
      tokens,
    });
    if (result === null) return failed('Claude Code ended without a result event (is the command really `claude`?)');
    if (result.is_error)
      return failed(`Claude Code reported an error (${result.subtype ?? 'error'}): ${String(result.result ?? '').slice(0, 300)}`);
    return { ...outcome, costUsd, turns, tokens, summary: typeof result.result === 'string' ? result.result.slice(0, 2000) : null };
  },
};
