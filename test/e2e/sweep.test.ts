// The exploratory defect sweep (verifier.sweep) after a PASS: a confirmed product bug is a repairable
// FAIL quoted to the agent; anything else is a note beside the PASS; its credits count.
// @module-tag slow
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FAKE_KANE, makeProject, onlyRun } from '../helpers/project.js';

const attemptFile = (dir: string, n: number, name: string) =>
  readFileSync(path.join(dir, 'attempts', String(n).padStart(2, '0'), name), 'utf8');
const kane = (sweep: string) => ({
  type: 'kane',
  command: FAKE_KANE,
  timeoutSeconds: 30,
  env: { FAKE_KANE_SCENARIO: 'check-page', FAKE_KANE_SWEEP: sweep },
  sweep: { maxSteps: 12 },
});

describe.concurrent('verifier.sweep', { timeout: 180_000 }, () => {
  it('a confirmed bug after a PASS is a FAIL quoted to the agent, who repairs; the next sweep is clean: VERIFIED', async () => {
    const project = makeProject({ agent: 'implement-again', config: { verifier: kane('bug-once') } });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record.attempts.map((a: any) => a.status)).toEqual(['FAIL', 'PASS']);
    expect(record.attempts[0].summary).toBe(
      'the exploratory sweep found a confirmed product bug: The task counter shows one task too many',
    );
    expect(attemptFile(dir, 2, 'prompt.md')).toContain('After adding one task the counter says 2.');
    const first = JSON.parse(attemptFile(dir, 1, 'attempt.json'));
    expect(first.sweep).toMatchObject({ outcome: 'bug', credits: 3.25 });
    expect(first.sweep.objective).toContain('Explore the app at http://127.0.0.1:');
    expect(first.cost.kaneCredits).toBe(14.25); // 2 steps × 5.5 + the sweep's 3.25
    const argv = readFileSync(path.join(dir, 'attempts/01/verifier/sweep/events.ndjson'), 'utf8');
    expect(argv).toContain('"type":"run_end"');
  });

  it.each([
    ['unconfirmed', 'the sweep reported something it did not confirm (application_issue, citation verification failed: no screenshot)'],
    ['automation', 'the sweep reported something it did not confirm (automation_bug)'],
    ['error', 'the sweep gave no result (exit code 2: Controller auth failed'],
    ['clean', 'the sweep found nothing wrong'],
  ])('sweep result %s: the PASS stands, with a note', async (mode, note) => {
    const project = makeProject({ agent: 'implement', config: { verifier: kane(mode) } });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const { record } = onlyRun(project.root);
    expect(record.state).toBe('VERIFIED');
    expect(record.attempts[0].summary).toContain(note);
  });

  it('is off unless set: no sweep runs', async () => {
    const project = makeProject({
      agent: 'implement',
      config: { verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page', FAKE_KANE_SWEEP: 'bug' } } },
    });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    expect(JSON.parse(attemptFile(onlyRun(project.root).dir, 1, 'attempt.json')).sweep).toBeUndefined();
  });

  it('counts toward --max-kane-credits: a sweep that would pass the cap is not started', async () => {
    const project = makeProject({ agent: 'implement', config: { verifier: kane('clean') } });
    expect((await runMain(['run', 'tasks/add-task.json', '--max-kane-credits', '15'], project.root, project.env)).code).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'BUDGET_EXCEEDED' });
    expect(record.message).toContain('--max-kane-credits 15 (11 credits spent');
  });
});
