// The facts a `testmd run` stream leaves behind once read: small, per step, never the stream itself.
import type { Verdict } from '../types.js';

/** What the stream said about one `## ` step. */
export interface StepFacts {
  index: number;
  /** Heading from `test_md_step_start` (the last one, if Kane restarted the step). */
  heading: string | null;
  /** A second `test_md_step_start` for the same index named a different heading. */
  headingConflict: boolean;
  started: boolean;
  /** Final status from `test_md_step_end`; null while it has not ended. */
  status: 'passed' | 'failed' | null;
  /** How many `test_md_step_end` events named this step, and whether they disagreed. */
  endCount: number;
  endConflict: boolean;
  durationSeconds: number | null;
  /** Some `run_end` of this step failed. */
  runFailed: boolean;
  /** From the step's failing `run_end` (or its last one). */
  reason: string | null;
  oneLiner: string | null;
  reasonCode: string | null;
  resultCode: number | null;
  runVerdict: Verdict | null;
  /** From `test_md_bug_verdict` for this step. */
  bugVerdict: Verdict | null;
}

export interface SummaryFacts {
  overallStatus: string | null;
  total: number | null;
  passed: number | null;
  failed: number | null;
  skipped: number | null;
  cancelled: boolean | null;
  commitReason: string | null;
}

export interface DoneFacts {
  overallStatus: string | null;
  sessionId: string | null;
  durationSeconds: number | null;
  shareUrl: string | null;
}

export interface StreamFacts {
  cliVersion: string | null;
  /** The wire contract version (`v`) of the first event that carried one; null before 0.8.17. */
  contractVersion: number | null;
  steps: Map<number, StepFacts>;
  summary: SummaryFacts | null;
  done: DoneFacts | null;
  /** `error` events: how many, and the first few messages. */
  errorCount: number;
  errors: string[];
  warnings: string[];
  /** `run_end` / `test_md_step_end` / `test_md_bug_verdict` naming no step, or a step never started. */
  orphans: string[];
  eventsAfterDone: number;
  /**
   * Event-order and shape violations (a step ended that never started, a step event after
   * test_md_done, a second done, a repeated key): each makes the stream untrustworthy. The first few.
   */
  violations: string[];
  violationCount: number;
  /** Events by type (unknown types included: they are counted, never fatal). */
  typeCounts: Record<string, number>;
  /** Credits the run's `run_end` events report (null when none says). */
  creditsConsumed: number | null;
}
