// What `show` and the HTML report say an agent spent (src/reporters/run-list.ts describeAgentSpend).
import { expect, it } from 'vitest';
import { describeAgentSpend } from '../../src/reporters/run-list.js';

const cost = (agentUsd: number | null, agentTurns: number, inputTokens: number, outputTokens: number, mode: 'run' | 'verify' = 'run') => ({
  mode,
  cost: { agentUsd, agentTurns, inputTokens, outputTokens, kaneCredits: 0 },
});

it('names dollars, turns and tokens when the agent reports dollars', () => {
  expect(describeAgentSpend(cost(0.0421, 4, 1200, 300), true)).toBe('agent $0.0421 (4 turn(s), 1200 input / 300 output tokens)');
  // A run of 0 dollars from an agent that reports them is measured: $0, not "no usage".
  expect(describeAgentSpend(cost(0, 0, 0, 0), true)).toBe('agent $0 (0 turn(s), 0 input / 0 output tokens)');
});

it('an agent with usage but no dollars (Codex) spent an unknown amount, not $0', () => {
  expect(describeAgentSpend(cost(0, 1, 1200, 300), false)).toBe('agent cost not reported (1 turn(s), 1200 input / 300 output tokens)');
});

it('an agent that reports nothing (a command agent) is not shown zeros as if they were measured', () => {
  expect(describeAgentSpend(cost(null, 0, 0, 0), false)).toBe('agent reported no cost nor usage');
  expect(describeAgentSpend(cost(0, 0, 0, 0), false)).toBe('agent reported no cost nor usage'); // records before null
});

it('a verify ran no agent: no zeros, no "$0"', () => {
  expect(describeAgentSpend(cost(0, 0, 0, 0, 'verify'), true)).toBe('no agent ran');
});
