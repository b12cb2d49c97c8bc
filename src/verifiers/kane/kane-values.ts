// Loose readers for Kane's event fields: Kane adds fields and changes types between versions.
import type { Verdict } from '../types.js';

/** A non-empty string, else null. */
export function readString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** An integer from a number or a numeric string (`"740"`), else null. */
export function readInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

/** A finite number (or numeric string), else null. */
export function readNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/** true/false, also from `"true"`/`"false"`; anything else is null (unknown, not false). */
export function readBool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return null;
}

/** A plain object, else null. */
export function readObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The verdict fields of a `run_end.verdict` object or a `test_md_bug_verdict` event. */
export function readVerdict(raw: unknown): Verdict | null {
  const v = readObject(raw);
  if (!v) return null;
  const verdict: Verdict = {
    confirmed: readBool(v.confirmed),
    family: readString(v.family),
    category: readString(v.category),
    severity: readString(v.severity),
    confidence: readNumber(v.confidence),
    bugTitle: readString(v.bug_title),
    oneLiner: readString(v.one_liner),
    status: readString(v.status),
    downgradeReason: readString(v.downgrade_reason),
  };
  const empty = verdict.confirmed === null && verdict.family === null && verdict.category === null && verdict.bugTitle === null;
  return empty ? null : verdict;
}

/** One verdict from the step's `run_end.verdict` and its `test_md_bug_verdict` (the run_end's fields first). */
export function mergeVerdicts(primary: Verdict | null, secondary: Verdict | null): Verdict | null {
  if (!primary) return secondary;
  if (!secondary) return primary;
  const pick = <K extends keyof Verdict>(key: K): Verdict[K] => primary[key] ?? secondary[key] ?? null;
  return {
    confirmed: pick('confirmed'),
    family: pick('family'),
    category: pick('category'),
    severity: pick('severity'),
    confidence: pick('confidence'),
    bugTitle: pick('bugTitle'),
    oneLiner: pick('oneLiner'),
    status: pick('status'),
    downgradeReason: pick('downgradeReason'),
  };
}
