// Faults around the end of a run: killed while sealing, signals after the verdict, a full disk.
// @module-tag slow
import { appendFileSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONCURRENT_TIMEOUT } from '../helpers/leftovers.js';
import { runMain, spawnCli } from '../helpers/cli.js';
import { allRuns, liveRecordedPids, release, startCli, waitForFile } from '../helpers/live-cli.js';
import { FAKE_AGENT, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { canMountSmallDisk, mountSmallDisk, unmount } from '../helpers/small-disk.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'sealing-secret-4f9a2c';
const TIMEOUT = 120_000;

/** A project whose setup prints a secret listed in `redact`, so an unsealed run still holds it. */
function secretProject(agent = 'implement') {
  const project = makeProject({
    agent,
    config: { setup: { command: 'echo "token is $MY_SECRET"' }, redact: ['MY_SECRET'] },
  });
  return { ...project, env: { ...project.env, MY_SECRET: SECRET } };
}

function workspaces(root: string): string[] {
  const dir = path.join(root, '.elenchos/workspaces');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe.concurrent('killed while sealing', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('shows no final state before the manifest; gc seals it ABANDONED with the secret redacted', { timeout: TIMEOUT }, async () => {
    const project = secretProject();
    const pause = tempDir('elenchos-pause-');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, {
      ...project.env,
      ELENCHOS_TEST_PAUSE_AT: 'sealing',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'sealing.reached'));
    cli.child.kill('SIGKILL');
    await cli.exited;

    const killed = onlyRun(project.root);
    // The verdict was reached, but it is not what run.json says: it is only an outcome being sealed.
    expect(killed.record).toMatchObject({ state: 'RUNNING', sealing: { state: 'VERIFIED', reason: null } });
    expect(existsSync(path.join(killed.dir, 'manifest.json'))).toBe(false);
    // The attempt was sealed (and redacted) when it ended, before the run's own sealing began.
    expect(readFileSync(path.join(killed.dir, 'attempts/01/setup.log'), 'utf8')).not.toContain(SECRET);
    expect((await runMain(['runs'], project.root)).stdout).not.toContain('VERIFIED');

    const gc = await runMain(['gc'], project.root, project.env);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toContain(`marked ${killed.record.runId} ERROR ABANDONED`);
    const after = onlyRun(project.root);
    expect(after.record).toMatchObject({ state: 'ERROR', reason: 'ABANDONED' });
    expect(after.record.message).toContain('killed while sealing its evidence (it had ended VERIFIED');
    expect(after.record.sealing).toBeUndefined();
    expect(readFileSync(path.join(after.dir, 'attempts/01/setup.log'), 'utf8')).not.toContain(SECRET);
    expect(await runMain(['evidence', 'verify', 'latest'], project.root)).toMatchObject({ code: 0 });
    expect(workspaces(project.root)).toEqual([]);
    expect((await runMain(['gc'], project.root)).stdout).toBe('nothing to clean\n');
  });

  it('without any test hook: the moment run.json shows a final state, the manifest already covers it', { timeout: TIMEOUT }, async () => {
    const project = secretProject('implement-verbose');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, project.env);
    const runs = path.join(project.root, '.elenchos/runs');
    let seen: { state: string; manifest: boolean } | null = null;
    // Poll as fast as we can; sealing a 12 MB log takes long enough to be seen on the old order.
    while (!seen) {
      const [id] = existsSync(runs) ? readdirSync(runs) : [];
      const dir = id ? path.join(runs, id) : '';
      let state: string | undefined;
      try {
        state = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).state;
      } catch {
        state = undefined; // not written yet
      }
      if (state && state !== 'RUNNING') seen = { state, manifest: existsSync(path.join(dir, 'manifest.json')) };
      else if (cli.child.exitCode !== null) throw new Error(`the run ended unseen:\n${cli.output().stdout}`);
      else await new Promise((resolve) => setTimeout(resolve, 2));
    }
    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(seen).toEqual({ state: 'VERIFIED', manifest: true });
  });

  it('a sealed run: the manifest covers the final run.json, and runs/show/evidence verify read it', { timeout: TIMEOUT }, async () => {
    const project = secretProject();
    const run = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { dir, record } = onlyRun(project.root);
    expect(record.state).toBe('VERIFIED');
    expect(record.sealing).toBeUndefined();
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const bytes = readFileSync(path.join(dir, 'run.json'));
    expect(manifest.files['run.json'].size).toBe(bytes.length);
    expect(await runMain(['evidence', 'verify', 'latest'], project.root)).toMatchObject({ code: 0 });
    expect((await runMain(['runs'], project.root)).stdout).toContain('VERIFIED');
    expect((await runMain(['show', 'latest'], project.root)).code).toBe(0);
    expect(readFileSync(path.join(dir, 'attempts/01/setup.log'), 'utf8')).not.toContain(SECRET);
    expect((await runMain(['gc'], project.root)).stdout).toBe('nothing to clean\n');
  });

  it('gc seals a legacy run left VERIFIED without a manifest (killed mid-sealing by an older Elenchos)', { timeout: TIMEOUT }, async () => {
    const project = secretProject();
    // Spawned: gc seals only a run whose process is gone (one in this process would be left alone, alive).
    expect((await spawnCli(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const { dir } = onlyRun(project.root);
    rmSync(path.join(dir, 'manifest.json'));
    const gc = await runMain(['gc'], project.root, project.env);
    expect(gc.stdout).toContain('ERROR ABANDONED');
    expect(onlyRun(project.root).record).toMatchObject({ state: 'ERROR', reason: 'ABANDONED' });
    expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
  });
});

describe.concurrent('signals around the verdict', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('SIGINT after the verdict, before sealing: exit 130, sealed ERROR INTERRUPTED, no worktree', { timeout: TIMEOUT }, async () => {
    const project = makeProject();
    const pause = tempDir('elenchos-pause-');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, {
      ...project.env,
      ELENCHOS_TEST_PAUSE_AT: 'teardown',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'teardown.reached'));
    // Printed before the pause, but the pipe may deliver it after the marker file appeared.
    await cli.waitFor('→ PASS');
    cli.child.kill('SIGINT');
    await cli.waitFor('SIGINT received');
    release(pause, 'teardown');
    expect(await cli.exited).toBe(130);
    const { record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect(record.message).toContain('after the run had ended VERIFIED');
    expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
    expect(workspaces(project.root)).toEqual([]);
  });

  it('SIGTERM while sealing: exit 130, never 0, and the record sealed as interrupted', { timeout: TIMEOUT }, async () => {
    const project = makeProject();
    const pause = tempDir('elenchos-pause-');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, {
      ...project.env,
      ELENCHOS_TEST_PAUSE_AT: 'sealing',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'sealing.reached'));
    cli.child.kill('SIGTERM');
    await cli.waitFor('SIGTERM received');
    release(pause, 'sealing');
    expect(await cli.exited).toBe(130);
    expect(onlyRun(project.root).record).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
  });

  it('a second SIGINT during teardown: children killed, still no RUNNING record and no worktree', { timeout: TIMEOUT }, async () => {
    const project = makeProject();
    const pause = tempDir('elenchos-pause-');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, {
      ...project.env,
      ELENCHOS_TEST_PAUSE_AT: 'teardown',
      ELENCHOS_TEST_PAUSE_DIR: pause,
    });
    await waitForFile(path.join(pause, 'teardown.reached'));
    cli.child.kill('SIGINT');
    await cli.waitFor('SIGINT received');
    cli.child.kill('SIGINT');
    await cli.waitFor('killing every child process group now');
    release(pause, 'teardown');
    expect(await cli.exited).toBe(130);
    const { dir, record } = onlyRun(project.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect(existsSync(path.join(dir, 'manifest.json'))).toBe(true);
    expect(workspaces(project.root)).toEqual([]);
    expect(processesInside(project.root)).toEqual([]);
  });
});

const canMount = canMountSmallDisk();

describe.skipIf(!canMount)('a full disk (a real 3 MB tmpfs over .elenchos)', { concurrent: true, timeout: CONCURRENT_TIMEOUT }, () => {
  it(
    'an agent filling the disk: ERROR DISK_FULL, exit 2, children stopped, worktree gone, record sealed',
    { timeout: TIMEOUT },
    async () => {
      const project = makeProject({
        config: { agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'fill-disk'], timeoutSeconds: 60 } },
      });
      const disk = mountSmallDisk(project.root, '3m')!;
      try {
        // Spawned: the record lists the run's own process too, which must be gone with the rest.
        const run = await spawnCli(['run', 'tasks/add-task.json'], project.root, project.env);
        expect(run.code, run.stdout + run.stderr).toBe(2);
        expect(run.stderr).not.toMatch(/ENOSPC.*\n\s+at /);
        const { dir, record } = onlyRun(project.root);
        expect(record).toMatchObject({ state: 'ERROR', reason: 'DISK_FULL' });
        expect(record.message).toContain('no space left on the device');
        expect(liveRecordedPids(dir)).toEqual([]);
        expect(processesInside(project.root)).toEqual([]);
        expect(workspaces(project.root)).toEqual([]);
        expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
      } finally {
        unmount(disk, project.root);
      }
    },
  );

  it(
    'an agent that fails silently on a full disk: ERROR DISK_FULL (the next evidence write tells), not AGENT_FAILED',
    { timeout: TIMEOUT },
    async () => {
      const project = makeProject({
        config: { agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'fill-disk-quiet'], timeoutSeconds: 60 } },
      });
      const disk = mountSmallDisk(project.root, '3m')!;
      try {
        const run = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
        expect(run.code, run.stdout + run.stderr).toBe(2);
        const { record } = onlyRun(project.root);
        expect(record).toMatchObject({ state: 'ERROR', reason: 'DISK_FULL' });
        expect(record.message).toContain('no space left on device');
        expect(workspaces(project.root)).toEqual([]);
        expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
      } finally {
        unmount(disk, project.root);
      }
    },
  );

  it('a disk too full to seal: one line, exit 2, no child left; gc seals it once there is room', { timeout: TIMEOUT }, async () => {
    const project = makeProject();
    const disk = mountSmallDisk(project.root, '3m')!;
    const pause = tempDir('elenchos-pause-');
    try {
      const cli = startCli(['run', 'tasks/add-task.json'], project.root, {
        ...project.env,
        ELENCHOS_TEST_PAUSE_AT: 'sealing',
        ELENCHOS_TEST_PAUSE_DIR: pause,
      });
      await waitForFile(path.join(pause, 'sealing.reached'));
      // A background writer takes the last byte just as the run seals.
      const filler = path.join(disk, 'filler.bin');
      expect(() => {
        for (;;) appendFileSync(filler, Buffer.alloc(64 * 1024));
      }).toThrow(/ENOSPC/);
      release(pause, 'sealing');
      expect(await cli.exited).toBe(2);
      const { stderr } = cli.output();
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^elenchos: the disk is full: /);
      const { dir, record } = allRuns(project.root)[0]!;
      expect(record).toMatchObject({ state: 'RUNNING', sealing: { state: 'VERIFIED' } });
      expect(liveRecordedPids(dir)).toEqual([]);
      expect(processesInside(project.root)).toEqual([]);
      expect(workspaces(project.root)).toEqual([]);
      rmSync(filler);
      const gc = await runMain(['gc'], project.root);
      expect(gc.code, gc.stderr).toBe(0);
      expect(onlyRun(project.root).record).toMatchObject({ state: 'ERROR', reason: 'ABANDONED' });
      expect((await runMain(['evidence', 'verify', 'latest'], project.root)).code).toBe(0);
    } finally {
      unmount(disk, project.root);
    }
  });
});
