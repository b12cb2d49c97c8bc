// Cost accounting and caps end to end: attempts record what the agent and Kane reported, run.json
// totals it, and a cap ends the run ERROR BUDGET_EXCEEDED before the step that would pass it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun } from '../helpers/project.js';

const attempt = (dir: string, n: number) =>
  JSON.parse(readFileSync(path.join(dir, 'attempts', String(n).padStart(2, '0'), 'attempt.json'), 'utf8'));

describe.concurrent('cost accounting and caps', { timeout: 180_000 }, () => {
  it('--max-kane-credits ends the run before a verification would pass it, with the evidence kept', async () => {
    const project = makeProject({ agent: 'buggy-then-fix' });
    const result = await runMain(['run', 'tasks/add-task.json', '--max-kane-credits', '15'], project.root, project.env);
    expect(result.code).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'BUDGET_EXCEEDED' });
    expect(record.message).toBe(
      'the next verifier step would pass --max-kane-credits 15 (11 credits spent, the last verification used 11)',
    );
    // Attempt 1 verified (2 steps × 5.5 credits) and failed; attempt 2's agent worked, its verification never started.
    expect(attempt(dir, 1).cost).toMatchObject({ kaneCredits: 11 });
    expect(attempt(dir, 2)).toMatchObject({ verifier: null, terminal: { reason: 'BUDGET_EXCEEDED' } });
    expect(record.cost).toMatchObject({ kaneCredits: 11 });
    expect((await runMain(['evidence', 'verify', record.runId], project.root)).code).toBe(0);
    expect((await runMain(['runs'], project.root)).stdout).toContain('BUDGET_EXCEEDED');
    expect((await runMain(['runs'], project.root)).stdout).toContain('  11 credits');
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain('Kane 11 credit(s)');
  });

  it("records the agent's cost, turns and tokens, and --max-cost-usd stops a repair that would pass it", async () => {
    const project = makeProject({
      config: {
        agent: { type: 'claude', command: path.join(FIXTURES, 'bin/claude'), timeoutSeconds: 30, env: { FAKE_CLAUDE_COST_USD: '0.3' } },
        verifier: {
          type: 'kane',
          command: path.join(FIXTURES, 'bin/kane-cli'),
          timeoutSeconds: 30,
          env: { FAKE_KANE_SCENARIO: 'product-fail:2' },
        },
      },
    });
    const result = await runMain(['run', 'tasks/add-task.json', '--max-cost-usd', '0.5'], project.root, project.env);
    expect(result.code).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({
      state: 'ERROR',
      reason: 'BUDGET_EXCEEDED',
      message: 'the next agent step would pass --max-cost-usd 0.5 ($0.3 spent, the last one cost $0.3)',
    });
    expect(attempt(dir, 1).cost).toEqual({ agentUsd: 0.3, agentTurns: 4, inputTokens: 3000, outputTokens: 640, kaneCredits: 11 });
    expect(record.cost).toEqual({ agentUsd: 0.3, agentTurns: 4, inputTokens: 3000, outputTokens: 640, kaneCredits: 11 });
    expect(record.attempts).toHaveLength(2);
  });

  it('a cap in the config works like the flag, and a bad flag value is a usage error', async () => {
    const project = makeProject({ agent: 'buggy-then-fix', config: { budget: { maxKaneCredits: 15 } } });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(2);
    expect(onlyRun(project.root).record.reason).toBe('BUDGET_EXCEEDED');
    expect(await runMain(['run', 'tasks/add-task.json', '--max-cost-usd', '-1'], project.root, project.env)).toMatchObject({ code: 3 });
  });
});
