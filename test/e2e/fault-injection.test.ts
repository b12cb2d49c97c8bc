// Fault injection: SIGKILL Elenchos (and its watchdog) at each phase of a run, then `elenchos gc`: no process,
// no worktree and no unsealed record may be left, and the checkout must be exactly as it was.
// @module-tag slow
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { allRuns, killWithWatchdog, liveRecordedPids, startCli, waitForFile, type LiveCli } from '../helpers/live-cli.js';
import { FAKE_AGENT, checkoutFingerprint, makeProject, processesInside } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

interface Phase {
  name: string;
  /** Something alive at the moment of the kill (the test proves it was there, then that gc stopped it). */
  liveChildren: boolean;
  project: () => ReturnType<typeof makeProject>;
  /** Waits until the run is in the phase: a line of its output, or a test pause point. */
  reach: (cli: LiveCli, pauseDir: string) => Promise<void>;
  pauseAt?: string;
}

const PHASES: Phase[] = [
  {
    name: 'setup',
    liveChildren: true,
    project: () => makeProject({ config: { setup: { command: 'echo setup-running; sleep 600' } } }),
    reach: (cli) => cli.waitFor('[setup] setup-running'),
  },
  {
    name: 'agent',
    liveChildren: true,
    project: () =>
      makeProject({ config: { agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, 'hang'], timeoutSeconds: 600 } } }),
    reach: (cli) => cli.waitFor('thinking forever'),
  },
  {
    name: 'app start (app listening)',
    liveChildren: true,
    project: () => makeProject(),
    pauseAt: 'app',
    reach: (_cli, pause) => waitForFile(path.join(pause, 'app.reached')),
  },
  {
    name: 'verifier (kane-cli and its browser running)',
    liveChildren: true,
    project: () => makeProject({ scenario: 'hang' }),
    reach: (cli) => cli.waitFor('[kane] step 1'),
  },
  {
    name: 'sealing',
    liveChildren: false,
    project: () => makeProject(),
    pauseAt: 'sealing',
    reach: (_cli, pause) => waitForFile(path.join(pause, 'sealing.reached')),
  },
];

describe('SIGKILL at each phase, then gc', () => {
  it.each(PHASES)(
    '$name: nothing left running, no worktree, every record sealed, the checkout untouched',
    { timeout: 180_000 },
    async (phase) => {
      const project = phase.project();
      const before = checkoutFingerprint(project.root);
      const head = gitSync(project.root, 'rev-parse', 'HEAD');
      const pause = tempDir('elenchos-pause-');
      const env = { ...project.env, ...(phase.pauseAt ? { ELENCHOS_TEST_PAUSE_AT: phase.pauseAt, ELENCHOS_TEST_PAUSE_DIR: pause } : {}) };
      const cli = startCli(['run', 'tasks/add-task.json'], project.root, env);
      await phase.reach(cli, pause);
      // Its watchdog too: a child that ends by itself with Elenchos is test/e2e/orphans.test.ts; here only gc is left.
      killWithWatchdog(cli.child.pid!);
      await cli.exited;

      const [run] = allRuns(project.root);
      expect(run!.record.state).toBe('RUNNING');
      if (phase.liveChildren) expect(processesInside(project.root).length, 'children outlived the kill').toBeGreaterThan(0);

      const gc = runCli(['gc'], project.root, project.env);
      expect(gc.code, gc.stderr).toBe(0);
      expect(processesInside(project.root)).toEqual([]);
      expect(liveRecordedPids(run!.dir)).toEqual([]);
      if (phase.liveChildren) expect(gc.stdout).toContain('stopped process');
      const workspaces = path.join(project.root, '.elenchos/workspaces');
      expect(existsSync(workspaces) ? readdirSync(workspaces) : []).toEqual([]);
      expect(leakedWorktrees(project.root)).toEqual([]);
      for (const { dir, record } of allRuns(project.root)) {
        expect(record).toMatchObject({ state: 'ERROR', reason: 'ABANDONED' });
        expect(existsSync(path.join(dir, 'manifest.json'))).toBe(true);
      }
      expect(runCli(['evidence', 'verify', 'latest'], project.root).code).toBe(0);
      expect(checkoutFingerprint(project.root)).toEqual(before);
      expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
      expect(gitSync(project.root, 'rev-parse', 'HEAD')).toBe(head);
      expect(runCli(['gc'], project.root).stdout).toBe('nothing to clean\n');
    },
  );
});
