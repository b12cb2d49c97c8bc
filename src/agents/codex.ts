// `agent.type: codex`: `codex exec --json -` in the worktree, the prompt on stdin; turns from its events.
import { dispatchAgent } from './dispatch.js';
import type { AgentAdapter } from './types.js';

export const codexAgent: AgentAdapter = {
  type: 'codex',
  command: (config) => ({ command: config.command ?? 'codex', args: ['exec', '--json', ...config.args, '-'] }),
  async dispatch(context) {
    let turns = 0;
    const tokens = { input: 0, output: 0 };
    let failure: string | null = null;
    let lastMessage: string | null = null;
    const { outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
      passPrefixes: ['CODEX_'],
      writableHome: ['.codex'],
      onEvent: (event) => {
        if (event.type === 'turn.completed') {
          turns++;
          const usage = event.usage as { input_tokens?: number; output_tokens?: number } | undefined;
          tokens.input += typeof usage?.input_tokens === 'number' ? usage.input_tokens : 0;
          tokens.output += typeof usage?.output_tokens === 'number' ? usage.output_tokens : 0;
        }
        if (event.type === 'turn.failed' || event.type === 'error') {
          const error = event.error as { message?: string } | undefined;
          failure = String(error?.message ?? event.message ?? event.type);
        }
        const item = event.item as { type?: string; text?: string } | undefined;
        if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') lastMessage = item.text;
      },
    });
    if (!outcome.ok) return { ...outcome, turns, tokens };
    if (failure !== null) {
      return {
        ok: false,
        reason: 'AGENT_FAILED',
        message: `Codex reported a failure: ${String(failure).slice(0, 300)}`,
        exitCode: outcome.exitCode,
        durationMs: outcome.durationMs,
        costUsd: null,
        turns,
        tokens,
      };
    }
    return { ...outcome, turns, tokens, summary: lastMessage };
  },
};
