// Per-step and per-criterion explanations that go into VerificationResult for people and reporters.
import type { CriterionResult } from '../../contract/criteria-map.js';
import type { KaneStepStatus, StepVerdict } from '../../states.js';
import type { DeclaredStepInfo } from './stream-checks.js';
import type { StreamFacts } from './stream-state.js';

export type StepReport = {
  index: number;
  heading: string;
  /** What Kane reported: `unfinished` = started, never ended; `skipped` = no events at all. */
  status: KaneStepStatus;
  verdict: StepVerdict;
  durationSeconds: number | null;
};

/** One line per step of the test file, in file order. */
export function describeSteps(
  declared: readonly DeclaredStepInfo[],
  facts: StreamFacts,
  verdicts: ReadonlyMap<number, StepVerdict>,
): StepReport[] {
  return declared.map((own) => {
    const step = facts.steps.get(own.index);
    const status = step?.status ?? (step?.started ? 'unfinished' : 'skipped');
    return {
      index: own.index,
      heading: own.heading,
      status,
      verdict: verdicts.get(own.index) ?? 'skipped',
      durationSeconds: step?.durationSeconds ?? null,
    };
  });
}

/** Replaces judgeCriteria's generic note when a step has a more precise story (heading mismatch, unfinished). */
export function explainCriteria(criteria: CriterionResult[], stepNotes: ReadonlyMap<number, string>): CriterionResult[] {
  return criteria.map((c) => {
    if (c.status === 'PASS') return c;
    const notes = c.steps.map((s) => stepNotes.get(s)).filter((n): n is string => n !== undefined);
    return notes.length > 0 && c.status === 'UNVERIFIED' ? { ...c, note: notes.join('; ') } : c;
  });
}
