import { describe, expect, it } from 'vitest';
import { BudgetTracker } from '../../src/core/run/budget.js';

const MIN = 60_000;

describe('BudgetTracker', () => {
  it('lets everything through without caps, and sums what was spent', () => {
    const b = new BudgetTracker({}, 0);
    expect(b.gate('agent', 0)).toBeNull();
    expect(b.recordAgent({ costUsd: 0.5, turns: 3, tokens: { input: 100, output: 20 }, durationMs: 1000 })).toEqual({
      agentUsd: 0.5,
      agentTurns: 3,
      inputTokens: 100,
      outputTokens: 20,
    });
    b.recordVerifier(11, 1000);
    b.recordAgent({ costUsd: null, turns: null, durationMs: 1000 });
    b.recordVerifier(null, 1000);
    expect(b.totals()).toEqual({ agentUsd: 0.5, agentTurns: 3, inputTokens: 100, outputTokens: 20, kaneCredits: 11 });
    expect(b.gate('verifier', 999 * MIN)).toBeNull();
  });

  it.each([
    ['cost: spent already at the cap', { maxCostUsd: 1 }, [1], 'agent', /would pass --max-cost-usd 1 \(\$1 spent/],
    [
      'cost: the last dispatch again would pass it',
      { maxCostUsd: 1 },
      [0.6],
      'agent',
      /--max-cost-usd 1 \(\$0\.6 spent, the last one cost \$0\.6\)/,
    ],
    ['cost: room for one more like the last', { maxCostUsd: 1 }, [0.4], 'agent', null],
    ['cost: an unknown cost never trips it', { maxCostUsd: 1 }, [null], 'agent', null],
  ] as const)('%s', (_what, caps, costs, next, expected) => {
    const b = new BudgetTracker(caps, 0);
    for (const c of costs) b.recordAgent({ costUsd: c, turns: 1, durationMs: 10 });
    const said = b.gate(next, 0);
    if (expected === null) expect(said).toBeNull();
    else expect(said).toMatch(expected);
  });

  it('credits: a verification that would pass the cap is refused, and the first one (nothing known) is not', () => {
    const b = new BudgetTracker({ maxKaneCredits: 15 }, 0);
    expect(b.gate('verifier', 0)).toBeNull();
    b.recordVerifier(11, 1000);
    expect(b.gate('agent', 0)).toBeNull(); // the agent spends no credits
    expect(b.gate('verifier', 0)).toBe(
      'the next verifier step would pass --max-kane-credits 15 (11 credits spent, the last verification used 11)',
    );
  });

  it('minutes: refused once spent, or when the last step of that kind would not fit', () => {
    const b = new BudgetTracker({ maxMinutes: 10 }, 0);
    expect(b.gate('agent', 9 * MIN)).toBeNull();
    expect(b.gate('agent', 10 * MIN)).toMatch(/would pass --max-minutes 10 \(10\.0 min spent\)/);
    b.recordAgent({ costUsd: null, turns: null, durationMs: 3 * MIN });
    expect(b.gate('agent', 6 * MIN)).toBeNull();
    expect(b.gate('agent', 7.5 * MIN)).toBe('the next agent step would pass --max-minutes 10 (7.5 min spent, about 10.5 after it)');
    expect(b.gate('verifier', 7.5 * MIN)).toBeNull(); // no verification measured yet
  });
});
