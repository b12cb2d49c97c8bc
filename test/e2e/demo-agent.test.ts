// The demo's scripted agent in a temp copy of demo/: a realistic bug on attempt 1, fixed when a repair
// prompt names the failed criterion; the Playwright verifier tells the two apart on the demo's own spec.
// @module-tag slow
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type RunningProcess } from '../../src/process/spawn.js';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { linkNodeModules, REPO_ROOT, verifyContext } from '../fixtures/playwright/verify-context.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const DEMO = path.join(REPO_ROOT, 'demo');
const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

/** A git repository holding a fresh copy of demo/, committed (node_modules linked and ignored). */
function demoRepo(): string {
  const dir = tempDir('elenchos-demo-');
  cpSync(DEMO, dir, { recursive: true, filter: (source) => !source.includes(`${path.sep}node_modules`) });
  linkNodeModules(dir);
  gitSync(dir, 'init', '-q', '-b', 'main');
  gitSync(dir, 'add', '-A');
  gitSync(dir, 'commit', '-q', '-m', 'demo');
  return dir;
}

/** Runs the agent the way `agent.type: "command"` does. */
function runAgent(repo: string, taskId: string, attempt: number, prompt: string) {
  const promptFile = path.join(tempDir('elenchos-prompt-'), 'prompt.md');
  writeFileSync(promptFile, prompt);
  const result = spawnSync(process.execPath, ['agent/agent.js'], {
    cwd: repo,
    input: prompt,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      ELENCHOS_TASK_FILE: path.join(repo, `tasks/${taskId}.json`),
      ELENCHOS_ATTEMPT: String(attempt),
      ELENCHOS_PROMPT_FILE: promptFile,
    },
  });
  return { code: result.status, out: result.stdout + result.stderr };
}

const apps: RunningProcess[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()));
});

/** Starts the demo app on a free port and resolves its URL once it listens. */
function startApp(repo: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const app = startProcess(process.execPath, ['app/server.js', '--port', '0'], {
      cwd: repo,
      env: { PATH: process.env.PATH },
      onStdoutLine: (line) => {
        const url = /listening on (http:\S+)/.exec(line)?.[1];
        if (url) resolve(url);
      },
    });
    apps.push(app);
    void app.done.then((r) => reject(new Error(`the demo app exited (${r.exitCode}): ${r.stderrTail}`)));
  });
}

async function verifyDemo(repo: string, taskId: string) {
  const task = JSON.parse(readFileSync(path.join(repo, `tasks/${taskId}.json`), 'utf8'));
  const url = await startApp(repo);
  const ctx = await verifyContext({
    cwd: repo,
    spec: task.verification.testFile,
    url,
    evidenceDir: path.join(tempDir('elenchos-demo-evidence-'), 'verifier'),
    criteria: task.acceptanceCriteria,
    args: ['--retries=0'],
  });
  const result = await playwrightAdapter.verify(ctx);
  await apps.pop()?.stop();
  return { result, statuses: Object.fromEntries(result.criteria.map((c) => [c.id, c.status])) };
}

const changedFiles = (repo: string) =>
  gitSync(repo, 'status', '--porcelain')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3))
    .sort();

// Generous limits: the verifier steps drive a real browser, and two-core CI machines get slow under load.
describe('demo agent', { timeout: 150_000 }, () => {
  let repo: string;
  beforeAll(() => {
    repo = demoRepo();
  });

  it('serves the committed app, which lacks the feature', async () => {
    const url = await startApp(repo);
    const html = await (await fetch(url)).text();
    expect(html).toContain('<h1>Todo</h1>');
    expect(html).not.toContain('Priority');
  });

  it('implements priority-badge on attempt 1 with an off-by-one default, touching only the app', () => {
    const { code, out } = runAgent(repo, 'priority-badge', 1, 'Implement the task.');
    expect(code, out).toBe(0);
    expect(out).toMatch(/\[demo-agent\] attempt 1: implementing/);
    expect(changedFiles(repo)).toEqual(['app/page.js', 'app/store.js']);
    expect(readFileSync(path.join(repo, 'app/store.js'), 'utf8')).toContain('PRIORITIES[2]');
  });

  it.runIf(hasChromium)('the Playwright verifier fails AC-003 only, on attempt-1 code', async () => {
    const { result, statuses } = await verifyDemo(repo, 'priority-badge');
    expect(result.status, result.summary).toBe('FAIL');
    expect(statuses).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS', 'AC-003': 'FAIL' });
    expect(result.findings[0]?.reason).toMatch(/Medium/);
  });

  it('changes nothing on a repair whose prompt names no failure it knows', () => {
    const { code, out } = runAgent(repo, 'priority-badge', 2, 'Please try again.');
    expect(code, out).toBe(0);
    expect(out).toMatch(/changing nothing/);
    expect(readFileSync(path.join(repo, 'app/store.js'), 'utf8')).toContain('PRIORITIES[2]');
  });

  it('fixes the default when the repair prompt reports AC-003 as failed', () => {
    const prompt =
      'Repair.\n\nPASS AC-001: ...\nFAIL AC-003: A task added without choosing a priority shows a "Medium" badge in the list\n  test 3: expected "Medium", received "High"\n';
    const { code, out } = runAgent(repo, 'priority-badge', 2, prompt);
    expect(code, out).toBe(0);
    expect(out).toMatch(/reports AC-003 as failed/);
    expect(readFileSync(path.join(repo, 'app/store.js'), 'utf8')).toContain('PRIORITIES[1]');
    expect(changedFiles(repo)).toEqual(['app/page.js', 'app/store.js']);
  });

  it.runIf(hasChromium)('the Playwright verifier passes every criterion on the fixed code', async () => {
    const { result, statuses } = await verifyDemo(repo, 'priority-badge');
    expect(result.status, result.summary).toBe('PASS');
    expect(statuses).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS', 'AC-003': 'PASS' });
    expect(changedFiles(repo)).toEqual(['app/page.js', 'app/store.js']);
  });

  it.runIf(hasChromium)('implements delete-task correctly at once (and add-task already passes)', async () => {
    const other = demoRepo();
    expect((await verifyDemo(other, 'add-task')).result.status).toBe('PASS');
    const { code, out } = runAgent(other, 'delete-task', 1, 'Implement the task.');
    expect(code, out).toBe(0);
    const { result } = await verifyDemo(other, 'delete-task');
    expect(result.status, result.summary).toBe('PASS');
  });

  it('refuses a task it does not know', () => {
    const other = demoRepo();
    writeFileSync(path.join(other, 'tasks/unknown.json'), JSON.stringify({ id: 'unknown', title: 'x' }));
    const { code, out } = runAgent(other, 'unknown', 1, '');
    expect(code).toBe(1);
    expect(out).toMatch(/beyond me/);
  });
});
