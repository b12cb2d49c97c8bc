// `elenchos run` end to end: real git repos and worktrees, a real HTTP app, the scripted fake agent and fake kane-cli.
// @module-tag slow
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { BIN, runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { FAKE_KANE, FIXTURES, TEST_MD, checkoutFingerprint, makeProject, onlyRun } from '../helpers/project.js';
import { gitSync, taskJson, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

/**
 * The case's `run`: the main checkout is byte-identical afterwards (except .elenchos/ and the exclude entry),
 * and when the case ends no process of any run survives it (app, agent, verifier, background helpers).
 */
function runOf(ctx: TestContext) {
  const watch = leftoversOf(ctx);
  const run = async (project: ReturnType<typeof makeProject>, args: string[] = []) => {
    watch(project.root);
    const before = checkoutFingerprint(project.root);
    const head = gitSync(project.root, 'rev-parse', 'HEAD');
    const result = await runMain(['run', 'tasks/add-task.json', ...args], project.root, project.env);
    expect(checkoutFingerprint(project.root)).toEqual(before);
    expect(gitSync(project.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
    return result;
  };
  return { run, watch };
}

const statuses = (record: Record<string, any>) => record.attempts.map((a: any) => a.status);
const criteria = (attempt: any) => Object.fromEntries(attempt.criteria.map((c: any) => [c.id, c.status]));

describe.concurrent('elenchos run', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('VERIFIED in one attempt when the agent implements the task', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'implement' });
    const result = await run(project);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({
      schemaVersion: 1,
      mode: 'run',
      state: 'VERIFIED',
      reason: null,
      task: { id: 'add-task', file: 'tasks/add-task.json' },
    });
    expect(statuses(record)).toEqual(['PASS']);
    expect(criteria(record.attempts[0])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS' });
    expect(record.contract.files.map((f: any) => f.role)).toEqual(['task', 'task-canonical', 'test']);
    // Progress was live: phases and each Kane step.
    expect(result.stdout).toMatch(/attempt 1\n/);
    // The step number once, no @verifies tag (the evidence keeps Kane's heading, below).
    expect(result.stdout).toMatch(/\[kane\] ✓ step 2 the task is listed( \(\d+(\.\d+)?s\))?\n/);
    expect(result.stdout).not.toContain('step 2 Step 2');
    expect(result.stdout).toContain('VERIFIED');
    // Evidence layout, and the worktree is gone.
    for (const file of [
      'manifest.json',
      'attempts/01/attempt.json',
      'attempts/01/agent.log',
      'attempts/01/app.log',
      'attempts/01/verifier/events.ndjson',
      'attempts/01/workspace/diff.patch',
      'attempts/01/workspace/base.txt',
    ]) {
      expect(existsSync(path.join(dir, file)), file).toBe(true);
    }
    expect(readFileSync(path.join(dir, 'attempts/01/workspace/diff.patch'), 'utf8')).toContain('+<h1>Tasks</h1><form>New task</form>');
    expect(readFileSync(path.join(dir, 'attempts/01/verifier/events.ndjson'), 'utf8')).toContain(
      'Step 2 — the task is listed @verifies AC-002',
    );
    expect(readdirSync(path.join(project.root, '.elenchos/workspaces'))).toEqual([]);
    expect(leakedWorktrees(project.root)).toEqual([]);
    expect(readFileSync(path.join(project.root, '.git/info/exclude'), 'utf8')).toContain('.elenchos/');
  });

  it('repairs: buggy first, fixed on the repair prompt → VERIFIED on attempt 2', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'buggy-then-fix' });
    const result = await run(project);
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record.state).toBe('VERIFIED');
    expect(statuses(record)).toEqual(['FAIL', 'PASS']);
    expect(criteria(record.attempts[0])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    const prompt = readFileSync(path.join(dir, 'attempts/02/prompt.md'), 'utf8');
    expect(prompt).toContain('- FAIL AC-002: criterion 2');
    expect(prompt).toMatch(/verdict: application_issue\/\w+, confirmed, severity \w+, confidence [\d.]+/);
    expect(prompt).toContain('Criteria that passed (keep them passing): AC-001.');
    // The stored evidence reads back through `runs` and `show`.
    const runs = await runMain(['runs'], project.root);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(new RegExp(`^${record.runId}  VERIFIED +run +add-task +2 attempt\\(s\\)`));
    const show = await runMain(['show', record.runId.slice(0, 20)], project.root);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('attempt 1 (agent) → FAIL');
    expect(show.stdout).toContain('  FAIL       AC-002  step 2    criterion 2 — product failure at step 2');
    expect(show.stdout).toMatch(/verdict: application_issue\/ui_data_defect, confirmed/);
    expect(JSON.parse((await runMain(['show', 'latest', '--json'], project.root)).stdout).attempts).toHaveLength(2);
  });

  it.for(['claude', 'codex'])('VERIFIED with the %s agent adapter, its result kept in attempt.json', async (type, ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ config: { agent: { type, command: path.join(FIXTURES, 'bin', type), timeoutSeconds: 30 } } });
    const result = await run(project);
    expect(result.code, result.stdout).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record.tools.agent).toBe(type);
    const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
    expect(attempt.agent).toMatchObject(type === 'claude' ? { ok: true, costUsd: 0.0421, turns: 4 } : { ok: true, turns: 1 });
  });

  it('repairs to VERIFIED with a command verifier speaking the Elenchos protocol', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({
      agent: 'buggy-then-fix',
      config: { verifier: { type: 'command', command: path.join(FIXTURES, 'bin/fake-verifier') } },
    });
    const result = await run(project);
    expect(result.code, result.stdout).toBe(0);
    const { record } = onlyRun(project.root);
    expect(record.attempts.map((a: any) => a.status)).toEqual(['FAIL', 'PASS']);
    expect(result.stdout).toMatch(/\[command\] ✓ step 2 the task is listed( \(\d+(\.\d+)?s\))?\n/);
  });

  it('FAILED after 1 + maxRepairAttempts when the agent never fixes it', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'never-fix' });
    const result = await run(project);
    expect(result.code).toBe(1);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE' });
    expect(statuses(record)).toEqual(['FAIL', 'FAIL', 'FAIL']);
  });

  it('a repair that changes nothing ends the run FAILED (REPAIR_UNCHANGED)', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'no-change-on-repair' });
    const result = await run(project);
    expect(result.code).toBe(1);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'FAILED', reason: 'REPAIR_UNCHANGED' });
    expect(statuses(record)).toEqual(['FAIL', 'NOT_VERIFIED']);
  });

  it.for([
    ['edit-test', 'tests/add-task_test.md changed in the worktree'],
    ['edit-task', 'tasks/add-task.json changed in the worktree'],
    ['add-variables-file', '.testmuai/variables/override.json appeared in the worktree'],
  ] as [string, string][])('ERROR CONTRACT_CHANGED at once when the agent does %s', async ([agent, message], ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent });
    const result = await run(project);
    expect(result.code).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED' });
    expect(record.message).toContain(message);
    expect(record.attempts).toHaveLength(1);
  });

  it('ERROR UNSTABLE_WORKSPACE when the agent hides a change from git (skip-worktree)', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'hide-from-git' });
    const result = await run(project);
    expect(result.code).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toContain('files hidden from git status (assume-unchanged / skip-worktree): page.html');
  });

  it('the app rewriting the test with the same bytes during verification (a dev server regenerating a file) is no change', async (ctx) => {
    const { run } = runOf(ctx);
    const signals = tempDir('elenchos-signals-');
    const project = makeProject({
      agent: 'implement',
      config: {
        // The app rewrites the test once the verifier has started; the verifier waits for that (markers).
        app: { command: 'node app.js --port {port}', env: { TINY_APP_MODE: 'touch-test', FAKE_SIGNAL_DIR: signals } },
        verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page', FAKE_SIGNAL_DIR: signals } },
      },
    });
    const result = await run(project);
    const { record } = onlyRun(project.root);
    expect(record.state, result.stdout).toBe('VERIFIED');
    expect(result.code).toBe(0);
  });

  it('a git-ignored variables file reaches the worktree through setup.copy and is locked like the rest', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({
      agent: 'implement',
      config: { setup: { copy: ['.testmuai/variables/secrets.json'] } },
      files: { '.gitignore': '.testmuai/variables/secrets.json\n', '.testmuai/variables/.keep': '' },
    });
    writeFileSync(path.join(project.root, '.testmuai/variables/secrets.json'), '{"password":{"value":"hunter22","secret":true}}');
    const result = await run(project);
    expect(result.code, result.stdout).toBe(0);
    const { record } = onlyRun(project.root);
    expect(record.contract.files.map((f: any) => [f.path, f.role])).toContainEqual(['.testmuai/variables/secrets.json', 'variables']);
  });

  it('ERROR AGENT_TIMEOUT when the agent hangs, and its process group is gone', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({
      agent: 'hang',
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [path.resolve('test/fixtures/agents/fake-agent.js'), 'hang'],
          timeoutSeconds: 1,
        },
      },
    });
    const result = await run(project);
    expect(result.code).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'AGENT_TIMEOUT' });
  });

  it('verifier error twice → ERROR VERIFIER_ERROR, re-verified without a second agent dispatch', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'implement', scenario: 'infra-error:1' });
    const result = await run(project);
    expect(result.code).toBe(2);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'VERIFIER_ERROR' });
    expect(record.attempts.map((a: any) => [a.kind, a.status])).toEqual([
      ['agent', 'VERIFIER_ERROR'],
      ['reverify', 'VERIFIER_ERROR'],
    ]);
    expect(existsSync(path.join(dir, 'attempts/02/agent.log'))).toBe(false);
  });

  it("an app broken by the agent's change (it starts on the base) is a repairable product failure", async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'break-app-then-fix' });
    const result = await run(project);
    expect(result.code, result.stdout).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(statuses(record)).toEqual(['FAIL', 'PASS']);
    expect(record.attempts[0].summary).toContain('the app did not start: the app exited with code 4');
    const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
    expect(attempt.app.baseProbe).toMatchObject({ ok: true });
    expect(readFileSync(path.join(dir, 'attempts/02/prompt.md'), 'utf8')).toContain('syntax error in the new route (the agent broke it)');
    expect(result.stdout).toContain('| tiny-app: cannot start: syntax error in the new route (the agent broke it)');
    expect(result.stdout).toContain("the app comes up on the base commit: the agent's change broke it");
  });

  it('never passes verifier credentials to the agent, and redacts them from evidence', async (ctx) => {
    const { run } = runOf(ctx);
    const project = makeProject({ agent: 'implement' });
    project.env.LT_ACCESS_KEY = 'lt-secret-access-key-123';
    project.env.LT_USERNAME = 'kane-user';
    const result = await run(project);
    expect(result.code).toBe(0);
    const { dir } = onlyRun(project.root);
    const seen = readFileSync(path.join(dir, 'attempts/01/prompt.md.seen.json'), 'utf8');
    expect(seen).not.toContain('lt-secret-access-key-123');
    expect(JSON.parse(seen).env.LT_ACCESS_KEY).toBeUndefined();
    expect(JSON.parse(seen).env.ELENCHOS_ATTEMPT).toBe('1');
    const argv = readdirSync(path.join(dir, 'attempts/01/verifier'));
    expect(argv).toContain('events.ndjson');
  });
});

describe.concurrent('elenchos run refuses before a run exists (exit 3, no run created)', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('a dirty main checkout, listing the paths', async (ctx) => {
    const { watch } = runOf(ctx);
    const project = makeProject();
    watch(project.root);
    writeFileSync(path.join(project.root, 'scratch.txt'), 'x');
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'elenchos: the working tree is not clean (scratch.txt); commit or stash these changes first: the agent works on HEAD\n',
    );
    expect(existsSync(path.join(project.root, '.elenchos/runs'))).toBe(false);
  });

  it('outside a git repository', async () => {
    const project = makeProject();
    const outside = path.dirname(project.root);
    const result = await runMain(['run', path.join(project.root, 'tasks/add-task.json')], outside, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/is not inside a git repository; run elenchos from your project's checkout\n$/);
  });

  it('a criterion that no step verifies (it could never be VERIFIED)', async () => {
    const project = makeProject({ files: { 'tasks/add-task.json': taskJson({}, 3) } });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      [
        'elenchos: tasks/add-task.json: the criteria do not map onto the test (1 problem(s)); elenchos check tasks/add-task.json shows the mapping',
        '  tasks/add-task.json: criterion AC-003 is verified by no step; add "@verifies AC-003" to the step that checks it in tests/add-task_test.md',
        '',
      ].join('\n'),
    );
    expect(existsSync(path.join(project.root, '.elenchos/runs'))).toBe(false);
  });

  it('a verifier input that is not committed, or an @import helper that does not exist', async () => {
    const project = makeProject({ files: { '.testmuai/variables/.keep': '' } });
    writeFileSync(path.join(project.root, '.testmuai/variables/local.json'), '{}');
    gitSync(project.root, 'add', '.testmuai/variables/local.json');
    gitSync(project.root, 'commit', '-qm', 'vars');
    writeFileSync(path.join(project.root, '.git/info/exclude'), '.testmuai/variables/ignored.json\n');
    writeFileSync(path.join(project.root, '.testmuai/variables/ignored.json'), '{}');
    const notCommitted = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(notCommitted.code).toBe(3);
    expect(notCommitted.stderr).toBe(
      'elenchos: .testmuai/variables/ignored.json: the verifier reads it but it is not committed, so the worktree would not have it; commit it, or list it in setup.copy if it must stay git-ignored\n',
    );

    const missing = makeProject({ files: { 'tests/add-task_test.md': `${TEST_MD}\n## Step 3 — log in\n@import ./helpers/login.md\n` } });
    const result = await runMain(['run', 'tasks/add-task.json'], missing.root, missing.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'elenchos: tests/helpers/login.md: tests/add-task_test.md needs it (the verifier reads it) but it does not exist; create and commit it, or fix the reference\n',
    );
    expect(existsSync(path.join(missing.root, '.elenchos/runs'))).toBe(false);
  });

  it('a verifier executable that cannot be found', async () => {
    const project = makeProject({ config: { verifier: { type: 'kane', command: 'kane-cli-not-installed' } } });
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'elenchos: verifier executable "kane-cli-not-installed" not found (verifier.type kane); install it with `npm install -g @testmuai/kane-cli` or set verifier.command\n',
    );
  });
});

describe.concurrent('elenchos run: the app URL', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('ERROR APP_URL_IN_USE when something already serves the URL', async (ctx) => {
    const { watch } = runOf(ctx);
    const http = await import('node:http');
    const server = http.createServer((_q, r) => r.end('someone else')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const project = makeProject({ config: { app: { command: 'node app.js --port {port}', port } } });
      watch(project.root);
      const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
      expect(result.code).toBe(2);
      const { record } = onlyRun(project.root);
      expect(record).toMatchObject({ state: 'ERROR', reason: 'APP_URL_IN_USE' });
      expect(record.message).toContain(`http://127.0.0.1:${port}/ already answers (HTTP 200)`);
    } finally {
      server.close();
    }
  });
});

describe.concurrent('elenchos run: Ctrl-C', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('the first SIGINT stops children, records ERROR INTERRUPTED, removes the worktree and exits 130', async (ctx) => {
    const { watch } = runOf(ctx);
    const project = makeProject({
      agent: 'hang',
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [path.resolve('test/fixtures/agents/fake-agent.js'), 'hang'],
          timeoutSeconds: 600,
        },
      },
    });
    watch(project.root);
    const child = spawn(process.execPath, [BIN, 'run', 'tasks/add-task.json'], {
      cwd: project.root,
      env: { ...process.env, ...project.env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`agent never started:\n${out}`)), 20_000);
      child.stdout.on('data', () => {
        if (out.includes('thinking forever')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect(readdirSync(path.join(project.root, '.elenchos/workspaces'))).toEqual([]);
    // The interrupted attempt is listed with its prompt and logs.
    expect(record.attempts).toMatchObject([{ number: 1, kind: 'agent', status: 'NOT_VERIFIED' }]);
    expect((await runMain(['runs'], project.root)).stdout).toContain('1 attempt(s)');
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      'attempt 1 (agent) → NOT_VERIFIED: interrupted (Ctrl-C): children stopped, evidence kept',
    );
    expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
  });
});
