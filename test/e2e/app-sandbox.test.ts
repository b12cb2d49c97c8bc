// agent.sandbox "bwrap" runs the app (and setup.command) like the agent: the app Elenchos
// starts is the agent's code. A probing app (test/fixtures/apps/probe-app.js) forges an ack naming its own
// run, poisons the setup cache with a recomputed manifest, looks for Elenchos's credentials in
// /proc/<pid>/environ and writes a hook, the config and an object under .git; then leaves a daemon.
// Without the sandbox each of these lands (what the sandbox is for); with it, none has any effect.
// @module-tag slow
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { readAcks } from '../../src/evidence/acks.js';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { giveTo, spawnCliAs, WHO, type Who } from '../helpers/as-user.js';
import { killWithWatchdog, processesOwnedBy, startCli, waitForFile, waitUntil } from '../helpers/live-cli.js';
import { FIXTURES, makeProject, processesInside } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { cacheKeyPath } from '../../src/util/secret-paths.js';

// A stand-in for `npm ci` (in the worktree; inside the sandbox when there is one).
const INSTALL = `const fs = require('fs');
fs.mkdirSync('node_modules/x', { recursive: true });
fs.writeFileSync('node_modules/x/index.js', 'module.exports = "pristine";\\n');
`;
const GOOD_PAGE = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';
const SECRETS = {
  PROBE_SECRET_TOKEN: 'caller-secret-token-value',
  LT_ACCESS_KEY: 'lt-access-key-value-1234',
  ELENCHOS_SIGNING_KEY: 'signing-key-value-5678',
};

/** A project with the probing app; `ctx`'s case checks it for leftover processes when it ends. */
function project(ctx: TestContext, sandbox: 'none' | 'bwrap', who: Who = 'root') {
  const p = makeProject({
    config: {
      agent: { type: 'command', command: '/bin/true', timeoutSeconds: 30, sandbox },
      app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 20 },
      setup: { command: 'node install.js', cache: { key: ['package-lock.json'], paths: ['node_modules'] } },
      maxRepairAttempts: 0,
    },
    files: {
      'app.js': readFileSync(path.join(FIXTURES, 'apps/probe-app.js'), 'utf8'),
      'install.js': INSTALL,
      'package-lock.json': '{"x":"1.0.0"}\n',
      '.gitignore': 'node_modules\n',
      'page.html': GOOD_PAGE,
    },
  });
  leftoversOf(ctx)(p.root);
  // The checkout's path reaches the app through app.env, as an app could guess it from its cwd anyway.
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as { app: Record<string, unknown> };
  // The machine's key folder outside /tmp, as ~/.local/state is: a sandbox has a /tmp of its own, which
  // would hide a key under it whatever the hide list says.
  p.env.XDG_STATE_HOME = tempDir('elenchos-state-', '/var/tmp');
  settings.app.env = { PROBE_CHECKOUT: p.root, PROBE_KEY_FILES: cacheKeyPath(p.env) };
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `app sandbox ${sandbox}`);
  giveTo(who, p.root, p.home, p.env.XDG_STATE_HOME);
  return { ...p, who };
}

/** `verify` on HEAD (the finished page), then the probe's report from the run's app.log. */
async function verify(p: ReturnType<typeof project>, ...flags: string[]) {
  const before = new Set(existsSync(path.join(p.root, '.elenchos/runs')) ? readdirSync(path.join(p.root, '.elenchos/runs')) : []);
  const run = await spawnCliAs(p.who, ['verify', 'tasks/add-task.json', ...flags], p.root, { ...p.env, ...SECRETS });
  const id = readdirSync(path.join(p.root, '.elenchos/runs')).find((name) => !before.has(name));
  expect(id, run.stdout + run.stderr).toBeDefined();
  const appLog = readFileSync(path.join(p.root, '.elenchos/runs', id!, 'attempts/01/app.log'), 'utf8');
  const line = /PROBE (\{.*\})/.exec(appLog)?.[1];
  expect(line, appLog + run.stdout + run.stderr).toBeDefined();
  return { run, probe: JSON.parse(line!) as Record<string, boolean | number> };
}

/** What the app could have changed under .git and .elenchos/cache, to compare before and after. */
function stateOf(root: string) {
  const cache = path.join(root, '.elenchos/cache');
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      // The entry's files and manifest (its last-used time is Elenchos's to move).
      else if (entry.isFile() && /\/(files\/|manifest\.json$)/.test(full))
        files[path.relative(root, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  if (existsSync(cache)) walk(cache);
  files['.git/config'] = readFileSync(path.join(root, '.git/config'), 'utf8');
  files['.git/hooks'] = readdirSync(path.join(root, '.git/hooks')).sort().join(',');
  return files;
}

const cacheKey = (root: string) => readdirSync(path.join(root, '.elenchos/cache')).find((name) => !name.startsWith('.'))!;
const cachedFile = (root: string) =>
  readFileSync(path.join(root, '.elenchos/cache', cacheKey(root), 'files/node_modules/x/index.js'), 'utf8');

describe.skipIf(!existsSync('/usr/bin/bwrap'))('the app runs like the agent', { concurrent: true, timeout: CONCURRENT_TIMEOUT }, () => {
  it('without the sandbox, the app forges an ack, poisons the setup cache, reads Elenchos’s environment and writes .git', async (ctx) => {
    const p = project(ctx, 'none');
    const first = await verify(p); // fills the setup cache
    // Said plainly where the user looks: the run's header line and doctor.
    const header = first.run.stdout.split('\n').find((line) => line.startsWith('elenchos verify add-task'));
    // Short (it is on every run), in verify about the app (the commit's code): no agent runs there.
    expect(header).toMatch(/· no sandbox: the app \(this commit's code\) runs as you; see docs\/security\.md#what-the-sandbox-closes$/);
    expect(header).not.toContain('agent');
    const doctor = await runMain(['doctor', '--no-app'], p.root, p.env);
    expect(doctor.stdout).toMatch(
      /^! sandbox +no sandbox: the agent and its app run as you; see docs\/security\.md#what-the-sandbox-closes; fix: set agent\.sandbox to "auto" \(the default\) or "bwrap"/m,
    );
    const { probe } = await verify(p); // a hit: the entry is there for the app to poison
    expect(probe).toMatchObject({
      runId: true,
      forgeAck: true,
      poisonCache: true,
      environLeak: true,
      writeObject: true,
      readKeyFile: true,
    });
    // The forged ack names a stored run (its own): it counts (test/unit/needs-human.test.ts).
    expect((await readAcks(p.root)).map((ack) => ack.by)).toContain('the app');
    // The manifest is signed with the machine's cache key, which the app, running as the user, read and
    // signed the poisoned entry with again (a review of the app sandbox: this test still expected the plain digest to
    // pass, which the signature had ended): the next fresh worktree (no warm copy) is set up from it, and
    // the app runs with the poison.
    expect(cachedFile(p.root)).toContain('poisoned');
    const next = await verify(p, '--fresh');
    expect(next.run.stdout).toMatch(/setup cache hit/);
    expect(next.probe.restoredPoison).toBe(true);
    expect(existsSync(path.join(p.root, '.git/objects/ee/planted-by-the-app'))).toBe(true);
  }, 120_000);

  it.for(WHO)(
    'with bwrap, as %s, none of it has any effect, and the app still serves the page (VERIFIED) and is stopped whole',
    { timeout: 180_000 },
    async (who, ctx) => {
      const p = project(ctx, 'bwrap', who);
      const first = await verify(p);
      expect(first.run.code, first.run.stdout + first.run.stderr).toBe(0);
      expect(first.run.stdout).toMatch(/setup cache miss/);
      expect(first.run.stdout).not.toMatch(/no sandbox/);
      const before = stateOf(p.root);
      expect(cachedFile(p.root)).toContain('pristine');
      const { run, probe } = await verify(p);
      expect(run.stdout).toMatch(/setup cache hit/);
      expect(probe).toMatchObject({
        runId: true,
        forgeAck: false,
        poisonCache: false,
        environLeak: false,
        readAccessKey: false,
        readSigningKey: false,
        readKeyFile: false,
        restoredPoison: false,
        plantHook: false,
        writeConfig: false,
        writeObject: false,
      });
      expect(probe.processes).toBeLessThan(6);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/VERIFIED/);
      expect(await readAcks(p.root)).toEqual([]);
      expect(existsSync(path.join(p.root, '.elenchos/acks'))).toBe(false);
      expect(stateOf(p.root)).toEqual(before);
      expect(cachedFile(p.root)).toContain('pristine');
      expect(existsSync(path.join(p.root, '.git/objects/ee/planted-by-the-app'))).toBe(false);

      // In place, the worktree is the checkout: its .elenchos/ is hidden and its .git read-only all the same.
      const inPlace = await verify(p, '--in-place');
      expect(inPlace.probe).toMatchObject({
        forgeAck: false,
        poisonCache: false,
        environLeak: false,
        plantHook: false,
        writeConfig: false,
        writeObject: false,
      });
      expect(inPlace.run.code, inPlace.run.stdout + inPlace.run.stderr).toBe(0);
      expect(existsSync(path.join(p.root, '.elenchos/acks'))).toBe(false);
      expect(stateOf(p.root)).toEqual(before);

      // doctor's probe starts the app the same way.
      const doctor = await spawnCliAs(who, ['doctor'], p.root, { ...p.env, ...SECRETS });
      expect(doctor.stdout).toMatch(
        /^✓ sandbox +bwrap \(\/usr\/bin\/bwrap\): the agent, the app and setup\.command each run in bubblewrap/m,
      );
      expect(doctor.stdout).toMatch(/^✓ app +`node app\.js/m);
      const doctorProbe = JSON.parse(/PROBE (\{.*\})/.exec(readFileSync(path.join(p.root, '.elenchos/doctor/app.log'), 'utf8'))![1]!);
      expect(doctorProbe).toMatchObject({
        // A review of the app sandbox: doctor's sandbox did not hide the key files a run's does.
        readKeyFile: false,
        forgeAck: false,
        poisonCache: false,
        environLeak: false,
        plantHook: false,
        writeConfig: false,
        writeObject: false,
      });
      expect(stateOf(p.root)).toEqual(before);
    },
  );

  // The group Elenchos records and stops is bwrap's; what the app starts lives in bwrap's PID namespace,
  // which ends with it: a daemon of its own session that ignores SIGTERM included. bwrap's
  // --die-with-parent ends the sandbox when Elenchos dies, even when no watchdog is left to do it.
  const killedWhileServing = async (ctx: TestContext, how: 'elenchos' | 'elenchos and its watchdog') => {
    const p = project(ctx, 'bwrap');
    const pauses = tempDir('elenchos-pause-');
    const cli = startCli(['verify', 'tasks/add-task.json'], p.root, {
      ...p.env,
      ELENCHOS_TEST_PAUSE_AT: 'app',
      ELENCHOS_TEST_PAUSE_DIR: pauses,
    });
    await waitForFile(path.join(pauses, 'app.reached'));
    const elenchos = cli.child.pid!;
    await waitUntil(() => processesInside(p.root).length >= 4, 'bwrap, its init, the shell, the app and its daemon');
    const children = processesOwnedBy(elenchos);
    if (how === 'elenchos') cli.child.kill('SIGKILL');
    else killWithWatchdog(elenchos);
    await cli.exited;
    await waitUntil(() => processesInside(p.root).length === 0, 'the sandboxed app outlived its elenchos');
    await waitUntil(() => children.every((pid) => !existsSync(`/proc/${pid}/environ`)), 'a child outlived its elenchos');
    if (how === 'elenchos and its watchdog') {
      const gc = await runMain(['gc'], p.root, p.env);
      expect(gc.code, gc.stderr).toBe(0);
      expect(gc.stdout).not.toContain('stopped process');
      expect(gc.stdout).toContain('ERROR ABANDONED');
    }
  };

  it('SIGKILL of elenchos while the sandboxed app serves: the sandbox and all in it are gone', async (ctx) => {
    await killedWhileServing(ctx, 'elenchos');
  }, 60_000);

  it('SIGKILL of elenchos and its watchdog: the sandbox dies with elenchos (--die-with-parent), gc finds nothing left', async (ctx) => {
    await killedWhileServing(ctx, 'elenchos and its watchdog');
  }, 60_000);
});
