// The git starts a warm `verify` task no longer makes (docs/performance.md, "third pass"), each attacked
// as a leftover process or a planted commit would: the check that still runs must catch it.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { release, startCli, waitForFile } from '../helpers/live-cli.js';
import { makeProject, onlyRun } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const PASSING_PAGE = '<h1>Tasks</h1>\n<form>New task</form>\n<ul><li>Buy milk</li></ul>\n';

describe("a verify's first attempt does not list hidden files again", () => {
  it(
    'a file hidden (skip-worktree) and rewritten right after the baseline is still caught: UNSTABLE_WORKSPACE',
    { timeout: 120_000 },
    async () => {
      // The committed page fails the test; something still running as the user hides page.html from
      // git and writes the passing page exactly between the hidden-files baseline and the first attempt.
      const project = makeProject();
      const pause = tempDir('elenchos-pause-');
      const cli = startCli(['verify', 'tasks/add-task.json', '--json'], project.root, {
        ...project.env,
        ELENCHOS_TEST_PAUSE_AT: 'baseline',
        ELENCHOS_TEST_PAUSE_DIR: pause,
      });
      await waitForFile(path.join(pause, 'baseline.reached'));
      const workspaces = path.join(project.root, '.elenchos/workspaces');
      const [runId] = readdirSync(workspaces);
      const workspace = path.join(workspaces, runId!);
      gitSync(workspace, 'update-index', '--skip-worktree', 'page.html');
      writeFileSync(path.join(workspace, 'page.html'), PASSING_PAGE);
      release(pause, 'baseline');
      const code = await cli.exited;
      const { record } = onlyRun(project.root);
      expect(record, JSON.stringify(cli.output())).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
      expect(record.message).toContain('the workspace can no longer be measured');
      expect(code).not.toBe(0);
    },
  );

  it('the same hide with no rewrite is named by the check after the verifier', { timeout: 120_000 }, async () => {
    const project = makeProject();
    const pause = tempDir('elenchos-pause-');
    const cli = startCli(['verify', 'tasks/add-task.json', '--json'], project.root, {
      ...project.env,
      ELENCHOS_TEST_PAUSE_AT: 'baseline',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'baseline.reached'));
    const workspaces = path.join(project.root, '.elenchos/workspaces');
    const [runId] = readdirSync(workspaces);
    gitSync(path.join(workspaces, runId!), 'update-index', '--assume-unchanged', 'page.html');
    release(pause, 'baseline');
    await cli.exited;
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toContain('files hidden from git status (assume-unchanged / skip-worktree): page.html');
  });
});
