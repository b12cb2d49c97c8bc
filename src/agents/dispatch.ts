// Runs an agent process through the spawn helper and turns its end into an AgentOutcome.
import { runProcess, type SpawnResult } from '../process/spawn.js';
import { lastLines } from '../util/text.js';
import type { AgentContext, AgentOutcome } from './types.js';

export interface DispatchSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Text for stdin (closed after), or undefined for a closed stdin. */
  input?: string;
  onStdoutLine?: (line: string) => void;
}

/** Spawns the agent in its own process group with the configured timeout; reads nothing into memory but tails. */
export async function dispatchProcess(context: AgentContext, spec: DispatchSpec): Promise<{ result: SpawnResult; outcome: AgentOutcome }> {
  const result = await runProcess(spec.command, spec.args, {
    cwd: context.cwd,
    env: spec.env,
    input: spec.input,
    timeoutMs: context.config.timeoutSeconds * 1000,
    signal: context.signal,
    logFile: context.logFile,
    onStdoutLine: (line) => {
      spec.onStdoutLine?.(line);
      context.onLine?.(line);
    },
    onStderrLine: context.onLine,
    keepBytes: 16 * 1024,
  });
  return { result, outcome: outcomeOf(result, spec.command, context.config.timeoutSeconds) };
}

/** Maps a process end to the agent outcome (cost and turns are filled in by adapters that know them). */
export function outcomeOf(result: SpawnResult, command: string, timeoutSeconds: number): AgentOutcome {
  const base = { exitCode: result.exitCode, durationMs: result.durationMs, costUsd: null, turns: null };
  if (result.aborted) return { ok: false, reason: 'INTERRUPTED', message: 'the agent was stopped by an interrupt', ...base };
  if (result.timedOut) {
    return { ok: false, reason: 'AGENT_TIMEOUT', message: `the agent did not finish within agent.timeoutSeconds (${timeoutSeconds}s) and was killed`, ...base };
  }
  if (result.spawnError) {
    return { ok: false, reason: 'AGENT_FAILED', message: `could not start the agent "${command}": ${result.spawnError.code ?? result.spawnError.message}`, ...base };
  }
  if (result.exitCode !== 0) {
    const tail = lastLines(result.stderrTail || result.stdoutTail, 5, ' | ');
    const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    return { ok: false, reason: 'AGENT_FAILED', message: `the agent ${how}${tail ? `: ${tail}` : ''}`, ...base };
  }
  return { ok: true, exitCode: 0, durationMs: result.durationMs, costUsd: null, turns: null, summary: null };
}
