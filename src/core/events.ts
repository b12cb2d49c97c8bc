// What the core tells reporters while a run goes on; reporters render, the core never prints.
import type { AttemptKind, AttemptOutcome, CriterionStatus, GuardName, RunMode, RunReason, RunState } from '../states.js';
import type { VerifierProgress } from '../verifiers/types.js';

/** What the run itself is doing, outside its attempts, as its `phase` events name it. */
export type RunPhase = 'worktree' | 'setup' | 'evidence' | 'cleanup';
/** What an attempt is doing, as its phases (core/run/attempt.ts) name it in their `phase` events. */
export type AttemptPhase = 'agent' | 'contract' | 'snapshot' | 'app' | 'verifier' | 'stop';
/** The one vocabulary of phases: what a `phase` event says, and what the terminal prints before its message. */
export type Phase = RunPhase | AttemptPhase;

export type RunEvent =
  | {
      type: 'run-start';
      runId: string;
      taskId: string;
      taskFile: string;
      runDir: string;
      workspace: string;
      mode: RunMode;
      /** Without `agent.sandbox`: one line saying what runs unsandboxed (openWithoutSandbox). */
      unsandboxed?: string;
      /**
       * Guards already known not to stand (no process table sees other processes, a required sandbox off), said
       * at once; `required`: the run cannot end VERIFIED, and ends now (docs/verification.md#what-stood-behind-a-verdict).
       */
      blindGuards?: BlindGuard[];
    }
  | { type: 'attempt-start'; attempt: number; kind: AttemptKind }
  | { type: 'phase'; attempt: number | null; phase: Phase; message: string }
  | { type: 'output'; source: 'agent' | 'app' | 'setup'; line: string }
  /** `verifier` is the verifier type (kane, playwright, command) that reports the progress. */
  | { type: 'verifier'; attempt: number; verifier: string; progress: VerifierProgress }
  | { type: 'app-failed'; attempt: number; message: string; logTail: string }
  | { type: 'attempt-end'; attempt: number; status: AttemptOutcome; summary: string; criteria: { id: string; status: CriterionStatus }[] }
  | {
      type: 'run-end';
      runId: string;
      state: RunState;
      reason: RunReason | null;
      message: string | null;
      runDir: string;
      exitCode: number;
      mode: RunMode;
    };

/** A guard that cannot stand, known before anything runs. */
export interface BlindGuard {
  guard: GuardName;
  why: string;
  required: boolean;
}

export interface RunReporter {
  onEvent(event: RunEvent): void;
}
