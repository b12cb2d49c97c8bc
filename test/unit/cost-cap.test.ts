// How far a dollar cap reaches over the agents a run would use: refused when none reports dollars, the
// silent ones named when some do (a plain run's one agent, a best-of run's candidates' agents).
import { describe, expect, it } from 'vitest';
import { costCapCoverage, costCapProblem } from '../../src/agents/cost-cap.js';

const LABEL = 'elenchos.config.json';

describe('costCapCoverage', () => {
  it('a plain run whose one agent reports no dollars is refused, in one line naming the fix', () => {
    expect(costCapCoverage([{ name: 'default', type: 'codex' }], 1, LABEL)).toEqual({
      refusal:
        'elenchos.config.json: budget.maxCostUsd / --max-cost-usd 1 can never fire: agent.type "codex" reports no dollar cost; ' +
        'remove the cap, or bound the run with --max-minutes (budget.maxMinutes)',
      note: null,
    });
    expect(costCapProblem({ agent: { type: 'gemini' } as never, budget: { maxCostUsd: 2 } as never }, LABEL)).toContain(
      'agent.type "gemini" reports no dollar cost',
    );
  });

  it('several agents none of which reports dollars are refused together, each named', () => {
    const { refusal, note } = costCapCoverage(
      [
        { name: 'cx', type: 'codex' },
        { name: 'cx', type: 'codex' },
        { name: 'gem', type: 'gemini' },
      ],
      3,
      LABEL,
    );
    expect(refusal).toBe(
      'elenchos.config.json: budget.maxCostUsd / --max-cost-usd 3 can never fire: no agent of this run reports a dollar cost ' +
        '(cx (agent.type "codex"), gem (agent.type "gemini")); remove the cap, run an agent that reports dollars (claude, opencode), ' +
        'or bound the run with --max-minutes (budget.maxMinutes)',
    );
    expect(note).toBeNull();
  });

  it('when one agent reports dollars the cap can fire: no refusal, the silent ones named for the header', () => {
    expect(
      costCapCoverage(
        [
          { name: 'default', type: 'claude' },
          { name: 'cx', type: 'codex' },
        ],
        5,
        LABEL,
      ),
    ).toEqual({
      refusal: null,
      note: '--max-cost-usd 5 counts only the dollars of default: cx (agent.type "codex") reports no dollar cost, and its spend is not counted',
    });
    expect(
      costCapCoverage(
        [
          { name: 'oc', type: 'opencode' },
          { name: 'cx', type: 'codex' },
          { name: 'cmd', type: 'command' },
        ],
        5,
        LABEL,
      ).note,
    ).toBe(
      '--max-cost-usd 5 counts only the dollars of oc: cx (agent.type "codex"), cmd (agent.type "command") report no dollar cost, and their spend is not counted',
    );
  });

  it('says nothing without a cap, or when every agent reports dollars', () => {
    expect(costCapCoverage([{ name: 'default', type: 'codex' }], undefined, LABEL)).toEqual({ refusal: null, note: null });
    expect(
      costCapCoverage(
        [
          { name: 'default', type: 'claude' },
          { name: 'oc', type: 'opencode' },
        ],
        1,
        LABEL,
      ),
    ).toEqual({ refusal: null, note: null });
  });
});
