// `agent.type: claude`: Claude Code headless, `claude -p --output-format stream-json`; cost and turns from its result event.
import { buildAgentEnv } from './agent-env.js';
import { elenchosVars } from './command.js';
import { dispatchProcess } from './dispatch.js';
import type { AgentAdapter } from './types.js';

interface ClaudeResultEvent {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  num_turns?: number;
  total_cost_usd?: number;
  result?: string;
}

export const claudeAgent: AgentAdapter = {
  type: 'claude',
  command: (config) => ({
    command: config.command ?? 'claude',
    // The prompt comes on stdin; stream-json needs --verbose in print mode.
    args: ['-p', '--output-format', 'stream-json', '--verbose', ...config.args],
  }),
  async dispatch(context) {
    const { command, args } = this.command(context.config);
    const env = buildAgentEnv({
      baseEnv: context.baseEnv,
      passKeys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'AWS_REGION', 'AWS_PROFILE'],
      passPrefixes: ['CLAUDE_CODE_', 'ANTHROPIC_'],
      extra: context.config.env,
      elenchos: elenchosVars(context),
    });
    let result: ClaudeResultEvent | null = null;
    const { outcome } = await dispatchProcess(context, {
      command,
      args,
      env,
      input: context.prompt,
      onStdoutLine: (line) => {
        const event = parseJsonLine(line);
        if (event?.type === 'result') result = event as unknown as ClaudeResultEvent;
      },
    });
    const final = result as ClaudeResultEvent | null;
    const costUsd = typeof final?.total_cost_usd === 'number' ? final.total_cost_usd : null;
    const turns = typeof final?.num_turns === 'number' ? final.num_turns : null;
    if (!outcome.ok) return { ...outcome, costUsd, turns };
    if (final === null) {
      return { ok: false, reason: 'AGENT_FAILED', message: 'Claude Code ended without a result event (is the command really `claude`?)', exitCode: outcome.exitCode, durationMs: outcome.durationMs, costUsd, turns };
    }
    if (final.is_error) {
      return { ok: false, reason: 'AGENT_FAILED', message: `Claude Code reported an error (${final.subtype ?? 'error'}): ${String(final.result ?? '').slice(0, 300)}`, exitCode: outcome.exitCode, durationMs: outcome.durationMs, costUsd, turns };
    }
    return { ...outcome, costUsd, turns, summary: typeof final.result === 'string' ? final.result.slice(0, 2000) : null };
  },
};

/** Parses one stdout line as a JSON object, or null. */
export function parseJsonLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
