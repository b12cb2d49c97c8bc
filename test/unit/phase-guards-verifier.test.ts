// The guards after the verifier, at phase level: a verifier double attacks the worktree while it "looks",
// and the post-checks' finding is read from the attempt's record. The attack rows of the end-to-end guard
// tests (the app or the verifier is the agent's code), without a CLI process or an app: the phases run in
// this process on a real repository, worktree and baselines.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, closeAfterEach, phaseRun, type PhaseRun } from '../helpers/phase-context.js';
import { gitSync } from '../helpers/temp.js';

let run: PhaseRun | null = null;
const { strays } = closeAfterEach();

describe('the guards after the verifier (phase level, doubles)', () => {
  it('an honest verifier: the attempt is its PASS, and the window, the process scan and the pinned inputs stood', async () => {
    run = await phaseRun({ verifier: async () => undefined });
    const { record } = await run.attempt();
    expect(record.terminal).toBeNull();
    expect(record.status).toBe('PASS');
    expect(record.guards).toMatchObject({ windowWatch: { stood: true }, processScan: { stood: true }, inputsPinned: { stood: true } });
    expect(record.stoppedProcesses).toEqual([]);
  });

  it('the repository moved while the verifier looked: UNSTABLE_WORKSPACE, naming the path and app.writes', async () => {
    run = await phaseRun({
      verifier: async ({ cwd }) => void writeFileSync(path.join(cwd, 'app.js'), '// rewritten while the verifier looked\n'),
    });
    const { record } = await run.attempt();
    expect(record.terminal).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.terminal?.message).toMatch(/^the workspace was written while the verifier looked: app\.js .*app\.writes/);
  });

  it('a new file while the verifier looked: UNSTABLE_WORKSPACE', async () => {
    run = await phaseRun({ verifier: async ({ cwd }) => void writeFileSync(path.join(cwd, 'planted.txt'), 'x\n') });
    const { record } = await run.attempt();
    expect(record.terminal).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.terminal?.message).toContain('planted.txt');
  });

  it('a locked file (the test) rewritten while the verifier read it: CONTRACT_CHANGED, tampering', async () => {
    run = await phaseRun({
      verifier: async ({ cwd, testFile }) => {
        expect(testFile).toBe(path.join(cwd, 'tests/add-task_test.md'));
        appendFileSync(testFile, '\n## Step 3 — nothing to check\n\nDo nothing.\n');
      },
    });
    const { record } = await run.attempt();
    expect(record.terminal).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED', tampering: true });
    expect(record.terminal?.message).toContain('tests/add-task_test.md');
  });

  it('a locked file rewritten with the bytes it had: no change, the PASS stands (judged by content)', async () => {
    run = await phaseRun({
      verifier: async ({ testFile }) => void writeFileSync(testFile, readFileSync(testFile)),
    });
    const { record } = await run.attempt();
    expect(record.terminal).toBeNull();
    expect(record.status).toBe('PASS');
  });

  it("git's own settings changed while the verifier looked: UNSTABLE_WORKSPACE, and the setting is put back", async () => {
    run = await phaseRun({
      verifier: async () => {
        gitSync(run!.root, 'config', 'core.fsmonitor', 'touch /tmp/elenchos-fsmonitor-ran');
      },
    });
    const { record } = await run.attempt();
    expect(record.terminal).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.terminal?.message).toMatch(/^something during verification changed git's own settings/);
    expect(() => gitSync(run!.root, 'config', '--get', 'core.fsmonitor')).toThrow(); // put back: unset again
  });

  it('a file hidden from git while the verifier looked (skip-worktree, then edited): the workspace cannot be measured', async () => {
    run = await phaseRun({
      verifier: async ({ cwd }) => {
        gitSync(cwd, 'update-index', '--skip-worktree', 'app.js');
        writeFileSync(path.join(cwd, 'app.js'), '// hidden edit\n');
      },
    });
    const { record } = await run.attempt();
    expect(record.terminal).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE', tampering: true });
    expect(record.terminal?.message).toMatch(/^the workspace could not be measured after verification: .*app\.js/);
  });

  it('a process the verifier left running in the worktree (its own session): found by its cwd and stopped', async () => {
    let pid = 0;
    run = await phaseRun({
      verifier: async ({ cwd }) => {
        const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { cwd, detached: true, stdio: 'ignore' });
        child.unref();
        pid = child.pid!;
        strays.push(pid);
      },
    });
    const { record } = await run.attempt();
    expect(record.stoppedProcesses).toEqual([
      expect.objectContaining({ after: 'verification', pid, found: expect.arrayContaining(['cwd']) }),
    ]);
    expect(alive(pid)).toBe(false);
  });
});
