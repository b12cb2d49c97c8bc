// The winner rule (docs/best-of.md): only VERIFIED candidates can win; among them the fewest agent
// attempts, then the smallest change, then the lowest cost, then the earliest to finish.

export interface Contender {
  name: string;
  state: string;
  /** Agent attempts (1 + repairs); a re-verification after a verifier error is not the agent's. */
  attempts: number;
  /** Lines added + removed, binary files by size (null: nothing measured, counts as largest). */
  changeSize: number | null;
  /** Agent dollars; null when its agent reported none (Codex, Gemini CLI, a command agent): unknown, never $0. */
  costUsd: number | null;
  kaneCredits: number;
  /** When the candidate's run ended (epoch ms). */
  finishedAt: number;
}

export type Choice = {
  name: string;
  reason: string;
};

interface Criterion {
  label: string;
  /** Its value, lower is better; null when unknown (the criterion is not compared, see keysOf). */
  value: (c: Contender) => number | null;
  show: (c: Contender) => string;
}

const CRITERIA: Criterion[] = [
  { label: 'fewest attempts', value: (c) => c.attempts, show: (c) => `${c.attempts} attempt(s)` },
  {
    label: 'smallest change',
    value: (c) => c.changeSize ?? Number.POSITIVE_INFINITY,
    show: (c) => (c.changeSize === null ? 'no stored change' : `${c.changeSize} line(s)/byte(s) changed`),
  },
  {
    label: 'lowest cost',
    value: (c) => c.costUsd,
    show: (c) => (c.costUsd === null ? 'cost not reported' : `$${c.costUsd}`),
  },
  { label: 'lowest Kane credits', value: (c) => c.kaneCredits, show: (c) => `${c.kaneCredits} credit(s)` },
  { label: 'earliest to finish', value: (c) => c.finishedAt, show: (c) => new Date(c.finishedAt).toISOString() },
];

/** A candidate's sort key, one number per criterion, or null where that criterion was not compared. */
type Keys = (number | null)[];

/**
 * The sort keys of the VERIFIED candidates. A criterion decides only between candidates tied on every
 * criterion before it; within such a group it is skipped (null for all) when any member's value is
 * unknown: a cost nobody reported is not $0, and skipping it pair by pair could make the order circular.
 */
function keysOf(verified: readonly Contender[]): Map<Contender, Keys> {
  const keys = new Map<Contender, Keys>(verified.map((c) => [c, []]));
  for (const k of CRITERIA) {
    const groups = new Map<string, Contender[]>();
    for (const c of verified) {
      const id = JSON.stringify(keys.get(c));
      groups.set(id, [...(groups.get(id) ?? []), c]);
    }
    for (const group of groups.values()) {
      const comparable = group.every((c) => k.value(c) !== null);
      for (const c of group) keys.get(c)!.push(comparable ? k.value(c) : null);
    }
  }
  return keys;
}

function compareKeys(a: Keys, b: Keys): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Orders VERIFIED candidates by the rule (stable: the plan's order breaks a complete tie). */
export function rank(contenders: readonly Contender[]): Contender[] {
  const verified = contenders.filter((c) => c.state === 'VERIFIED');
  const keys = keysOf(verified);
  return verified
    .map((c, i) => ({ c, i }))
    .sort((a, b) => compareKeys(keys.get(a.c)!, keys.get(b.c)!) || a.i - b.i)
    .map(({ c }) => c);
}

/** The winner and why, in words a reviewer can check against the table; null when none is VERIFIED. */
export function chooseWinner(contenders: readonly Contender[]): Choice | null {
  const ranked = rank(contenders);
  const [best, next] = ranked;
  if (!best) return null;
  if (!next) {
    const others = contenders.length - 1;
    return {
      name: best.name,
      reason: others === 0 ? 'the only candidate, VERIFIED' : `the only VERIFIED candidate of ${contenders.length}`,
    };
  }
  const keys = keysOf(ranked);
  const [a, b] = [keys.get(best)!, keys.get(next)!];
  const said: string[] = [];
  for (const [i, k] of CRITERIA.entries()) {
    const short = k.label.replace(/^(fewest|smallest|lowest|earliest to) /, '');
    if (a[i] === null) {
      const unknown = [best, next].filter((c) => k.value(c) === null).map((c) => c.name);
      said.push(`${short} not compared (${unknown.length > 0 ? `${unknown.join(', ')}: ` : 'another tied candidate: '}not reported)`);
      continue;
    }
    if (a[i] === b[i]) {
      said.push(`${short} tied (${k.show(best)})`);
      continue;
    }
    const lead = `${k.label}: ${k.show(best)}, the next best (${next.name}) ${k.show(next)}`;
    return { name: best.name, reason: `${ranked.length} VERIFIED; ${[...said, lead].join('; ')}` };
  }
  return { name: best.name, reason: `${ranked.length} VERIFIED and tied on every criterion; the first in the plan's order` };
}
