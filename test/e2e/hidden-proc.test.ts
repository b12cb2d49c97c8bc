// Guards that cannot look do not pass in silence: the built CLI run where /proc shows nothing (a tmpfs over
// it, in a mount namespace of its own, as a container that hides it), as root and as an ordinary user. With
// the machine's ps (procps reads /proc: it fails too) the process table is unavailable; with macOS's ps and
// lsof (their fakes, bind-mounted where ps and lsof live, replaying this machine's processes from a /proc
// mounted elsewhere) it is the ps table. Synchronised on markers the agent and its daemon write.
// @module-tag slow
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { CONCURRENT_TIMEOUT } from '../helpers/leftovers.js';
import { BIN, runMain, spawnCollected, type CliRun } from '../helpers/cli.js';
import { waitUntil } from '../helpers/live-cli.js';
import { commandAgent, FIXTURES, makeProject } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

/** The ordinary user the CLI runs as in the "as a user" cases (uid and gid of nobody when no other exists). */
const USER = { uid: 65534, gid: 65534 };
const MACOS_PS = path.join(FIXTURES, 'bin/macos-ps');
const MACOS_LSOF = path.join(FIXTURES, 'bin/macos-lsof');

interface Hidden {
  /** The ps ps-table.ts finds: the machine's own (fails without /proc), or macOS's (its fake). */
  ps: 'system' | 'macos';
  /** lsof: macOS's fake, or one that cannot run. */
  lsof: 'macos' | 'none';
  user: boolean;
  /** Leave /proc as it is (the attack below hides it itself). */
  procShown?: boolean;
}

/** Returns `stray(...pids)`: when the case ends, whatever its outcome, those still running are killed, and the case fails. */
function straysOf({ onTestFinished }: TestContext): (...pids: number[]) => void {
  const stray: number[] = [];
  onTestFinished(() => {
    const left = stray.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left, 'processes left running').toEqual([]);
  });
  return (...pids) => void stray.push(...pids);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Everything the CLI touches, handed to the ordinary user (mkdtemp makes folders 0700). */
function giveTo(dirs: string[], as: Hidden): void {
  if (!as.user) return;
  for (const dir of dirs) {
    chmodSync(dir, 0o755);
    spawnSync('chown', ['-R', `${USER.uid}:${USER.gid}`, dir]);
  }
}

/** `unshare --mount`, /proc hidden under a tmpfs, ps and lsof swapped as `as` says, then (as a user) the CLI. */
function hiddenProcArgs(as: Hidden, cli: string[]): string[] {
  const tools = tempDir('elenchos-tools-');
  const realProc = tempDir('elenchos-realproc-');
  chmodSync(tools, 0o755);
  chmodSync(realProc, 0o755);
  // Where the fakes read the machine's processes from: the real /proc, mounted again out of Elenchos's sight.
  const wrap = (name: string, fake: string) => {
    const file = path.join(tools, name);
    writeFileSync(file, `#!/bin/sh\nFAKE_PS_PROC=${realProc} exec ${process.execPath} ${fake} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const ps = as.ps === 'macos' ? wrap('ps', MACOS_PS) : '';
  const lsof = as.lsof === 'macos' ? wrap('lsof', MACOS_LSOF) : '/dev/null';
  const script = [
    'set -e',
    `mount --rbind /proc ${realProc}`,
    as.procShown ? ':' : 'mount -t tmpfs -o mode=0555 elenchos-hidden-proc /proc',
    ps ? `mount --bind ${ps} /usr/bin/ps` : ':',
    `mount --bind ${lsof} /usr/bin/lsof`,
    'exec "$@"',
  ].join('\n');
  const user = as.user ? ['setpriv', `--reuid=${USER.uid}`, `--regid=${USER.gid}`, '--clear-groups', '--'] : [];
  return ['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', ...user, process.execPath, BIN, ...cli];
}

/** The CLI where /proc shows nothing, awaited (not blocking the worker: the other cases run meanwhile). */
function runHidden(as: Hidden, cli: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return spawnCollected('unshare', hiddenProcArgs(as, cli), cwd, env, 90_000);
}

/** A project whose agent leaves a daemon (setsid, in the worktree), owned by the user the CLI runs as. */
function daemonProject(as: Hidden, agent = 'marker-daemon', config: Record<string, unknown> = {}) {
  const project = makeProject({ config: { agent: commandAgent(agent), ...config } });
  giveTo([project.root, project.home], as);
  return project;
}

function runRecord(root: string): { dir: string; record: Record<string, any> } {
  const runs = path.join(root, '.elenchos/runs');
  const [id] = readdirSync(runs);
  return { dir: path.join(runs, id!), record: JSON.parse(readFileSync(path.join(runs, id!, 'run.json'), 'utf8')) };
}

const daemonOf = (dir: string) => {
  const file = path.join(dir, 'attempts/01/prompt.md.daemon.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8')) : null;
};

/** The line right after the run's header (`elenchos run <task> (<file>) · run …`): the first thing a run says. */
function afterHeader(stdout: string): string | undefined {
  const lines = stdout.split('\n');
  return lines[lines.findIndex((l) => /^elenchos run \S+ \(/.test(l)) + 1];
}

const AS = [
  ['as root', false],
  ['as an ordinary user', true],
] as const;

describe.runIf(process.platform === 'linux' && process.getuid?.() === 0)(
  'where /proc shows nothing',
  { concurrent: true, timeout: CONCURRENT_TIMEOUT },
  () => {
    describe.each(AS)('%s', (_label, user) => {
      const blind: Hidden = { ps: 'system', lsof: 'none', user };
      const macos: Hidden = { ps: 'macos', lsof: 'macos', user };

      it('a run says so on its first lines and ends ERROR GUARD_MISSING before any agent runs', async () => {
        const project = daemonProject(blind);
        const result = await runHidden(blind, ['run', 'tasks/add-task.json'], project.root, project.env);
        expect(result.code, result.stdout + result.stderr).toBe(2);
        const line = afterHeader(result.stdout);
        expect(line).toMatch(
          /^ {2}guard {4}processScan cannot stand: at the start: \/proc does not list this process \(ENOENT\); \/bin\/ps exited 47/,
        );
        expect(line).toContain('this run cannot end VERIFIED and stops here');
        expect(line).toContain('"guards": { "allow": ["processScan"] }');
        const { dir, record } = runRecord(project.root);
        expect(record).toMatchObject({ state: 'ERROR', reason: 'GUARD_MISSING', attempts: [] });
        expect(record.message).toMatch(/^required guard\(s\) did not stand: processScan \(at the start: /);
        expect(record.guards).toMatchObject({ attempt: null, missing: expect.arrayContaining(['processScan']) });
        expect(record.guards.detail.processScan.scans).toEqual([expect.objectContaining({ after: 'start', source: 'unavailable' })]);
        // No agent was dispatched: it left no daemon, and spent nothing.
        expect(daemonOf(dir)).toBeNull();
      });

      it('verify --json: the line on stderr at once, the record on stdout ERROR GUARD_MISSING, exit 2', async () => {
        const project = daemonProject(blind);
        const result = await runHidden(blind, ['verify', '--json'], project.root, project.env);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toMatch(/^elenchos: processScan cannot stand: at the start: \/proc does not list this process/);
        const [run] = JSON.parse(result.stdout).runs;
        expect(run).toMatchObject({
          state: 'ERROR',
          reason: 'GUARD_MISSING',
          guards: { stood: [], required: expect.arrayContaining(['processScan']) },
        });
      });

      it('allowed by name (guards.allow), the run goes on and ends VERIFIED, the record saying the scan could not look', async (ctx) => {
        const stray = straysOf(ctx);
        const project = daemonProject(blind, 'marker-daemon', { guards: { allow: ['processScan'] } });
        const result = await runHidden(blind, ['run', 'tasks/add-task.json'], project.root, project.env);
        const { dir, record } = runRecord(project.root);
        const daemon = daemonOf(dir);
        if (daemon !== null) stray(daemon); // stopped when the case ends should an assertion below fail first
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(afterHeader(result.stdout)).toContain('processScan cannot stand: at the start: /proc does not list this process');
        expect(afterHeader(result.stdout)).toContain('allowed by guards.allow (the evidence says it did not stand)');
        expect(record.guards).toMatchObject({ stood: ['windowWatch', 'objectStore', 'inputsPinned'], allowed: ['processScan'] });
        expect(record.guards.missing).toContain('processScan');
        const scans = record.guards.detail.processScan.scans;
        expect(scans.map((s: { after: string; source: string }) => `${s.after}:${s.source}`)).toEqual([
          'agent:unavailable',
          'verification:unavailable',
        ]);
        // The honest limit: nothing could see the daemon, so nothing stopped it. The evidence says why; the test stops it.
        expect(daemon !== null && alive(daemon)).toBe(true);
        process.kill(daemon!, 'SIGKILL');
        const show = await runMain(['show', record.runId], project.root);
        expect(show.stdout).toMatch(
          /guards stood: windowWatch, objectStore, inputsPinned\n {2}not standing: sandbox: agent.sandbox is "none"\n {2}not standing: processScan \(allowed\): after the agent's turn: \/proc does not list/,
        );
      });

      it("macOS's ps and lsof: the daemon is found (its tag, its cwd) and stopped, the run VERIFIED on a ps scan", async (ctx) => {
        const stray = straysOf(ctx);
        const project = daemonProject(macos);
        const result = await runHidden(macos, ['run', 'tasks/add-task.json'], project.root, project.env);
        const { dir, record } = runRecord(project.root);
        const daemon = daemonOf(dir)!;
        stray(daemon);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).not.toContain('cannot stand');
        expect(alive(daemon)).toBe(false);
        const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
        expect(attempt.stoppedProcesses).toContainEqual(expect.objectContaining({ after: 'agent', pid: daemon, found: ['marker', 'cwd'] }));
        expect(record.guards.stood).toEqual(['processScan', 'windowWatch', 'objectStore', 'inputsPinned']);
        expect(record.guards.detail.processScan).toMatchObject({ stood: true, how: 'ps' });
        expect(record.guards.detail.processScan.scans[0].why).toMatch(/^\/proc does not list this process \(ENOENT\); \/bin\/ps lists it$/);
        // The owner tag and the run's own start time come from ps: seconds, marked so they never meet /proc's ticks.
        expect(record.pidStartTime).toMatch(/^e\d+$/);
      });

      it("macOS's ps and lsof: a daemon without our environment (env -i) is found by its cwd alone", async (ctx) => {
        const stray = straysOf(ctx);
        const project = daemonProject(macos, 'scrubbed-marker-daemon');
        const result = await runHidden(macos, ['run', 'tasks/add-task.json'], project.root, project.env);
        const { dir } = runRecord(project.root);
        const daemon = daemonOf(dir)!;
        stray(daemon);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(alive(daemon)).toBe(false);
        const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
        expect(attempt.stoppedProcesses).toContainEqual(expect.objectContaining({ pid: daemon, found: ['cwd'] }));
      });

      it("macOS's ps without lsof: what a process holds cannot be seen, which a run in a worktree needs: it stops at once", async () => {
        const project = daemonProject({ ...macos, lsof: 'none' });
        const result = await runHidden({ ...macos, lsof: 'none' }, ['run', 'tasks/add-task.json'], project.root, project.env);
        expect(result.code, result.stdout + result.stderr).toBe(2);
        expect(afterHeader(result.stdout)).toMatch(
          /processScan cannot stand: at the start: .*\/bin\/ps lists it; \/dev\/null|\/usr\/bin\/lsof: EACCES/,
        );
        expect(runRecord(project.root).record.reason).toBe('GUARD_MISSING');
      });

      it("the watchdog and gc's sweep read macOS's ps: a killed run's agent is stopped by its watchdog, or by gc once that is gone too", async (ctx) => {
        const stray = straysOf(ctx);
        const project = daemonProject(macos, 'hang');
        for (const killWatchdog of [false, true]) {
          const child = spawn('unshare', hiddenProcArgs(macos, ['run', 'tasks/add-task.json']), {
            cwd: project.root,
            env: { ...process.env, ...project.env },
          });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          const exited = new Promise((resolve) => child.on('exit', resolve));
          await waitUntil(() => out.includes('thinking forever'), `the agent never started:\n${out}`, 60_000);
          const elenchos = child.pid!;
          const agents = ownedBy(elenchos);
          expect(agents.length).toBeGreaterThan(0);
          stray(...agents);
          const dogs = watchdogs(elenchos);
          expect(dogs, 'a watchdog reading ps').toHaveLength(1);
          stray(...dogs);
          process.kill(elenchos, 'SIGSTOP');
          if (killWatchdog) for (const dog of dogs) process.kill(dog, 'SIGKILL');
          process.kill(elenchos, 'SIGKILL');
          await exited;
          if (!killWatchdog) {
            await waitUntil(() => !agents.some(alive), 'the watchdog (on ps) did not stop the agent');
            continue;
          }
          expect(agents.some(alive)).toBe(true);
          // gc where /proc shows nothing but macOS's ps does: it finds the dead run's agent and stops it.
          const gc = await runHidden(macos, ['gc'], project.root, project.env);
          expect(gc.code, gc.stdout + gc.stderr).toBe(0);
          expect(gc.stdout).toMatch(/stopped process \d+ of \S+ \(its run is dead\)/);
          await waitUntil(() => !agents.some(alive), 'gc (on ps) did not stop the agent');
        }
      }, 120_000);

      it('an agent that hides /proc after the start (as root: no sandbox) blinds the scan: ERROR GUARD_MISSING, tampering', async () => {
        const shown: Hidden = { ...blind, procShown: true };
        const project = daemonProject(shown, 'hide-proc-daemon');
        const result = await runHidden(shown, ['run', 'tasks/add-task.json'], project.root, project.env);
        const { dir, record } = runRecord(project.root);
        const daemon = daemonOf(dir)!;
        if (!user) {
          expect(result.stdout).toContain('hid /proc');
          expect(result.code, result.stdout + result.stderr).toBe(2);
          expect(record).toMatchObject({ state: 'ERROR', reason: 'GUARD_MISSING', tampering: true });
          expect(record.message).toMatch(
            /^required guard\(s\) did not stand: processScan \(after the agent's turn: \/proc does not list this process/,
          );
          // Unseen, so not stopped: the record says why. The test stops it.
          expect(alive(daemon)).toBe(true);
          process.kill(daemon, 'SIGKILL');
        } else {
          // An ordinary user cannot mount: the table still sees the daemon, which is stopped; the run is VERIFIED.
          expect(result.stdout).toContain('could not hide /proc');
          expect(result.code, result.stdout + result.stderr).toBe(0);
          expect(alive(daemon)).toBe(false);
          expect(record.guards.stood).toContain('processScan');
        }
      });

      it('gc where no table sees anything says it could not look, and fails, rather than "nothing to clean"', async () => {
        const project = daemonProject(blind);
        const gc = await runHidden(blind, ['gc'], project.root, project.env);
        expect(gc.code).toBe(2);
        expect(gc.stderr).toMatch(
          /^elenchos gc: could not look for processes: \/proc does not list this process \(ENOENT\); \/bin\/ps exited 47/m,
        );
        expect(gc.stdout).toBe('nothing else to clean\n');
      });
    });
  },
);

/** Live pids carrying `ELENCHOS_OWNER` of Elenchos process `pid` (read from the real /proc, outside the namespace). */
function ownedBy(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && alive(Number(name)))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, 'latin1')
          .split('\0')
          .some((e) => e.startsWith(`ELENCHOS_OWNER=${pid}/e`));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The watchdog of Elenchos process `pid`: its owner tag, from ps, is `<pid>/e<seconds>`. */
function watchdogs(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && alive(Number(name)))
    .filter((name) => {
      try {
        const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
        return args.some((a) => a.endsWith('watchdog-main.js')) && args.some((a) => a.startsWith(`${pid}/e`));
      } catch {
        return false;
      }
    })
    .map(Number);
}
