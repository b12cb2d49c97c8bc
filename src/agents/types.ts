// The interface every agent adapter (command, claude, codex) implements.
import type { AgentConfigSchema } from '../config/config-schema.js';
import type { AgentFailureReason } from '../states.js';
import type { AgentEnding } from './ending.js';
import type * as z from 'zod';

export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export interface AgentContext {
  /** The worktree: the agent's cwd. */
  cwd: string;
  /** The main checkout, hidden from a sandboxed agent (`agent.sandbox`). */
  checkout?: string;
  prompt: string;
  /** Absolute path of the prompt file (also given to the agent as ELENCHOS_PROMPT_FILE). */
  promptFile: string;
  /** Absolute path of the task file inside the worktree. */
  taskFile: string;
  attempt: number;
  /** `agent.sandbox`: the folder the agent's new git objects go to (src/git/object-quarantine.ts). */
  objectQuarantine?: string;
  /** The run's held objects: what its earlier turns committed, out of every other run's sight (src/git/object-quarantine.ts). */
  heldObjects?: string;
  /** Inherited by the agent and everything it starts (ELENCHOS_PROCESS_TAG), to find what escapes its group. */
  processTag?: string;
  config: AgentConfig;
  /** The environment the agent's own environment is picked from (never passed whole). */
  baseEnv: NodeJS.ProcessEnv;
  /** Where the agent's output is logged. */
  logFile: string;
  signal: AbortSignal;
  onLine?: (line: string) => void;
}

export type AgentOutcome =
  | {
      ok: true;
      exitCode: number;
      durationMs: number;
      costUsd: number | null;
      turns: number | null;
      tokens?: AgentTokens | null;
      summary: string | null;
      /** Why the agent stopped, where its adapter can tell (absent: the `command` adapter, older records). */
      ending?: AgentEnding;
      /** The earlier ending a dispatch was tried again after (a transient API error, once). */
      retriedAfter?: AgentEnding;
    }
  | {
      ok: false;
      reason: AgentFailureReason;
      message: string;
      exitCode: number | null;
      durationMs: number;
      costUsd: number | null;
      turns: number | null;
      tokens?: AgentTokens | null;
      ending?: AgentEnding;
      retriedAfter?: AgentEnding;
    };

/** Tokens the agent reported using (Claude Code's `usage`, Codex's `turn.completed.usage`). */
export type AgentTokens = {
  input: number;
  output: number;
  /** Parts already inside `input` / `output`, kept for the record where the agent reports them (Codex). */
  cachedInput?: number;
  cacheWriteInput?: number;
  reasoningOutput?: number;
};

export interface AgentAdapter {
  readonly type: string;
  /** The executable and leading arguments this adapter runs. */
  command(config: AgentConfig): { command: string; args: string[] };
  dispatch(context: AgentContext): Promise<AgentOutcome>;
}
