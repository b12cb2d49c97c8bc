// The plan of several tasks and its shares (core/many/plan.ts), and one exit code for several runs
// (core/run/decide.ts worstExitCode): the same split on every machine, every entry in exactly one share.
import { describe, expect, it } from 'vitest';
import { buildPlan, describeEntry, samePlan, shareOfPlan } from '../../src/core/many/plan.js';
import { worstExitCode } from '../../src/core/run/decide.js';

describe('the plan and its shares', () => {
  it('is every task times every candidate, in order; plain runs without best-of', () => {
    expect(buildPlan(['a.json', 'b.json'], ['x-1', 'x-2']).map(describeEntry)).toEqual([
      'a.json x-1',
      'a.json x-2',
      'b.json x-1',
      'b.json x-2',
    ]);
    expect(buildPlan(['a.json', 'b.json'], null)).toEqual([
      { task: 'a.json', candidate: null },
      { task: 'b.json', candidate: null },
    ]);
  });

  it('splits into shares that are disjoint, cover the plan, and give each share a part of every task', () => {
    const plan = buildPlan(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], ['c-1', 'c-2']);
    for (const total of [1, 2, 3, 4, 5, 16, 20]) {
      const shares = Array.from({ length: total }, (_, i) => shareOfPlan(plan, { index: i + 1, count: total }));
      const all = shares.flat().map(describeEntry).sort();
      expect(all).toEqual(plan.map(describeEntry).sort());
      expect(new Set(all).size).toBe(plan.length);
    }
    const [one, two] = [1, 2].map((index) => shareOfPlan(plan, { index, count: 2 }));
    expect(one!.every((e) => e.candidate === 'c-1')).toBe(true);
    expect(two!.every((e) => e.candidate === 'c-2')).toBe(true);
    expect(samePlan(shareOfPlan(plan, { index: 2, count: 2 }), two!)).toBe(true);
    expect(samePlan(one!, two!)).toBe(false);
  });
});

describe('worstExitCode', () => {
  it('is 0 only when every code is 0 and there is one; else the worst: 130, 3, 4, 2, 1', () => {
    expect(worstExitCode([0, 0])).toBe(0);
    expect(worstExitCode([])).toBe(2);
    expect(worstExitCode([0, 1])).toBe(1);
    expect(worstExitCode([1, 2, 0])).toBe(2);
    expect(worstExitCode([2, 4])).toBe(4);
    expect(worstExitCode([4, 3, 2])).toBe(3);
    expect(worstExitCode([3, 130, 0])).toBe(130);
  });
});
