// Which tasks count: a commit that only narrows the config's `tasks` to the passing ones leaves every lock
// and every test as it was, and `check`, `verify` and `attest verify` passed it while a locked task still
// failed. A task whose lock is in the commit (or in --lock-base) cannot leave the set in silence.
// @module-tag slow
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const LEFT_OUT =
  'tasks/add-task.json: its test lock tasks/add-task.lock.json is in the commit, but elenchos.config.json "tasks" no longer selects it, so it would not be verified';

/** Two locked tasks on a page where `form` passes and `add-task` fails; returns the project and the locked commit. */
async function lockedProject() {
  const project = makeProject({ config: { verifier: KANE_CHECK_PAGE }, files: { ...FORM_PAGE, ...FORM_TASK } });
  const locked = await runMain(['lock'], project.root, project.env);
  expect(locked.code, locked.stdout + locked.stderr).toBe(0);
  gitSync(project.root, 'add', '-A');
  gitSync(project.root, 'commit', '-q', '-m', 'lock the tests');
  return { ...project, base: gitSync(project.root, 'rev-parse', 'HEAD').trim() };
}

/** Commits a config whose `tasks` names only the passing task. */
function narrow(root: string): void {
  const file = path.join(root, 'elenchos.config.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), tasks: ['tasks/form.json'] }, null, 2));
  gitSync(root, 'commit', '-q', '-am', 'agent: only the tasks that pass');
}

describe.concurrent('a locked task cannot leave the set of tasks verified', { timeout: 120_000 }, () => {
  it('check and verify refuse a commit that narrows the config’s tasks, naming the task', async () => {
    const { root, env } = await lockedProject();
    expect((await runMain(['verify'], root, env)).code).toBe(1); // the control: add-task fails on this page
    narrow(root);
    const check = await runMain(['check'], root, env);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain(LEFT_OUT);
    const verify = await runMain(['verify'], root, env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(3);
    expect(verify.stderr).toContain(LEFT_OUT);
    expect(verify.stderr).not.toMatch(/at .*\.js:\d+/);
    // Naming the tasks on the command line is a choice, not a silent narrowing.
    expect((await runMain(['verify', 'tasks/form.json'], root, env)).code).toBe(0);
  });

  it('with --lock-base, a lock deleted along with the narrowing still counts', async () => {
    const { root, env, base } = await lockedProject();
    narrow(root);
    rmSync(path.join(root, 'tasks/add-task.lock.json'));
    gitSync(root, 'commit', '-q', '-am', 'agent: drop its lock too');
    expect((await runMain(['verify'], root, env)).code).toBe(0); // nothing in this commit says add-task was locked
    const verify = await runMain(['verify', '--lock-base', base], root, env);
    expect(verify.code).toBe(3);
    expect(verify.stderr).toContain(`tasks/add-task.json: its test lock tasks/add-task.lock.json is in ${base}`);
    const check = await runMain(['check', '--lock-base', base], root, env);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain(`is in ${base}`);
  });

  it('attest verify refuses an attestation of a commit that dropped a locked task from the config', async () => {
    const { root, env } = await lockedProject();
    narrow(root);
    const keys = path.join(tempDir('elenchos-keys-'), 'keys');
    expect((await runMain(['attest', 'keygen', '--out', keys], root)).code).toBe(0);
    const attestation = path.join(keys, 'verify.att.json');
    const made = await runMain(
      ['verify', 'tasks/form.json', '--json', '--attest', attestation, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      root,
      env,
    );
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const checked = await runMain(['attest', 'verify', attestation, '--key', path.join(keys, 'elenchos-attest.pub')], root, env);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(
      'attestation refused (tasks): tasks/add-task.json is locked at ' +
        `${gitSync(root, 'rev-parse', 'HEAD').trim()} (tasks/add-task.lock.json) but not in the config's task set`,
    );
  });
});
