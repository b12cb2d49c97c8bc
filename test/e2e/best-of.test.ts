// `elenchos run --agents a,b` / `--best-of N`: several candidates on one locked contract; the verifier's
// verdicts choose the winner by the stated rule, and `apply` takes it.
// @module-tag slow
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { commandAgent, GIT_IDENTITY, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { release, startCli, waitForFile } from '../helpers/live-cli.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';
// @ts-expect-error a plain JS fixture shared with the fake agent
import { seededDraw } from '../fixtures/agents/seeded-draw.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

const GOOD = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';
const agent = commandAgent;

/** Several candidates take a while on a loaded machine (in-process: the case's own timeout bounds it). */
const runLong = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runMain(args, cwd, env);

function project(config: Record<string, unknown>) {
  const made = makeProject({ config });
  roots.push(made.root);
  return { ...made, env: { ...made.env, ...GIT_IDENTITY } };
}

describe('elenchos run --agents / --best-of', { timeout: 300_000 }, () => {
  it('two agents, one never fixes AC-002, one fixes it after a repair: VERIFIED, the fixer wins with its reason, both evidenced, apply takes its change', async () => {
    const p = project({ agents: { lazy: agent('never-fix'), fixer: agent('buggy-then-fix') } });
    const result = await runLong(
      ['run', 'tasks/add-task.json', '--agents', 'lazy,fixer', '--parallel', '2', '--max-repairs', '1'],
      p.root,
      p.env,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\[lazy\] /);
    expect(result.stdout).toMatch(/\[fixer\] /);
    expect(result.stdout).toContain('winner: fixer — the only VERIFIED candidate of 2');
    const { dir, record } = onlyRun(p.root);
    expect(record.state).toBe('VERIFIED');
    expect(record.winner).toEqual({ name: 'fixer', reason: 'the only VERIFIED candidate of 2' });
    const byName = Object.fromEntries(record.candidates.map((c: any) => [c.name, c]));
    expect(byName.lazy).toMatchObject({ agent: 'lazy', state: 'FAILED', reason: 'PRODUCT_FAILURE', attempts: 2 });
    expect(byName.lazy.criteria).toEqual([
      { id: 'AC-001', status: 'PASS' },
      { id: 'AC-002', status: 'FAIL' },
    ]);
    expect(byName.fixer).toMatchObject({ agent: 'fixer', state: 'VERIFIED', reason: null, attempts: 2 });
    expect(byName.fixer.change).toMatchObject({ attempt: 2, files: 1 });
    expect(byName.fixer.change.size).toBeGreaterThan(0);
    for (const c of record.candidates) {
      expect(c.durationMs).toBeGreaterThan(0);
      expect(c.cost).not.toBeNull();
      // Each candidate is a whole run: its own sealed record, two attempts with agent log, verifier output and stored change.
      const cdir = path.join(dir, c.dir);
      const own = JSON.parse(readFileSync(path.join(cdir, 'run.json'), 'utf8'));
      expect(own.runId).toBe(c.runId);
      expect(own.state).toBe(c.state);
      expect(own.contract).toEqual(record.contract);
      expect(existsSync(path.join(cdir, 'manifest.json'))).toBe(true);
      expect(readdirSync(path.join(cdir, 'attempts')).sort()).toEqual(['01', '02']);
      for (const n of ['01', '02']) {
        for (const file of ['attempt.json', 'agent.log', 'prompt.md', 'workspace/diff.patch', 'verifier/events.ndjson'])
          expect(existsSync(path.join(cdir, 'attempts', n, file)), `${c.name} ${n}/${file}`).toBe(true);
      }
      // Its own worktree: the agent ran there, never in another candidate's.
      const seen = JSON.parse(readFileSync(path.join(cdir, 'attempts/01/prompt.md.seen.json'), 'utf8'));
      expect(seen.cwd).toBe(path.join(p.root, '.elenchos/workspaces', c.runId));
      expect(seen.env.ELENCHOS_CANDIDATE).toBe(c.name);
    }
    // One seal over the whole folder, and it holds.
    const verified = await runMain(['evidence', 'verify', record.runId], p.root, p.env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const shown = await runMain(['show', record.runId, '--json'], p.root, p.env);
    expect(JSON.parse(shown.stdout).candidates.map((c: any) => c.attempts.length)).toEqual([2, 2]);
    const listed = await runMain(['runs', '--json'], p.root, p.env);
    expect(JSON.parse(listed.stdout).runs).toHaveLength(1);
    expect((await runMain(['runs'], p.root, p.env)).stdout).toContain('best of 2, winner fixer');
    const human = (await runMain(['show', record.runId], p.root, p.env)).stdout;
    expect(human).toContain('winner: fixer — the only VERIFIED candidate of 2');
    expect(human).toMatch(
      /── candidate lazy ──[\s\S]*attempt 2 \(agent\) → FAIL[\s\S]*── candidate fixer ──[\s\S]*attempt 2 \(agent\) → PASS/,
    );
    const report = await runMain(['report', record.runId], p.root, p.env);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(path.join(p.root, `.elenchos/reports/${record.runId}.html`), 'utf8');
    expect(html).toContain('<h2>Candidates</h2>');
    expect(html).toContain('winner <b>fixer</b>');
    // Side by side: AC-002 failed for lazy and passed for fixer, in one row; each candidate's change is shown.
    expect(html).toMatch(
      /<tr><th>AC-002<\/th><td><span class="s FAIL">FAIL<\/span><\/td><td><span class="s PASS">PASS<\/span><\/td><\/tr>/,
    );
    expect(html).toContain('<h2>Candidate lazy <span class="s FAILED">FAILED</span></h2>');
    expect(html.match(/its change \(attempt 2, the one apply takes\)/g)).toHaveLength(2);
    expect(html).toContain('+&lt;h1&gt;Tasks&lt;/h1&gt;&lt;form&gt;New task&lt;/form&gt;&lt;ul&gt;&lt;li&gt;Buy milk');

    const refused = await runMain(['apply', record.runId, '--candidate', 'lazy'], p.root, p.env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('candidate lazy is FAILED (PRODUCT_FAILURE), not VERIFIED');
    const applied = await runMain(['apply', record.runId], p.root, p.env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(path.join(p.root, 'page.html'), 'utf8')).toBe(GOOD);
    expect(gitSync(p.root, 'status', '--porcelain').trim()).toBe('M page.html');
    expect(leakedWorktrees(p.root)).toEqual([]);
  });

  it('--best-of 3 with an agent that succeeds at random (seeded per candidate): VERIFIED, the smallest change of the lucky ones wins', async () => {
    const seed = 1;
    const lucky = [1, 2, 3].filter((i) => seededDraw(seed, i));
    expect(lucky).toEqual([2, 3]); // the draw this test is about: one unlucky, two lucky with different change sizes
    const p = project({ agent: agent('seeded', String(seed)) });
    const result = await runLong(['run', 'tasks/add-task.json', '--best-of', '3', '--max-repairs', '1', '--json'], p.root, p.env);
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.candidates.map((c: any) => [c.name, c.state, c.attempts])).toEqual([
      ['default-1', 'FAILED', 2],
      ['default-2', 'VERIFIED', 1],
      ['default-3', 'VERIFIED', 1],
    ]);
    const [, two, three] = record.candidates;
    expect(two.change.size).toBeLessThan(three.change.size);
    expect(record.winner.name).toBe('default-2');
    expect(record.winner.reason).toBe(
      `2 VERIFIED; attempts tied (1 attempt(s)); smallest change: ${two.change.size} line(s)/byte(s) changed, the next best (default-3) ${three.change.size} line(s)/byte(s) changed`,
    );
    const applied = await runMain(['apply', record.runId, '--candidate', 'default-3'], p.root, p.env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(path.join(p.root, 'page.html'), 'utf8')).toContain('<!-- padding -->'.repeat(1));
    expect(readFileSync(path.join(p.root, 'page.html'), 'utf8').split('<!-- padding -->').length - 1).toBe(3);
  });

  it('--stop-at-first: once one is VERIFIED the hanging one is stopped (STOPPED), nothing left running', async () => {
    const p = project({ agents: { fast: agent('implement'), slow: agent('hang') } });
    const result = await runLong(
      ['run', 'tasks/add-task.json', '--agents', 'slow,fast', '--parallel', '2', '--stop-at-first', '--json'],
      p.root,
      p.env,
    );
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.winner.name).toBe('fast');
    const slow = record.candidates.find((c: any) => c.name === 'slow');
    expect(slow).toMatchObject({ state: 'STOPPED', reason: null, message: 'stopped: fast was VERIFIED first (--stop-at-first)' });
    // The hanging agent ran (its prompt exists) and was stopped before its 30 s timeout.
    expect(slow.durationMs).toBeLessThan(25_000);
    // Its own sealed record says so too (it said ERROR INTERRUPTED "interrupted (Ctrl-C)"); the winner's says VERIFIED.
    const { dir } = onlyRun(p.root);
    const own = (name: string) => JSON.parse(readFileSync(path.join(dir, 'candidates', name, 'run.json'), 'utf8'));
    expect(own('slow')).toMatchObject({ state: 'ERROR', reason: 'STOPPED', message: 'stopped: fast was VERIFIED first (--stop-at-first)' });
    expect(own('fast')).toMatchObject({ state: 'VERIFIED', reason: null });
    expect((await runMain(['evidence', 'verify', record.runId], p.root, p.env)).code).toBe(0);
    expect(leakedWorktrees(p.root)).toEqual([]);
    // afterEach: no process left inside the repository.
  });

  it('--stop-at-first: a candidate that was already VERIFIED when the stop reached it (held before sealing) stays VERIFIED', async () => {
    const p = project({ agents: { early: agent('implement'), late: agent('implement'), slow: agent('hang') } });
    const pause = tempDir('elenchos-pause-');
    // late is held before sealing (after its verdict); early after its verdict too, until late got there.
    const cli = startCli(['run', 'tasks/add-task.json', '--agents', 'early,late,slow', '--parallel', '3', '--stop-at-first'], p.root, {
      ...p.env,
      ELENCHOS_TEST_PAUSE_AT: 'sealing@late,teardown@early',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'sealing.reached'), 240_000);
    expect(cli.output().stdout).not.toContain('candidate early: VERIFIED');
    release(pause, 'teardown');
    // early VERIFIED first: the others are stopped in the same turn of the event loop that prints this line.
    await cli.waitFor('elenchos: candidate early: VERIFIED', 240_000);
    release(pause, 'sealing');
    expect(await cli.exited, cli.output().stdout + cli.output().stderr).toBe(0);
    const { dir, record } = onlyRun(p.root);
    const byName = Object.fromEntries(record.candidates.map((c: any) => [c.name, c]));
    expect(byName.early.state).toBe('VERIFIED');
    expect(byName.late).toMatchObject({ state: 'VERIFIED', reason: null });
    expect(byName.slow).toMatchObject({ state: 'STOPPED', message: 'stopped: early was VERIFIED first (--stop-at-first)' });
    const own = (name: string) => JSON.parse(readFileSync(path.join(dir, 'candidates', name, 'run.json'), 'utf8'));
    // Before: late's own record was sealed ERROR INTERRUPTED and the run counted it STOPPED.
    expect(own('late')).toMatchObject({ state: 'VERIFIED', reason: null });
    expect(own('slow')).toMatchObject({ state: 'ERROR', reason: 'STOPPED' });
    // Two VERIFIED: the rule chooses between them as usual.
    expect(record.winner.reason).toMatch(/^2 VERIFIED; attempts tied/);
    expect(leakedWorktrees(p.root)).toEqual([]);
  });

  it('refuses an agent the config does not define, naming the fix (exit 3)', async () => {
    const p = project({ agents: { fixer: agent('implement') } });
    const result = await runLong(['run', 'tasks/add-task.json', '--agents', 'fixer,ghost'], p.root, p.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      '--agents names "ghost", which agents does not define; add agents.ghost, or pick one of: default, fixer',
    );
    expect(existsSync(path.join(p.root, '.elenchos/runs'))).toBe(false);
  });
});
