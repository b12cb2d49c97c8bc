// What one attempt carries from phase to phase: its record, its teardowns, and what each phase found.
import type { LockedWatch } from '../lock/locked-watch.js';
import { judgeCriteria } from '../../contract/criteria-map.js';
import { InterruptedError } from '../../errors.js';
import type { WorkspaceSnapshot } from '../../git/snapshot.js';
import type { WindowWatch } from '../../git/window-watch.js';
import type { StartedVerification } from '../../verifiers/types.js';
import type { AttemptKind } from '../../states.js';
import type { RepairEvidence } from './prompt.js';
import type { AttemptContext, AttemptRecord, Terminal } from './run-context.js';
import { Teardowns } from './teardown.js';
import { globMatcher } from '../../util/glob-match.js';

export interface AttemptInput {
  number: number;
  kind: AttemptKind;
  /** Evidence of the previous verified attempt, for the repair prompt. */
  previous: RepairEvidence | null;
  /** Snapshot after the previous attempt: a repair must differ from it. */
  previousSnapshot: WorkspaceSnapshot | null;
  dir: string;
  maxAttempts: number;
}

export interface AttemptResult {
  record: AttemptRecord;
  snapshotAfter: WorkspaceSnapshot | null;
}

/** What a phase says: go on to the next one, or end the attempt with this result. */
export type PhaseResult = { next: 'continue' } | { next: 'end'; result: AttemptResult };
export type Phase = (attempt: Attempt) => Promise<PhaseResult>;
export const CONTINUE: PhaseResult = { next: 'continue' };

export type PhaseName = 'agent' | 'contract' | 'snapshot' | 'app' | 'verifier' | 'stop';

/** A verdict the verifier (and the sweep after a pass) gave, before the post-checks confirm it. */
export interface Verdict {
  status: AttemptRecord['status'];
  summary: string;
}

/** One attempt in progress. Phases read and fill its fields in order; teardowns run on every way out. */
export class Attempt {
  readonly record: AttemptRecord;
  readonly teardowns = new Teardowns();
  readonly started = Date.now();
  /** Without the sandbox: from when the object store is checked again after the verifier (set by the agent's turn's check). */
  objectsSince: number | null = null;
  /** A verify's first attempt right after the baselines were read: nothing has run since. */
  fresh = false;
  /** Paths the app writes by design (`app.writes`): left out of the snapshots and the window. */
  readonly skip: (repoPath: string) => boolean;
  /** The workspace before the app and the verifier (set by the workspace guard). */
  before: WorkspaceSnapshot | null = null;
  /** The filesystem watch over the verifier window, open from before the app until everything stopped. */
  watch: WindowWatch | null = null;
  /** The locked files watched by content over the same window (a same-bytes rewrite is no change). */
  lockedWatch: LockedWatch | null = null;
  port = 0;
  url = '';
  /** A verifier started ahead of the app (Playwright), and the contract's stamps taken before it read anything. */
  early: { verifier: StartedVerification; stamps: Map<string, string> } | null = null;
  /** The contract's stamps taken before the verifier read anything. */
  stampsBefore: Map<string, string> | null = null;
  verdict: Verdict | null = null;
  /** The workspace after everything stopped, proven unchanged since `before` (set by the post-checks). */
  after: WorkspaceSnapshot | null = null;

  constructor(
    readonly ctx: AttemptContext,
    readonly input: AttemptInput,
  ) {
    this.skip = globMatcher(ctx.appWrites);
    this.record = {
      number: input.number,
      kind: input.kind,
      status: 'NOT_VERIFIED',
      summary: '',
      criteria: judgeCriteria(ctx.resolved.task.acceptanceCriteria, ctx.resolved.map, new Map()),
      findings: [],
      startedAt: new Date(this.started).toISOString(),
      durationMs: 0,
      agent: null,
      app: null,
      verifier: null,
      snapshots: { before: null, after: null },
      terminal: null,
      appFailure: null,
      cost: { agentUsd: null, agentTurns: null, inputTokens: null, outputTokens: null, kaneCredits: null },
      stoppedProcesses: [],
      guards: ctx.guardPlan ? { sandbox: ctx.guardPlan.sandbox } : {},
    };
  }

  say(phase: PhaseName, message: string): void {
    this.ctx.reporter.onEvent({ type: 'phase', attempt: this.input.number, phase, message });
  }

  /**
   * Ends the attempt and the run. `tampering`: what only an agent does (docs/needs-human.md), as opposed
   * to a write whose writer cannot be told.
   */
  end(state: Terminal['state'], reason: Terminal['reason'], message: string, tampering = false): PhaseResult {
    this.record.terminal = { state, reason, message, ...(tampering ? { tampering } : {}) };
    this.record.summary ||= message;
    return { next: 'end', result: { record: this.record, snapshotAfter: null } };
  }

  /** Ends the attempt with a verdict of its own (the loop decides what follows), `after` the workspace as it was left. */
  conclude(status: AttemptRecord['status'], summary: string, after: WorkspaceSnapshot | null): PhaseResult {
    this.record.status = status;
    this.record.summary = summary;
    return { next: 'end', result: { record: this.record, snapshotAfter: after } };
  }

  checkInterrupted(): void {
    if (this.ctx.signal.aborted) throw new InterruptedError('interrupted');
  }
}
