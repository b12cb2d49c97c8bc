// One attempt's own state: its record and its teardowns; and what a phase hands on (PhaseResult): what it
// found for the phases after it, or how the attempt ended.
import { judgeCriteria } from '../../contract/criteria-map.js';
import { InterruptedError } from '../../errors.js';
import type { WorkspaceSnapshot } from '../../git/snapshot.js';
import type { AttemptKind } from '../../states.js';
import type { AttemptPhase } from '../events.js';
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

/** How a phase ends the attempt (Attempt.end, Attempt.conclude). */
export type Ended = { next: 'end'; result: AttemptResult };
/** What a phase says: go on, with what it found for the phases after it, or end the attempt with this result. */
export type PhaseResult<T = void> = { next: 'continue'; found: T } | Ended;
export const CONTINUE: PhaseResult = { next: 'continue', found: undefined };

/** Go on with `value` (what the phase found) handed to the phases after it. */
export function found<T>(value: T): PhaseResult<T> {
  return { next: 'continue', found: value };
}

/** A verdict the verifier (and the sweep after a pass) gave, before the post-checks confirm it. */
export interface Verdict {
  status: AttemptRecord['status'];
  summary: string;
}

/** One attempt in progress: its record, which the phases fill, and its teardowns, which run on every way out. */
export class Attempt {
  readonly record: AttemptRecord;
  readonly teardowns = new Teardowns();
  readonly started = Date.now();
  /** Paths the app writes by design (`app.writes`): left out of the snapshots and the window. */
  readonly skip: (repoPath: string) => boolean;

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
      guards: { sandbox: ctx.guardPlan.sandbox },
    };
  }

  say(phase: AttemptPhase, message: string): void {
    this.ctx.reporter.onEvent({ type: 'phase', attempt: this.input.number, phase, message });
  }

  /**
   * Ends the attempt and the run. `tampering`: what only an agent does (docs/needs-human.md), as opposed
   * to a write whose writer cannot be told.
   */
  end(state: Terminal['state'], reason: Terminal['reason'], message: string, tampering = false): Ended {
    this.record.terminal = { state, reason, message, ...(tampering ? { tampering } : {}) };
    this.record.summary ||= message;
    return { next: 'end', result: { record: this.record, snapshotAfter: null } };
  }

  /** Ends the attempt with a verdict of its own (the loop decides what follows), `after` the workspace as it was left. */
  conclude(status: AttemptRecord['status'], summary: string, after: WorkspaceSnapshot | null): Ended {
    this.record.status = status;
    this.record.summary = summary;
    return { next: 'end', result: { record: this.record, snapshotAfter: after } };
  }

  checkInterrupted(): void {
    if (this.ctx.signal.aborted) throw new InterruptedError('interrupted');
  }
}
