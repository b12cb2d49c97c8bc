// `agent.type: gemini`: Gemini CLI headless, `gemini -p … --output-format stream-json`; tokens and the ending from its result event and exit code.
import { lastLines } from '../util/text.js';
import { dispatchAgent } from './dispatch.js';
import { describeEnding, transientText, verifiable, type AgentEnding } from './ending.js';
import type { AgentAdapter, AgentOutcome, AgentTokens } from './types.js';
import { modelArgs } from './model-flag.js';

/**
 * Gemini CLI reads piped stdin and puts it before the `-p` text (gemini.tsx: `${stdinData}\n\n${input}`),
 * so the prompt goes on stdin (no argv size limit) and `-p` only switches to headless mode and closes it.
 */
export const GEMINI_PROMPT_ARG = 'Carry out the task described above.';

/** Exit codes documented in docs/cli/headless.md ("Exit codes"); the rest is "general error or API failure". */
const EXIT_MEANINGS: Record<number, string> = {
  42: 'refused its input (exit 42: invalid prompt or arguments; check agent.args)',
  53: 'stopped at its turn limit (exit 53: maxSessionTurns in its settings.json)',
};

/** packages/core/src/output/types.ts: `StreamStats` of the `result` event. */
interface GeminiStats {
  total_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  cached?: number;
  input?: number;
  duration_ms?: number;
  tool_calls?: number;
}

interface GeminiResultEvent {
  type: 'result';
  status?: 'success' | 'error';
  error?: { type?: string; message?: string };
  stats?: GeminiStats;
}

export const geminiAgent: AgentAdapter = {
  type: 'gemini',
  command: (config) => ({
    command: config.command ?? 'gemini',
    args: ['--output-format', 'stream-json', ...modelArgs(config), ...config.args, '-p', GEMINI_PROMPT_ARG],
  }),
  async dispatch(context) {
    let final: GeminiResultEvent | null = null;
    let answer = '';
    let turnLimit = false;
    const { result, outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA'],
      passPrefixes: ['GEMINI_'],
      writableHome: ['.gemini'],
      onEvent: (event) => {
        if (event.type === 'result') final = event as unknown as GeminiResultEvent;
        if (event.type === 'message' && event.role === 'assistant' && typeof event.content === 'string') {
          // Assistant text arrives as deltas; a non-delta message starts the answer over.
          answer = event.delta === true ? answer + event.content : event.content;
        }
        // nonInteractiveCli.ts: an unconfigured turn cap ends with this error event, then a *success* result and exit 0.
        if (event.type === 'error' && typeof event.message === 'string' && /maximum session turns/i.test(event.message)) turnLimit = true;
      },
    });
    const resultEvent = final as GeminiResultEvent | null;
    const tokens = tokensOf(resultEvent?.stats);
    // Gemini CLI reports tokens only, never dollars: cost stays unknown.
    const known = { costUsd: null, turns: null, tokens };
    const summary = answer ? answer.slice(-2000) : null;
    // As for Claude Code (docs/agents.md#endings): only a crash is AGENT_FAILED; a limit or a transient API
    // error leaves a worktree worth verifying (and a transient error is dispatched once more first).
    const end = (ending: AgentEnding, message: string): AgentOutcome =>
      verifiable(ending)
        ? { ok: true, exitCode: outcome.exitCode ?? 0, durationMs: outcome.durationMs, ...known, summary, ending }
        : { ok: false, reason: 'AGENT_FAILED', message, exitCode: outcome.exitCode, durationMs: outcome.durationMs, ...known, ending };
    if (!outcome.ok) {
      if (outcome.reason !== 'AGENT_FAILED' || result.spawnError) return { ...outcome, ...known };
      const meaning = outcome.exitCode === null ? undefined : EXIT_MEANINGS[outcome.exitCode];
      const tail = lastLines(result.stderrTail || result.stdoutTail, 5, ' | ');
      const why =
        meaning ??
        (outcome.exitCode === null ? `was killed by ${result.signal}` : `failed (exit ${outcome.exitCode}: general error or API failure)`);
      const detail = (resultEvent?.error?.message ?? tail).slice(0, 300);
      const message = `Gemini CLI ${why}${detail ? `: ${detail}` : ''}`;
      const said = detail || why;
      if (outcome.exitCode === 53) return end({ kind: 'limit-reached', detail: `exit 53, the turn limit: ${said}` }, message);
      if (outcome.exitCode === 1 && transientText(detail)) return end({ kind: 'transient-api-error', detail: said }, message);
      return end(
        { kind: 'crashed', detail: outcome.exitCode === null ? `killed by ${result.signal}` : `exit ${outcome.exitCode}: ${said}` },
        message,
      );
    }
    if (resultEvent === null) {
      return end(
        { kind: 'crashed', detail: 'no result event' },
        'Gemini CLI ended without a result event (is the command really `gemini`?)',
      );
    }
    if (resultEvent.status !== 'success') {
      const error = resultEvent.error;
      const said = String(error?.message ?? '').slice(0, 300);
      const message = `Gemini CLI reported an error (${error?.type ?? 'error'}): ${said}`;
      return end({ kind: transientText(said) ? 'transient-api-error' : 'crashed', detail: `${error?.type ?? 'error'}: ${said}` }, message);
    }
    if (turnLimit) {
      const ending: AgentEnding = { kind: 'limit-reached', detail: 'Maximum session turns exceeded' };
      return end(ending, `Gemini CLI ${describeEnding(ending)}`);
    }
    return { ...outcome, ...known, summary, ending: { kind: 'finished', detail: 'success result' } };
  },
};

/** `input_tokens` already counts the cached prompt tokens (`cached` and `input` are its breakdown). */
function tokensOf(stats: GeminiStats | undefined): AgentTokens | null {
  if (!stats) return null;
  return { input: count(stats.input_tokens), output: count(stats.output_tokens) };
}

/** A token count as reported, or 0 when it is missing, negative or not a number (the agent writes these lines). */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
