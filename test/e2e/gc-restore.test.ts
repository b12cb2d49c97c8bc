// A run killed outright is recognised and cleaned by gc; an attempt's tree comes back with restore.
// @module-tag slow
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runMain } from '../helpers/cli.js';
import { killWithWatchdog } from '../helpers/live-cli.js';
import { FAKE_AGENT, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

describe.concurrent('elenchos gc', { timeout: 180_000 }, () => {
  it('marks a SIGKILLed run ERROR ABANDONED and removes its worktree, keeping the evidence', async () => {
    const project = makeProject({
      config: { agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'hang'], timeoutSeconds: 600 } },
    });
    const child = spawn(process.execPath, [BIN, 'run', 'tasks/add-task.json'], {
      cwd: project.root,
      env: { ...process.env, ...project.env },
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`agent never started:\n${out}`)), 20_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('thinking forever')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    killWithWatchdog(child.pid!); // power loss: no teardown runs, and no watchdog stops the children
    await exited;
    // The hanging agent outlived Elenchos (its own group): gc must stop it.
    expect(processesInside(project.root).length).toBeGreaterThan(0);

    const before = onlyRun(project.root);
    expect(before.record.state).toBe('RUNNING');
    expect(readdirSync(path.join(project.root, '.elenchos/workspaces'))).toHaveLength(1);
    // `runs` and `show` say the run is not running any more, and what seals it.
    expect((await runMain(['runs'], project.root)).stdout).toContain(
      `not running: its process (pid ${child.pid}) is gone; elenchos gc seals it ABANDONED`,
    );
    expect((await runMain(['show', 'latest'], project.root)).stdout).toContain(
      `never finished: its process (pid ${child.pid}) is gone; elenchos gc`,
    );

    const dry = await runMain(['gc', '--dry-run'], project.root);
    expect(dry.stdout).toContain(`would mark ${before.record.runId} ERROR ABANDONED`);
    expect(dry.stdout).toMatch(/would stop process \d+ of /);
    expect(processesInside(project.root).length).toBeGreaterThan(0);
    expect(onlyRun(project.root).record.state).toBe('RUNNING');

    const gc = await runMain(['gc'], project.root);
    expect(gc.code).toBe(0);
    // A line per step on stderr, as each starts; what was done on stdout.
    expect(gc.stderr.split('\n').filter((l) => l.startsWith('… '))).toEqual([
      '… looking at 1 stored run(s) and 1 worktree(s)',
      '… looking for processes whose elenchos is gone',
      '… removing worktrees no live run owns',
      '… trimming the warm worktree pool and the setup cache',
    ]);
    expect(gc.stdout).toContain(`marked ${before.record.runId} ERROR ABANDONED (its process is gone)`);
    expect(gc.stdout).toMatch(new RegExp(`stopped process \\d+ of ${before.record.runId}`));
    expect(processesInside(project.root)).toEqual([]);
    const after = onlyRun(project.root);
    expect(after.record).toMatchObject({ state: 'ERROR', reason: 'ABANDONED' });
    expect(existsSync(path.join(after.dir, 'attempts/01/agent.log'))).toBe(true);
    expect(readdirSync(path.join(project.root, '.elenchos/workspaces'))).toEqual([]);
    expect(leakedWorktrees(project.root)).toEqual([]);
    expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
    expect((await runMain(['gc'], project.root)).stdout).toBe('nothing to clean\n');
  });
});

describe.concurrent('elenchos restore', { timeout: 180_000 }, () => {
  it("recreates each attempt's exact tree from the stored workspace", async () => {
    const project = makeProject({ agent: 'buggy-then-fix' });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const first = await runMain(['restore', 'latest', '--attempt', '1', '--to', 'restored-1'], project.root);
    expect(first.code, first.stderr).toBe(0);
    const last = await runMain(['restore', 'latest'], project.root);
    expect(last.code, last.stderr).toBe(0);
    expect(readFileSync(path.join(project.root, 'restored-1/page.html'), 'utf8')).toBe('<h1>Tasks</h1><form>New task</form><ul></ul>\n');
    const lastDir = last.stdout.match(/ at (\S+) \(base/)![1]!;
    expect(readFileSync(path.join(lastDir, 'page.html'), 'utf8')).toContain('<li>Buy milk</li>');
    expect(await runMain(['restore', 'latest', '--attempt', '7'], project.root)).toMatchObject({ code: 3 });
    gitSync(project.root, 'worktree', 'remove', '--force', 'restored-1');
    gitSync(project.root, 'worktree', 'remove', '--force', lastDir);
  });
});
