// Runs an agent process through the spawn helper and turns its end into an AgentOutcome.
import { childEnv } from '../process/child-env.js';
import { PROCESS_TAG_ENV } from '../process/escaped-processes.js';
import { runProcess, type SpawnResult } from '../process/spawn.js';
import { lastLines } from '../util/text.js';
import { sandboxCommand } from './sandbox.js';
import { sandboxOn } from './sandbox-mode.js';
import { secretPathsToHide } from '../util/secret-paths.js';
import type { AgentContext, AgentOutcome } from './types.js';

export interface DispatchSpec {
  command: string;
  args: string[];
  /** Adapter-specific variables the agent needs (its API key), beside the base set. */
  passKeys?: readonly string[];
  passPrefixes?: readonly string[];
  /** Home-relative paths the agent writes its own state to (`.claude`), writable inside the sandbox. */
  writableHome?: readonly string[];
  /** Called with every stdout line that is a JSON object (stream-json, --json output). */
  onEvent?: (event: Record<string, unknown>) => void;
}

/**
 * Spawns the agent in the worktree, in its own process group, with an explicit environment, the
 * prompt on stdin and the configured timeout; keeps only the tails of its output in memory.
 */
export async function dispatchAgent(context: AgentContext, spec: DispatchSpec): Promise<{ result: SpawnResult; outcome: AgentOutcome }> {
  const env = childEnv('agent', {
    baseEnv: context.baseEnv,
    keys: spec.passKeys,
    prefixes: spec.passPrefixes,
    passEnv: context.config.passEnv,
    set: [context.config.env, elenchosVars(context)],
  });
  const confined = sandboxOn(context.config)
    ? sandboxCommand(spec.command, spec.args, {
        worktree: context.cwd,
        checkout: context.checkout ?? context.cwd,
        promptFile: context.promptFile,
        writableHome: spec.writableHome ?? [],
        home: env.HOME,
        objectQuarantine: context.objectQuarantine,
        hidden: secretPathsToHide(context.baseEnv),
      })
    : spec;
  const result = await runProcess(confined.command, confined.args, {
    cwd: context.cwd,
    env,
    input: context.prompt,
    timeoutMs: context.config.timeoutSeconds * 1000,
    signal: context.signal,
    logFile: context.logFile,
    onStdoutLine: (line) => {
      if (spec.onEvent) {
        const event = parseJsonLine(line);
        if (event) spec.onEvent(event);
      }
      context.onLine?.(line);
    },
    onStderrLine: context.onLine,
    keepBytes: 16 * 1024,
  });
  return { result, outcome: outcomeOf(result, spec.command, context.config.timeoutSeconds) };
}

/** The ELENCHOS_* variables every agent gets. */
export function elenchosVars(
  context: Pick<AgentContext, 'promptFile' | 'taskFile' | 'attempt' | 'cwd' | 'processTag'>,
): Record<string, string> {
  return {
    ELENCHOS_PROMPT_FILE: context.promptFile,
    ELENCHOS_TASK_FILE: context.taskFile,
    ELENCHOS_ATTEMPT: String(context.attempt),
    ELENCHOS_WORKSPACE: context.cwd,
    ...(context.processTag ? { [PROCESS_TAG_ENV]: context.processTag } : {}),
  };
}

/** Parses one stdout line as a JSON object, or null. */
export function parseJsonLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Maps a process end to the agent outcome (cost and turns are filled in by adapters that know them). */
export function outcomeOf(result: SpawnResult, command: string, timeoutSeconds: number): AgentOutcome {
  const base = { exitCode: result.exitCode, durationMs: result.durationMs, costUsd: null, turns: null };
  // Elenchos's own stop, for every adapter: `show` says why the attempt's agent ended even when it said nothing.
  if (result.aborted) {
    const ending = { kind: 'interrupted' as const, detail: 'stopped by an interrupt' };
    return { ok: false, reason: 'INTERRUPTED', message: 'the agent was stopped by an interrupt', ...base, ending };
  }
  if (result.timedOut) {
    const ending = { kind: 'timed-out' as const, detail: `killed after agent.timeoutSeconds (${timeoutSeconds}s)` };
    return {
      ok: false,
      reason: 'AGENT_TIMEOUT',
      message: `the agent did not finish within agent.timeoutSeconds (${timeoutSeconds}s) and was killed`,
      ...base,
      ending,
    };
  }
  if (result.spawnError) {
    return {
      ok: false,
      reason: 'AGENT_FAILED',
      message: `could not start the agent "${command}": ${result.spawnError.code ?? result.spawnError.message}`,
      ...base,
    };
  }
  if (result.exitCode !== 0) {
    const tail = lastLines(result.stderrTail || result.stdoutTail, 5, ' | ');
    const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    return { ok: false, reason: 'AGENT_FAILED', message: `the agent ${how}${tail ? `: ${tail}` : ''}`, ...base };
  }
  return { ok: true, exitCode: 0, durationMs: result.durationMs, costUsd: null, turns: null, summary: null };
}
