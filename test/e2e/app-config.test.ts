// Configuration mistakes are the user's, not the product's: an app that cannot come up on the
// unchanged base ends ERROR APP_BROKEN_ON_BASE, shows its log, and never costs a repair.
// @module-tag slow
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/process/free-port.js';
import { runMain, type CliRun } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { makeProject, onlyRun } from '../helpers/project.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

async function runProject(watch: (root: string) => string, project: ReturnType<typeof makeProject>, command = 'run') {
  watch(project.root);
  return await runMain([command, 'tasks/add-task.json'], project.root, project.env);
}

/** The run ended as the configuration's fault: ERROR APP_BROKEN_ON_BASE, one attempt, no repair prompt, no probe worktree left. */
function expectBrokenOnBase(project: ReturnType<typeof makeProject>, result: CliRun) {
  expect(result.code, result.stdout + result.stderr).toBe(2);
  const { dir, record } = onlyRun(project.root);
  expect(record).toMatchObject({ state: 'ERROR', reason: 'APP_BROKEN_ON_BASE' });
  expect(record.attempts.map((a: { status: string }) => a.status)).toEqual(['APP_FAILED']);
  expect(existsSync(path.join(dir, 'attempts/02'))).toBe(false);
  expect(leakedWorktrees(project.root)).toEqual([]);
  expect(result.stdout).toContain('APP_BROKEN_ON_BASE');
  return { dir, record };
}

describe.concurrent('elenchos run: an app that does not come up on the base either', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('exits early: ERROR APP_BROKEN_ON_BASE, its log in the terminal, show and the report, the agent dispatched once', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({
      agent: 'implement',
      config: { app: { command: 'node app.js --port {port}', env: { TINY_APP_MODE: 'exit-early' } } },
    });
    const result = await runProject(watch, project);
    const { dir, record } = expectBrokenOnBase(project, result);
    expect(record.message).toMatch(/does not come up on the unchanged base commit [0-9a-f]{12} either \(the app exited with code 3/);
    expect(record.message).toContain('the configuration or the environment is at fault');
    expect(result.stdout).toContain('    | tiny-app: cannot start: missing configuration (TINY_APP_MODE=exit-early)');
    expect(readFileSync(path.join(dir, 'attempts/01/base-probe/app.log'), 'utf8')).toContain('missing configuration');
    const show = await runMain(['show', 'latest'], project.root);
    expect(show.stdout).toContain('  app did not come up: the app exited with code 3');
    expect(show.stdout).toContain('  | tiny-app: cannot start: missing configuration (TINY_APP_MODE=exit-early)');
    expect(show.stdout).toContain('on the unchanged base commit it does not come up either');
    const report = await runMain(['report', 'latest'], project.root);
    expect(report.code).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    expect(html).toContain('<h3>The app did not come up</h3>');
    expect(html).toContain('tiny-app: cannot start: missing configuration (TINY_APP_MODE=exit-early)');
  });

  it('app.url on a fixed port the app does not listen on: ERROR APP_BROKEN_ON_BASE, not PRODUCT_FAILURE', async (ctx) => {
    const watch = leftoversOf(ctx);
    const [listens, waited] = [await freePort(), await freePort()];
    const project = makeProject({
      agent: 'implement',
      config: { app: { command: `node app.js --port ${listens}`, url: `http://127.0.0.1:${waited}/`, readyTimeoutSeconds: 2 } },
    });
    const result = await runProject(watch, project);
    const { record } = expectBrokenOnBase(project, result);
    expect(record.message).toContain(`http://127.0.0.1:${waited}/ did not become ready within app.readyTimeoutSeconds`);
    expect(result.stdout).toContain(`| tiny-app listening on ${listens}`);
  });

  it('never gets ready: ERROR APP_BROKEN_ON_BASE', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({
      agent: 'implement',
      config: { app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 2, env: { TINY_APP_MODE: 'never-ready' } } },
    });
    const result = await runProject(watch, project);
    const { record } = expectBrokenOnBase(project, result);
    expect(record.message).toContain('did not become ready within app.readyTimeoutSeconds (2s');
    expect(result.stdout).toContain('| tiny-app: warming up forever');
  });

  it('verify: the commit under test is the base, so no probe is needed', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({ config: { app: { command: 'node app.js --port {port}', env: { TINY_APP_MODE: 'exit-early' } } } });
    const result = await runProject(watch, project, 'verify');
    expect(result.code, result.stdout).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'APP_BROKEN_ON_BASE' });
    expect(record.message).toMatch(/the app did not come up on commit [0-9a-f]{12}, which no agent changed/);
    expect(existsSync(path.join(dir, 'attempts/01/base-probe'))).toBe(false);
  });
});

describe.concurrent('elenchos run: an app broken by the agent stays a product failure', { timeout: CONCURRENT_TIMEOUT }, () => {
  it("once the app came up in this run, a later failure to start is the change's: FAILED PRODUCT_FAILURE, no base probe", async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({ agent: 'buggy-then-break-app', config: { maxRepairAttempts: 1 } });
    const result = await runProject(watch, project);
    expect(result.code, result.stdout).toBe(1);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE' });
    expect(record.attempts.map((a: { status: string }) => a.status)).toEqual(['FAIL', 'FAIL']);
    expect(record.attempts[1].summary).toContain('the app did not start: the app exited with code 4');
    expect(existsSync(path.join(dir, 'attempts/02/base-probe'))).toBe(false);
    expect(result.stdout).toContain('| tiny-app: cannot start: the repair broke the start (attempt 2)');
  });
});

describe.concurrent('elenchos run and check: app.command and app.url must agree on the port', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('app.command ignoring {port} while app.url waits on it: refused before anything runs (exit 3)', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({ config: { app: { command: 'node app.js --port 3000' } } });
    const result = await runProject(watch, project);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'elenchos: elenchos.config.json: app.command "node app.js --port 3000" does not use {port}, but app.url waits on {port} (a free port each run); pass it to the app, e.g. "npm run dev -- --port {port}" or "PORT={port} npm start"\n',
    );
    expect(existsSync(path.join(project.root, '.elenchos/runs'))).toBe(false);
    const check = await runMain(['check', 'tasks/add-task.json'], project.root, project.env);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('✗ config elenchos.config.json');
    expect(check.stdout).toContain('app.command "node app.js --port 3000" does not use {port}');
  });

  it('the reverse, app.url on a fixed port while app.command takes {port}: refused by check and run', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({ config: { app: { command: 'node app.js --port {port}', url: 'http://127.0.0.1:3000/' } } });
    const check = await runMain(['check', 'tasks/add-task.json'], project.root, project.env);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('app.url "http://127.0.0.1:3000/" has no {port}, but app.command starts the app on {port}');
    expect((await runProject(watch, project)).code).toBe(3);
  });
});
