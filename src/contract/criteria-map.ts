// Joins a contract's criteria to the verifier's steps, and steps' outcomes back to criteria.
import type { CriterionStatus, StepVerdict } from '../states.js';
import type { Criterion } from './task-schema.js';

/** A step (Kane) or test (Playwright) as the verifier will report it, with the ids it claims to verify. */
export interface DeclaredStep {
  index: number;
  heading: string;
  verifies: string[];
}

export interface MappedStep {
  index: number;
  heading: string;
  /** Contract criterion ids, in the contract's spelling. */
  criteria: string[];
}

export interface CriteriaMap {
  steps: MappedStep[];
  /** Contract id → indexes of the steps that verify it. */
  byCriterion: Map<string, number[]>;
  /** Contract ids no step names: they can never be PASS. */
  unmapped: string[];
  /** `@verifies` ids that are not in the contract. */
  unknown: { step: number; heading: string; id: string; suggestion: string | null }[];
}

/** Builds `step → criteria` and `criterion → steps` (ids match case-insensitively, whole id only). */
export function mapCriteria(criteria: readonly Criterion[], steps: readonly DeclaredStep[]): CriteriaMap {
  const canonical = new Map(criteria.map((c) => [c.id.toUpperCase(), c.id]));
  const byCriterion = new Map<string, number[]>(criteria.map((c) => [c.id, []]));
  const unknown: CriteriaMap['unknown'] = [];
  const mapped = steps.map((step) => {
    const ids: string[] = [];
    for (const raw of step.verifies) {
      const id = canonical.get(raw.toUpperCase());
      if (id === undefined) {
        unknown.push({ step: step.index, heading: step.heading, id: raw, suggestion: suggestId(raw, criteria) });
        continue;
      }
      if (!ids.includes(id)) ids.push(id);
      byCriterion.get(id)?.push(step.index);
    }
    return { index: step.index, heading: step.heading, criteria: ids };
  });
  const unmapped = criteria.filter((c) => (byCriterion.get(c.id) ?? []).length === 0).map((c) => c.id);
  return { steps: mapped, byCriterion, unmapped, unknown };
}

/** A contract id that differs only in zero padding (`AC-1` for `AC-001`), to suggest as the fix. */
function suggestId(raw: string, criteria: readonly Criterion[]): string | null {
  const parse = (id: string) => {
    const m = /^([A-Za-z][A-Za-z0-9]*)-(\d+)$/.exec(id);
    return m ? `${m[1]!.toUpperCase()}-${Number(m[2])}` : id.toUpperCase();
  };
  const wanted = parse(raw);
  return criteria.find((c) => parse(c.id) === wanted)?.id ?? null;
}

export type CriterionResult = {
  id: string;
  description: string;
  status: CriterionStatus;
  /** Indexes of the steps that verify it. */
  steps: number[];
  /** Why it is not PASS, for people. */
  note: string | null;
};

/** PASS needs every verifying step passed; FAIL needs a confirmed product failure; else UNVERIFIED. */
export function judgeCriteria(
  criteria: readonly Criterion[],
  map: CriteriaMap,
  stepVerdicts: ReadonlyMap<number, StepVerdict>,
): CriterionResult[] {
  return criteria.map((criterion) => {
    const steps = map.byCriterion.get(criterion.id) ?? [];
    const base = { id: criterion.id, description: criterion.description, steps };
    if (steps.length === 0) return { ...base, status: 'UNVERIFIED', note: 'no step verifies this criterion' };
    const verdicts = steps.map((s) => stepVerdicts.get(s) ?? 'skipped');
    const failedAt = steps.filter((_, i) => verdicts[i] === 'product_failure');
    if (failedAt.length > 0) return { ...base, status: 'FAIL', note: `product failure at step ${failedAt.join(', ')}` };
    if (verdicts.every((v) => v === 'passed')) return { ...base, status: 'PASS', note: null };
    const other = steps.filter((_, i) => verdicts[i] === 'failed_other');
    const note =
      other.length > 0
        ? `step ${other.join(', ')} failed for a reason that is not a confirmed product failure`
        : `step ${steps.filter((_, i) => verdicts[i] === 'skipped').join(', ')} did not run`;
    return { ...base, status: 'UNVERIFIED', note };
  });
}
