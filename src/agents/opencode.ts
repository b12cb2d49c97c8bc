// `agent.type: opencode`: `opencode run --format json`, the prompt on stdin; cost and tokens summed over its step_finish events.
import { lastLines } from '../util/text.js';
import { dispatchAgent } from './dispatch.js';
import { transientStatus, verifiable, type AgentEnding } from './ending.js';
import type { AgentAdapter, AgentOutcome } from './types.js';
import { modelArgs } from './model-flag.js';

/** packages/opencode/src/session/message-v2.ts: `StepFinishPart` (tokens.input excludes the cache reads and writes). */
interface StepFinishPart {
  reason?: string;
  cost?: number;
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
}

export const opencodeAgent: AgentAdapter = {
  type: 'opencode',
  command: (config) => ({ command: config.command ?? 'opencode', args: ['run', '--format', 'json', ...modelArgs(config), ...config.args] }),
  async dispatch(context) {
    let steps = 0;
    let costUsd = 0;
    const tokens = { input: 0, output: 0 };
    const errors: unknown[] = [];
    let text: string | null = null;
    let rejected: string[] = [];
    let done = false;
    const { result, outcome } = await dispatchAgent(context, {
      ...this.command(context.config),
      passKeys: ['AWS_REGION', 'AWS_PROFILE', 'GOOGLE_CLOUD_PROJECT'],
      passPrefixes: ['OPENCODE_'],
      // XDG data (sessions, auth.json), config, cache and state folders of OpenCode.
      writableHome: ['.local/share/opencode', '.config/opencode', '.cache/opencode', '.local/state/opencode'],
      onEvent: (event) => {
        const part = (event.part ?? {}) as Record<string, unknown>;
        if (event.type === 'step_finish') {
          const step = part as StepFinishPart;
          steps++;
          // Each step_finish carries the cost and tokens of that step alone: sum them.
          costUsd += num(step.cost);
          const t = step.tokens;
          tokens.input += num(t?.input) + num(t?.cache?.read) + num(t?.cache?.write);
          tokens.output += num(t?.output) + num(t?.reasoning);
        }
        if (event.type === 'text' && typeof part.text === 'string' && part.text.trim()) text = part.text.trim();
        if (event.type === 'error') errors.push(event.error);
        if (event.type === 'done') {
          done = true;
          if (Array.isArray(event.rejected)) rejected = event.rejected.map(String);
        }
      },
    });
    const known = { costUsd: steps > 0 ? costUsd : null, turns: steps, tokens };
    const refused = rejected.length > 0 ? `OpenCode auto-rejected permissions (${rejected.join(', ')}); ` : '';
    const summary = refused || text ? `${refused}${text ?? ''}`.slice(0, 2000) : null;
    // As for Claude Code (docs/agents.md#endings): only a crash is AGENT_FAILED; a limit or a transient API
    // error leaves a worktree worth verifying (and a transient error is dispatched once more first).
    const end = (ending: AgentEnding, message: string): AgentOutcome =>
      verifiable(ending)
        ? { ok: true, exitCode: outcome.exitCode ?? 0, durationMs: outcome.durationMs, ...known, summary, ending }
        : { ok: false, reason: 'AGENT_FAILED', message, exitCode: outcome.exitCode, durationMs: outcome.durationMs, ...known, ending };
    const last = errors.at(-1);
    if (!outcome.ok) {
      if (outcome.reason !== 'AGENT_FAILED' || result.spawnError) return { ...outcome, ...known };
      const detail = last !== undefined ? errorMessage(last) : lastLines(result.stderrTail || result.stdoutTail, 5, ' | ');
      const how = outcome.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${outcome.exitCode}`;
      const message = `OpenCode ${how}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
      if (last !== undefined) return end(errorEnding(last), message);
      return end(
        { kind: 'crashed', detail: outcome.exitCode === null ? `killed by ${result.signal}` : `exit ${outcome.exitCode}` },
        message,
      );
    }
    // run.ts sets exit code 1 on a session error; an error event with exit 0 is still a failed session.
    if (last !== undefined)
      return end(errorEnding(last), `OpenCode reported an error: ${errors.map(errorMessage).join(' | ').slice(0, 300)}`);
    // `done` is newer than step_finish: a run with neither never reached the model (or is not opencode).
    if (!done && steps === 0) {
      return end(
        { kind: 'crashed', detail: 'no step_finish or done event' },
        'OpenCode ended without a step_finish or done event (is the command really `opencode`?)',
      );
    }
    const denied = rejected.length > 0 ? `, ${rejected.length} permission(s) auto-rejected` : '';
    return { ...outcome, ...known, summary, ending: { kind: 'finished', detail: `${steps} step(s)${denied}` } };
  },
};

/** A count or a price: a negative one (which would lower the run's spend below its budget) counts as 0. */
function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The ending an `error` event means, by its NamedError name (packages/opencode/src/session/message-v2.ts):
 * `APIError` carries `statusCode` and `isRetryable`; `MessageOutputLengthError` is the output limit; the rest
 * (`ProviderAuthError`, `MessageAbortedError`, `UnknownError`, …) leave no usable end.
 */
function errorEnding(error: unknown): AgentEnding {
  const named = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    data?: { statusCode?: unknown; isRetryable?: unknown };
  };
  const detail = errorMessage(error).slice(0, 300);
  if (named.name === 'MessageOutputLengthError') return { kind: 'limit-reached', detail };
  const status = typeof named.data?.statusCode === 'number' ? named.data.statusCode : null;
  if (named.name === 'APIError' && (named.data?.isRetryable === true || (status !== null && transientStatus(status)))) {
    return { kind: 'transient-api-error', detail: status !== null ? `statusCode ${status}: ${detail}` : detail };
  }
  return { kind: 'crashed', detail };
}

/** `{ name, data: { message } }` (NamedError in OpenCode), or whatever came. */
function errorMessage(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error ?? 'error');
  const named = error as { name?: unknown; data?: { message?: unknown }; message?: unknown };
  const message = named.data?.message ?? named.message;
  return typeof message === 'string' ? `${String(named.name ?? 'Error')}: ${message}` : String(named.name ?? 'error');
}
