// No child outlives a dead Elenchos: a SIGKILL runs no handler of ours, so the watchdog
// (src/process/watchdog.ts) stops what we started; and `gc` stops what carries the owner tag of an
// Elenchos that is gone, where the watchdog could not (killed with it). Synchronised on pid files.
// @module-tag slow
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { processesOwnedBy, startCli, waitForFile, waitUntil, watchdogsOf } from '../helpers/live-cli.js';
import { FAKE_AGENT, FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { taskJson, tempDir, tempRepo } from '../helpers/temp.js';

const IDLE_CHILD = path.join(FIXTURES, 'bin/idle-child');
let stray: number[] = [];
afterEach(() => {
  // A failed assertion must not leave its processes to the next test; a passing test left none.
  const left = stray.filter(alive);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  stray = [];
  expect(left, 'processes left running').toEqual([]);
});

/** Alive and not a zombie (a reparented child may wait a moment for init to reap it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe('a SIGKILLed elenchos leaves no child running', () => {
  it('a `playwright test --list` that never ends (elenchos check), and what it started outside its group', async () => {
    const pidFile = path.join(tempDir('elenchos-pids-'), 'listing.pid');
    const root = tempRepo({
      'tasks/add-task.json': taskJson({ verification: { testFile: 'tests/add-task.spec.ts' } }),
      'tests/add-task.spec.ts': "import { test } from '@playwright/test';\ntest('heading @AC-001 @AC-002', async () => {});\n",
      'elenchos.config.json': JSON.stringify({
        verifier: { type: 'playwright', command: `${process.execPath} ${IDLE_CHILD}`, env: { IDLE_CHILD_PID_FILE: pidFile } },
      }),
    });
    const cli = startCli(['check', 'tasks/add-task.json'], root);
    await waitForFile(pidFile);
    const [listing, escaped] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number) as [number, number];
    stray.push(listing, escaped);
    // It is the listing, stuck: the case of the issue (eight of them idle for 25-40 minutes).
    expect(readFileSync(`/proc/${listing}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--list', '--reporter=json']));
    const elenchos = cli.child.pid!;
    expect(watchdogsOf(elenchos)).toHaveLength(1);

    cli.child.kill('SIGKILL'); // no handler of ours runs
    await cli.exited;
    await waitUntil(() => !alive(listing), 'the listing still runs after its elenchos died');
    await waitUntil(() => !alive(escaped), 'the process that left the listing’s group still runs');
    await waitUntil(() => watchdogsOf(elenchos).length === 0, 'the watchdog outlived its job');
    expect(processesOwnedBy(elenchos)).toEqual([]);
    expect(processesInside(root)).toEqual([]);
  });

  it('the agent of a run, killed mid-turn; then gc has no process left to stop', { timeout: 60_000 }, async () => {
    const project = makeProject({
      config: { agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'hang'], timeoutSeconds: 600 } },
    });
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, project.env);
    await cli.waitFor('thinking forever');
    const elenchos = cli.child.pid!;
    const children = processesOwnedBy(elenchos);
    expect(children.length).toBeGreaterThan(0);
    stray.push(...children);

    cli.child.kill('SIGKILL');
    await cli.exited;
    await waitUntil(() => !children.some(alive), 'the agent outlived its elenchos');
    await waitUntil(() => watchdogsOf(elenchos).length === 0, 'the watchdog outlived its job');
    expect(processesInside(project.root)).toEqual([]);
    const gc = runCli(['gc'], project.root, project.env);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).not.toContain('stopped process');
    expect(gc.stdout).toContain('ERROR ABANDONED');
  });

  it('a run that ends normally: its watchdog ends with it', { timeout: 60_000 }, async () => {
    const project = makeProject();
    const run = runCli(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const elenchos = onlyRun(project.root).record.pid as number;
    await waitUntil(() => watchdogsOf(elenchos).length === 0, 'the watchdog outlived its elenchos');
    expect(processesOwnedBy(elenchos)).toEqual([]);
    expect(processesInside(project.root)).toEqual([]);
  });
});

describe('elenchos gc stops orphans', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) if (child.pid && alive(child.pid)) child.kill('SIGKILL');
  });

  /** A process in `cwd` that says it was started by Elenchos `owner` (`<pid>/<start time>`), outside any run. */
  function tagged(owner: string, cwd: string): number {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], {
      cwd,
      env: { ...process.env, ELENCHOS_OWNER: owner },
      detached: true,
      stdio: 'ignore',
    });
    started.push(child);
    stray.push(child.pid!);
    return child.pid!;
  }

  it('stops a process in the repository whose elenchos is dead (or its pid reused), never one of a live elenchos or elsewhere', async () => {
    const root = tempRepo({ 'README.md': 'x\n' });
    // A real process that has ended: its pid and start time name no live process.
    const gone = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const dead = `${gone.pid}/${startTimeOf(gone.pid!)}`;
    gone.stdin.end();
    await new Promise((resolve) => gone.on('exit', resolve));
    const orphan = tagged(dead, root);
    // Our own pid with another start time: the pid was reused, its elenchos is gone.
    const reused = tagged(`${process.pid}/1`, path.join(root, '.git'));
    const owned = tagged(`${process.pid}/${startTimeOf(process.pid)}`, root);
    // Another repository's orphan is that repository's gc's to stop.
    const elsewhere = tagged(dead, tempDir('elenchos-elsewhere-'));
    // A value that names no process is no owner, dead or alive: not ours to judge.
    const forged = tagged('not-a-tag', root);
    const all = [orphan, reused, owned, elsewhere, forged];
    await waitUntil(() => all.every((pid) => readEnv(pid).includes('ELENCHOS_OWNER=')), 'the tagged processes never started');

    const dry = runCli(['gc', '--dry-run'], root);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would stop process ${orphan} (`);
    expect(dry.stdout).toContain(`would stop process ${reused} (`);
    expect(dry.stdout).not.toContain(`process ${owned} `);
    expect(dry.stdout).not.toContain(`process ${elsewhere} `);
    expect(dry.stdout).not.toContain(`process ${forged} `);
    expect(all.every(alive)).toBe(true);

    const gc = runCli(['gc'], root);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toContain(`stopped process ${orphan} (`);
    expect(gc.stdout).toContain(`: the elenchos that started it (pid ${gone.pid}) is gone`);
    expect(gc.stdout).toContain(`stopped process ${reused} (`);
    expect(alive(orphan)).toBe(false);
    expect(alive(reused)).toBe(false);
    expect(alive(owned)).toBe(true);
    const spared = [owned, elsewhere, forged];
    expect(spared.every(alive)).toBe(true);
    for (const pid of spared) expect(gc.stdout).not.toContain(`process ${pid} `);
    for (const pid of spared) process.kill(pid, 'SIGKILL');
    await waitUntil(() => !spared.some(alive), 'the processes gc had to leave alone did not end');
  });
});

function readEnv(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return '';
  }
}
