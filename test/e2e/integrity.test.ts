// Attacks on the verdict itself, end to end: processes that outlive the agent's turn, writes undone
// inside the verifier window, folders that look like a verifier's output. Synchronised on markers.
// @module-tag slow
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FAKE_KANE, FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const FAKE_VERIFIER = path.join(FIXTURES, 'bin/fake-verifier');
let roots: string[] = [];
let stray: number[] = [];
afterEach(() => {
  for (const pid of stray) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
  stray = [];
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

async function run(project: ReturnType<typeof makeProject>) {
  roots.push(project.root);
  return await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
}

const attemptJson = (dir: string, n = 1) => JSON.parse(readFileSync(path.join(dir, `attempts/0${n}/attempt.json`), 'utf8'));

describe("the agent's processes end with its turn", () => {
  it.each([
    ['setsid-daemon', ['marker', 'cwd']],
    ['scrubbed-daemon', ['cwd']],
    ['fd-daemon', ['open-file']],
  ])('a %s is gone before the app starts and is named in attempt.json', async (agent, found) => {
    const project = makeProject({ agent });
    const result = await run(project);
    const { dir, record } = onlyRun(project.root);
    const pidFile = path.join(dir, 'attempts/01/prompt.md.daemon.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    stray.push(pid);
    expect(result.code, result.stdout).toBe(0);
    expect(record.state).toBe('VERIFIED');
    expect(isAlive(pid)).toBe(false);
    const stopped = attemptJson(dir).stoppedProcesses;
    expect(stopped).toContainEqual(expect.objectContaining({ after: 'agent', pid, found: expect.arrayContaining(found) }));
    expect(stopped.find((p: { pid: number }) => p.pid === pid).command).toContain('setInterval');
    expect(result.stdout).toContain("outlived the agent's turn");
  });
});

describe('the verifier window', () => {
  it('ERROR UNSTABLE_WORKSPACE when a leftover process swaps the served page only while the verifier looks', async () => {
    const signals = tempDir('elenchos-signals-');
    const project = makeProject({
      agent: 'swap-during-verification',
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [path.join(FIXTURES, 'agents/fake-agent.js'), 'swap-during-verification'],
          env: { FAKE_SIGNAL_DIR: signals },
        },
        verifier: { type: 'command', command: FAKE_VERIFIER, env: { FAKE_SIGNAL_DIR: signals } },
        maxRepairAttempts: 0,
      },
    });
    const result = await run(project);
    stray.push(Number(readFileSync(path.join(signals, 'adversary.pid'), 'utf8')));
    // The adversary did act inside the window and put the page back before the verifier finished.
    expect(readdirSync(signals).sort()).toEqual([
      'adversary-acted',
      'adversary-done',
      'adversary-ready',
      'adversary.pid',
      'verifier-looked',
      'verifier-started',
    ]);
    expect(result.code, result.stdout).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toMatch(/written while the verifier looked: page\.html/);
  });

  it('ERROR UNSTABLE_WORKSPACE when a leftover process commits during verification (the snapshot sees HEAD move)', async () => {
    const signals = tempDir('elenchos-signals-');
    const project = makeProject({
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [path.join(FIXTURES, 'agents/fake-agent.js'), 'commit-during-verification'],
          env: { FAKE_SIGNAL_DIR: signals },
        },
        verifier: { type: 'command', command: FAKE_VERIFIER, env: { FAKE_SIGNAL_DIR: signals } },
      },
    });
    const result = await run(project);
    stray.push(Number(readFileSync(path.join(signals, 'adversary.pid'), 'utf8')));
    expect(result.code, result.stdout).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toMatch(/HEAD moved/);
  });
});

describe('only the folders Kane writes are left out', () => {
  it('ERROR UNSTABLE_WORKSPACE when the app writes public/helper-output-x/ during verification', async () => {
    const signals = tempDir('elenchos-signals-');
    const project = makeProject({
      agent: 'implement',
      config: {
        app: { command: 'node app.js --port {port}', env: { TINY_APP_MODE: 'helper-output', FAKE_SIGNAL_DIR: signals } },
        // Kane: the verifier whose helper-output folders are left out of the comparison.
        verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page', FAKE_SIGNAL_DIR: signals } },
      },
    });
    const result = await run(project);
    expect(existsSync(path.join(signals, 'adversary-acted'))).toBe(true);
    expect(result.code, result.stdout).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    // The watcher names the first path it saw created (the new folder); the snapshot would name the file.
    expect(record.message).toMatch(/written while the verifier looked: public\b/);
  });

  it('served content in a folder named helper-output-* is stored with the workspace and restore rebuilds it', async () => {
    const project = makeProject({ agent: 'helper-output-asset' });
    const result = await run(project);
    expect(result.code, result.stdout).toBe(0);
    const restored = await runMain(['restore', 'latest', '--to', 'restored'], project.root);
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(project.root, 'restored/public/helper-output-x/app.js'), 'utf8')).toBe('document.title = "Tasks";\n');
    gitSync(project.root, 'worktree', 'remove', '--force', 'restored');
  });
});

describe('the run decision', () => {
  it('verifier retries start again after a repair, and an exhausted INCONCLUSIVE says so', async () => {
    const signals = tempDir('elenchos-signals-');
    const project = makeProject({
      agent: 'never-fix',
      config: {
        verifier: {
          type: 'command',
          command: FAKE_VERIFIER,
          // agent → INCONCLUSIVE, reverify → FAIL (repair), agent → INCONCLUSIVE, reverify → INCONCLUSIVE.
          env: { FAKE_VERIFIER_MODES: 'truncated,check-page,truncated,truncated', FAKE_VERIFIER_COUNTER: path.join(signals, 'runs') },
        },
        maxRepairAttempts: 2,
        maxVerifierRetries: 1,
      },
    });
    const result = await run(project);
    expect(result.code, result.stdout).toBe(2);
    const { record } = onlyRun(project.root);
    expect(record.attempts.map((a: { kind: string; status: string }) => [a.kind, a.status])).toEqual([
      ['agent', 'INCONCLUSIVE'],
      ['reverify', 'FAIL'],
      ['agent', 'INCONCLUSIVE'],
      ['reverify', 'INCONCLUSIVE'],
    ]);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'INCONCLUSIVE' });
    expect(record.message).toBe('INCONCLUSIVE 2 time(s) in a row: the verifier exited 0 without a "done" event (its report is cut off)');
  });
});
