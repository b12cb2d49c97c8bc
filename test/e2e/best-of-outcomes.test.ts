// Best-of runs that do not simply end with a winner: none VERIFIED (how far each got), a candidate that
// tampers (the task needs a human, as after a plain run), and a whole-run cap (the rest stopped).
// @module-tag slow
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { leftoversOf } from '../helpers/leftovers.js';
import { commandAgent, FIXTURES, GIT_IDENTITY, makeProject, onlyRun } from '../helpers/project.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const agent = commandAgent;

/** Several candidates take a while on a loaded machine (in-process: the case's own timeout bounds it). */
const runLong = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runMain(args, cwd, env);

function project(watch: (root: string) => string, config: Record<string, unknown>) {
  const made = makeProject({ config });
  watch(made.root);
  return { ...made, env: { ...made.env, ...GIT_IDENTITY } };
}

const own = (dir: string, name: string) => JSON.parse(readFileSync(path.join(dir, 'candidates', name, 'run.json'), 'utf8'));

describe.concurrent('best-of outcomes', { timeout: 300_000 }, () => {
  it('no candidate VERIFIED: FAILED, no winner, and show and the report give each one criterion by criterion', async (ctx) => {
    const watch = leftoversOf(ctx);
    // never-fix gets AC-001 (the form) and never AC-002 (the item); forget-button misses the form, the first
    // step, so Kane stops there and AC-002 stays UNVERIFIED.
    const p = project(watch, { agents: { items: agent('never-fix'), form: agent('forget-button') } });
    const result = await runLong(
      ['run', 'tasks/add-task.json', '--agents', 'items,form', '--parallel', '2', '--max-repairs', '0'],
      p.root,
      p.env,
    );
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const { record } = onlyRun(p.root);
    expect(record).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE', winner: null });
    expect(record.message).toBe('no candidate VERIFIED: items FAILED (PRODUCT_FAILURE), form FAILED (PRODUCT_FAILURE)');
    const byName = Object.fromEntries(record.candidates.map((c: any) => [c.name, c]));
    expect(byName.items.criteria).toEqual([
      { id: 'AC-001', status: 'PASS' },
      { id: 'AC-002', status: 'FAIL' },
    ]);
    expect(byName.form.criteria).toEqual([
      { id: 'AC-001', status: 'FAIL' },
      { id: 'AC-002', status: 'UNVERIFIED' },
    ]);
    expect(result.stdout).toContain('no candidate VERIFIED');

    const shown = await runMain(['show', record.runId], p.root, p.env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('no winner: no candidate was VERIFIED');
    expect(shown.stdout).toMatch(/ {3}items +FAILED PRODUCT_FAILURE .*AC-001 PASS, AC-002 FAIL\n/);
    expect(shown.stdout).toMatch(/ {3}form +FAILED PRODUCT_FAILURE .*AC-001 FAIL, AC-002 UNVERIFIED\n/);
    expect(shown.stdout).not.toContain('★');

    expect((await runMain(['report', record.runId], p.root, p.env)).code).toBe(0);
    const html = readFileSync(path.join(p.root, `.elenchos/reports/${record.runId}.html`), 'utf8');
    expect(html).toContain('no winner: no candidate was VERIFIED');
    const row = (id: string, a: string, b: string) =>
      `<tr><th>${id}</th><td><span class="s ${a}">${a}</span></td><td><span class="s ${b}">${b}</span></td></tr>`;
    expect(html).toContain(row('AC-001', 'PASS', 'FAIL'));
    expect(html).toContain(row('AC-002', 'FAIL', 'UNVERIFIED'));

    const apply = await runMain(['apply', record.runId], p.root, p.env);
    expect(apply.code).toBe(3);
    expect(leakedWorktrees(p.root)).toEqual([]);
  });

  it('a candidate that edits the test flags the task NEEDS_HUMAN, as a plain run would, even though another won', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, { agents: { honest: agent('implement'), cheat: agent('edit-test') } });
    const result = await runLong(['run', 'tasks/add-task.json', '--agents', 'honest,cheat', '--parallel', '2', '--json'], p.root, p.env);
    const record = JSON.parse(result.stdout);
    expect(record.winner?.name).toBe('honest');
    expect(record.tampering).toBe(true);
    const cheat = record.candidates.find((c: any) => c.name === 'cheat');
    expect(cheat).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED', tampering: true });
    expect(own(onlyRun(p.root).dir, 'cheat')).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED', tampering: true });

    const refused = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^elenchos: tasks\/add-task\.json: NEEDS_HUMAN \(1 reason\(s\)\)/);
    expect(refused.stderr).toContain(
      `run ${record.runId} caught tampering (candidate cheat: CONTRACT_CHANGED): the contract changed: tests/add-task_test.md changed in the worktree`,
    );
    expect((await runMain(['runs'], p.root)).stdout).toMatch(/NEEDS_HUMAN add-task: run \S+ caught tampering \(candidate cheat/);
    expect((await runMain(['show', 'latest'], p.root)).stdout).toContain('NEEDS_HUMAN: task add-task gets no agent until a person looks');
    // A best-of run of the flagged task is refused the same way, before any candidate exists.
    const again = await runLong(['run', 'tasks/add-task.json', '--agents', 'honest,cheat'], p.root, p.env);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('NEEDS_HUMAN');
  });

  it('--max-cost-usd over the whole run (a fake claude reporting $0.30 a turn): BUDGET_EXCEEDED, the rest stopped, nothing left running', async (ctx) => {
    const watch = leftoversOf(ctx);
    const claude = { type: 'claude', command: path.join(FIXTURES, 'bin/claude'), timeoutSeconds: 30, env: { FAKE_CLAUDE_COST_USD: '0.3' } };
    const p = project(watch, {
      agent: claude,
      // Step 2 always fails: every candidate needs a repair, and the second turn of anyone passes $0.50.
      verifier: {
        type: 'kane',
        command: path.join(FIXTURES, 'bin/kane-cli'),
        timeoutSeconds: 30,
        env: { FAKE_KANE_SCENARIO: 'product-fail:2' },
      },
    });
    const result = await runLong(
      ['run', 'tasks/add-task.json', '--best-of', '3', '--parallel', '2', '--max-cost-usd', '0.5', '--json'],
      p.root,
      p.env,
    );
    expect(result.code, result.stderr).toBe(2);
    const record = JSON.parse(result.stdout);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'BUDGET_EXCEEDED', winner: null });
    const [one, two, three] = record.candidates;
    // The two that ran were each refused a step by the whole run's totals (one $0.30 turn alone is under the cap).
    for (const c of [one, two]) {
      expect(c).toMatchObject({ state: 'ERROR', reason: 'BUDGET_EXCEEDED' });
      // An agent turn (the next one would pass it) or a verification (two first turns together already did).
      expect(c.message).toMatch(/^the next (agent|verifier) step would pass --max-cost-usd 0\.5 \(\$0\.[36] spent/);
      expect(own(onlyRun(p.root).dir, c.name)).toMatchObject({ state: 'ERROR', reason: 'BUDGET_EXCEEDED' });
    }
    // The third never started: the cap already refused its first turn.
    expect(three).toMatchObject({ state: 'STOPPED', reason: 'BUDGET_EXCEEDED', attempts: 0, startedAt: null });
    expect(three.message).toMatch(/^not started: the next agent step would pass --max-cost-usd 0\.5/);
    expect(existsSync(path.join(onlyRun(p.root).dir, 'candidates', three.name))).toBe(false);
    // At most one $0.30 turn each of the two (K = 2 first turns may start together): never a third.
    expect(record.cost.agentUsd).toBeGreaterThanOrEqual(0.3);
    expect(record.cost.agentUsd).toBeLessThanOrEqual(0.6);
    expect((await runMain(['evidence', 'verify', record.runId], p.root, p.env)).code).toBe(0);
    expect(leakedWorktrees(p.root)).toEqual([]);
    // afterEach: no process left inside the repository.
  });
});
