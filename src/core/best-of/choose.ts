// The winner rule (docs/best-of.md): only VERIFIED candidates can win; among them the fewest agent
// attempts, then the smallest change, then the lowest cost, then the earliest to finish.

export interface Contender {
  name: string;
  state: string;
  /** Agent attempts (1 + repairs); a re-verification after a verifier error is not the agent's. */
  attempts: number;
  /** Lines added + removed, binary files by size (null: nothing measured, counts as largest). */
  changeSize: number | null;
  costUsd: number;
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
  value: (c: Contender) => number;
  show: (c: Contender) => string;
}

const CRITERIA: Criterion[] = [
  { label: 'fewest attempts', value: (c) => c.attempts, show: (c) => `${c.attempts} attempt(s)` },
  {
    label: 'smallest change',
    value: (c) => c.changeSize ?? Number.POSITIVE_INFINITY,
    show: (c) => (c.changeSize === null ? 'no stored change' : `${c.changeSize} line(s)/byte(s) changed`),
  },
  { label: 'lowest cost', value: (c) => c.costUsd, show: (c) => `$${c.costUsd}` },
  { label: 'lowest Kane credits', value: (c) => c.kaneCredits, show: (c) => `${c.kaneCredits} credit(s)` },
  { label: 'earliest to finish', value: (c) => c.finishedAt, show: (c) => new Date(c.finishedAt).toISOString() },
];

/** Orders VERIFIED candidates by the rule (stable: the plan's order breaks a complete tie). */
export function rank(contenders: readonly Contender[]): Contender[] {
  return contenders
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.state === 'VERIFIED')
    .sort((a, b) => {
      for (const k of CRITERIA) {
        const d = k.value(a.c) - k.value(b.c);
        if (d !== 0) return d;
      }
      return a.i - b.i;
    })
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
  const ties: string[] = [];
  for (const k of CRITERIA) {
    if (k.value(best) === k.value(next)) {
      ties.push(`${k.label.replace(/^(fewest|smallest|lowest|earliest to) /, '')} tied (${k.show(best)})`);
      continue;
    }
    const lead = `${k.label}: ${k.show(best)}, the next best (${next.name}) ${k.show(next)}`;
    return { name: best.name, reason: `${ranked.length} VERIFIED; ${[...ties, lead].join('; ')}` };
  }
  return { name: best.name, reason: `${ranked.length} VERIFIED and tied on every criterion; the first in the plan's order` };
}
