// An attempt's criteria with what a CI report shows beside each: how long its tests took and why it failed.
import type { CriterionStatus, FindingKind } from '../../states.js';

/** A criterion as CI reports show it: its verdict, how long its tests took, and why they failed. */
export interface ReportedCriterion {
  id: string;
  description: string;
  status: CriterionStatus;
  note: string | null;
  durationMs?: number | null;
  failures?: string[];
}

interface StoredAttempt {
  criteria?: { id: string; description: string; status: CriterionStatus; note: string | null; steps?: number[] }[];
  findings?: {
    step: number | null;
    heading: string | null;
    kind?: FindingKind;
    reason: string | null;
    detail?: string | null;
    location?: string | null;
    evidencePack?: string | null;
  }[];
  /** Playwright's details name each test's duration; the other verifiers' none (`verifier` tells them apart). */
  verifier?: { details?: { verifier?: string; tests?: readonly { index: number; durationMs?: number | null }[] } } | null;
}

/**
 * Each criterion of a stored `attempt.json` with the summed duration of the tests that verify it (null
 * when the verifier measures none, as Kane) and the failure of each of those tests (whole message,
 * location, trace command), for JUnit bodies.
 */
export function criteriaWithEvidence(attempt: StoredAttempt): ReportedCriterion[] {
  const durations = new Map((attempt.verifier?.details?.tests ?? []).map((t) => [t.index, t.durationMs ?? null]));
  return (attempt.criteria ?? []).map((c) => {
    const steps = c.steps ?? [];
    const measured = steps.map((s) => durations.get(s)).filter((ms): ms is number => typeof ms === 'number');
    const failures = (attempt.findings ?? [])
      .filter((f) => f.step !== null && steps.includes(f.step) && f.kind !== 'inconsistency')
      .map((f) => {
        const where = f.location ? ` at ${f.location}` : '';
        const trace = f.evidencePack?.endsWith('.zip') ? `\ntrace: npx playwright show-trace ${f.evidencePack}` : '';
        // The whole message (diff, call log) when the verifier kept one beside its one-line reason.
        const message = f.detail && f.detail !== f.reason ? `${f.reason ?? ''}\n${f.detail}` : (f.reason ?? '(no message)');
        return `test ${f.step} "${f.heading ?? ''}"${where}:\n${message}${trace}`;
      });
    return {
      id: c.id,
      description: c.description,
      status: c.status,
      note: c.note,
      durationMs: measured.length > 0 ? measured.reduce((a, b) => a + b, 0) : null,
      failures,
    };
  });
}
