// What `verify` and `merge` both say about a set of tasks: each task's verdict and criteria, and the one
// exit code. Pure data: `merge` reads it without loading the run graph (git, execa, wait-on).
import { ExitCode } from '../../errors.js';
import type { ReportedCriterion } from '../run/attempt-criteria.js';
import type { NeedsHuman } from '../stored-runs/needs-human.js';
import type { RunRecordDraft } from '../run/run-record-writer.js';

export interface VerifiedTask {
  file: string;
  record: RunRecordDraft | null;
  runDir: string | null;
  /** Why the task could not be verified at all (bad contract, missing executable): exit 3. */
  refused: string | null;
  /**
   * The last attempt's criteria with descriptions and notes, for JUnit and summaries; with the time its
   * tests took and their failures when the verifier measured them (absent in merged shard outputs).
   */
  criteria: ReportedCriterion[];
  /** Why the task waits for a person (tampering caught, or too many failed agent runs), else null. */
  needsHuman?: NeedsHuman | null;
}

/** The last attempt's criteria as its run record summarizes them (all `merge` has of a shard's run). */
export function summarizedCriteria(record: Pick<RunRecordDraft, 'attempts'>): VerifiedTask['criteria'] {
  return (record.attempts.at(-1)?.criteria ?? []).map((c) => ({
    id: c.id,
    description: c.description ?? '',
    status: c.status,
    note: c.note ?? null,
    durationMs: c.durationMs ?? null,
    failures: c.failures ?? [],
  }));
}

/** 130 interrupted; 3 if any task was refused; 2 if any ERROR; 1 if any FAILED; else 0. */
export function overallExit(tasks: readonly VerifiedTask[], aborted: boolean): number {
  if (aborted || tasks.some((t) => t.record?.reason === 'INTERRUPTED')) return ExitCode.INTERRUPTED;
  if (tasks.some((t) => t.refused !== null)) return ExitCode.INPUT;
  if (tasks.some((t) => t.record?.state === 'ERROR')) return ExitCode.ERROR;
  if (tasks.some((t) => t.record?.state === 'FAILED')) return ExitCode.FAILED;
  return ExitCode.VERIFIED;
}
