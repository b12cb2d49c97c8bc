// NEEDS_HUMAN end to end: tampering or a run of failures flags the task in runs, show, report and
// verify --json; `run` refuses it until `elenchos ack` records who looked.
// @module-tag slow
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { makeProject } from '../helpers/project.js';

describe.concurrent('NEEDS_HUMAN', { timeout: 180_000 }, () => {
  it('a run that caught tampering flags the task until someone acknowledges it', async () => {
    const project = makeProject({ agent: 'edit-test' });
    const env = { ...project.env, GIT_AUTHOR_NAME: '', GIT_COMMITTER_NAME: '' };
    const first = await runMain(['run', 'tasks/add-task.json'], project.root, env);
    expect(first.code).toBe(2);

    const refused = await runMain(['run', 'tasks/add-task.json'], project.root, env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /^elenchos: tasks\/add-task\.json: NEEDS_HUMAN \(1 reason\(s\)\); read the evidence \(elenchos show \S+\), then elenchos ack tasks\/add-task\.json/,
    );
    expect(refused.stderr).toContain(
      'caught tampering (CONTRACT_CHANGED): the contract changed: tests/add-task_test.md changed in the worktree',
    );
    expect(readdirSync(path.join(project.root, '.elenchos/runs'))).toHaveLength(1); // refused before any run exists

    expect((await runMain(['runs'], project.root)).stdout).toMatch(/NEEDS_HUMAN\n[\s\S]*NEEDS_HUMAN add-task: run \S+ caught tampering/);
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      'NEEDS_HUMAN: task add-task gets no agent until a person looks (elenchos ack tasks/add-task.json):',
    );
    const report = await runMain(['report', 'latest'], project.root);
    expect(report.code).toBe(0);
    const html = readFileSync(report.stdout.trim().split(' ').at(-1)!, 'utf8');
    expect(html).toContain('<span class="s NEEDS_HUMAN">NEEDS_HUMAN</span>');
    const verify = await runMain(['verify', '--json', 'tasks/add-task.json'], project.root, env);
    expect(JSON.parse(verify.stdout).runs[0].needsHuman.reasons[0]).toContain('caught tampering (CONTRACT_CHANGED)');

    const acked = await runMain(
      ['ack', 'tasks/add-task.json', '--by', 'Ada <ada@example.com>', '--note', 'the agent edited the test; fixed the prompt'],
      project.root,
    );
    expect(acked.code).toBe(0);
    expect(acked.stdout).toMatch(
      /^acknowledged tasks\/add-task\.json \(runs up to \S+\) by Ada <ada@example\.com>; kept in \.elenchos\/acks\/add-task\/\S+\.json\n {2}was: run \S+ caught tampering/,
    );
    const ackDir = path.join(project.root, '.elenchos/acks/add-task');
    const stored = JSON.parse(readFileSync(path.join(ackDir, readdirSync(ackDir)[0]!), 'utf8'));
    expect(stored).toMatchObject({ taskId: 'add-task', by: 'Ada <ada@example.com>', note: 'the agent edited the test; fixed the prompt' });

    expect(await runMain(['ack', 'tasks/add-task.json'], project.root)).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('does not need a human'),
    });
    const again = await runMain(['run', 'tasks/add-task.json'], project.root, env);
    expect(again.code).toBe(2); // the same agent tampers again: the run happens, and flags the task anew
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, env)).code).toBe(3);
  }, 240_000);

  it('N agent runs in a row ending FAILED flag the task (needsHuman.afterFailedRuns)', async () => {
    const project = makeProject({ agent: 'never-fix', config: { maxRepairAttempts: 0, needsHuman: { afterFailedRuns: 2 } } });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(1);
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(1);
    const refused = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('the last 2 agent runs ended FAILED or ERROR');
    // verify (no agent) is not refused: CI still reports on the committed code
    expect((await runMain(['verify', 'tasks/add-task.json'], project.root, project.env)).code).toBe(1);
  }, 240_000);
});
