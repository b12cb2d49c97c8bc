// `agent.type: claude`: Claude Code headless, `claude -p --output-format stream-json`; cost, turns and ending from its result event.
import { claudeEnding, type ClaudeResultEvent } from './claude-ending.js';
import { dispatchAgent } from './dispatch.js';
import { describeEnding, verifiable } from './ending.js';
import { modelArgs } from './model-flag.js';
import type { AgentAdapter } from './types.js';

export const claudeAgent: AgentAdapter = {
  type: 'claude',
  command: (config) => ({
    command: config.command ?? 'claude',
    // The prompt comes on stdin; stream-json needs --verbose in print mode.
    args: ['-p', '--output-format', 'stream-json', '--verbose', ...modelArgs(config), ...config.args],
  }),
  async dispatch(context) {
    let final: ClaudeResultEvent | null = null;
    const { result: spawned, outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['AWS_REGION', 'AWS_PROFILE'],
      passPrefixes: ['CLAUDE_CODE_', 'ANTHROPIC_'],
      writableHome: ['.claude', '.claude.json', '.config/claude'],
      onEvent: (event) => {
        if (event.type === 'result') final = event as unknown as ClaudeResultEvent;
      },
    });
    const result = final as ClaudeResultEvent | null;
    // A negative or non-finite figure would lower the run's totals under a cap: such a figure is no report.
    const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
    const costUsd = count(result?.total_cost_usd);
    const turns = count(result?.num_turns);
    const usage = result?.usage;
    // Cached prompt tokens are input too (billed differently, which total_cost_usd already reflects).
    const tokens = usage
      ? {
          input:
            (count(usage.input_tokens) ?? 0) +
            (count(usage.cache_read_input_tokens) ?? 0) +
            (count(usage.cache_creation_input_tokens) ?? 0),
          output: count(usage.output_tokens) ?? 0,
        }
      : null;
    const spent = { costUsd, turns, tokens };
    // Killed (timeout, interrupt) or never started: the process end says it all.
    const exited = spawned.exitCode !== null && !spawned.timedOut && !spawned.aborted && !spawned.spawnError;
    if (!outcome.ok && !exited) return { ...outcome, ...spent };
    const ending = claudeEnding(result, spawned.exitCode);
    if (!verifiable(ending)) {
      const message =
        result === null
          ? `Claude Code ended without a result event (is the command really \`claude\`?)${outcome.ok ? '' : `; ${outcome.message}`}`
          : `Claude Code's turn ${describeEnding(ending)}`;
      return { ok: false, reason: 'AGENT_FAILED', message, exitCode: spawned.exitCode, durationMs: spawned.durationMs, ...spent, ending };
    }
    // Any other end leaves a worktree worth verifying: a turn that hit its limit may have done the work.
    return {
      ok: true,
      exitCode: spawned.exitCode ?? 0,
      durationMs: spawned.durationMs,
      ...spent,
      summary: typeof result?.result === 'string' ? result.result.slice(0, 2000) : null,
      ending,
    };
  },
};
