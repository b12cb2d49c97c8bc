// `setup.cache` end to end: real runs and `verify --workers 2` with a setup that counts itself,
// an agent that poisons its node_modules, and an agent that adds a dependency.
// @module-tag slow
import { appendFileSync, chmodSync, existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { release, startCli, waitForFile } from '../helpers/live-cli.js';
import { makeProject } from '../helpers/project.js';
import { gitSync, taskJson, tempDir } from '../helpers/temp.js';

// A stand-in for `npm ci`: node_modules from the lockfile, and one line per run in a file outside the repo.
const INSTALL = `const fs = require('fs');
fs.appendFileSync(process.argv[2], 'setup\\n');
fs.mkdirSync('node_modules/x', { recursive: true });
fs.writeFileSync('node_modules/x/index.js', 'module.exports = ' + JSON.stringify(fs.readFileSync('package-lock.json', 'utf8')) + ';\\n');
`;
// In the agent's worktree (.elenchos/workspaces/<run>): waits until an entry is published (at most 20 s).
const AFTER_PUBLISH = 'for i in $(seq 400); do ls ../../cache/*/manifest.json >/dev/null 2>&1 && break; sleep 0.05; done;';
const KEY = 'e2e-signing-key-0123456789abcdef';
const GOOD_PAGE = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>';

/** A project whose setup is cached on package-lock.json; `agentScript` is the agent (sh -c, in the worktree). */
function project(watch: (root: string) => string, agentScript: string, extraFiles: Record<string, string> = {}) {
  const outside = tempDir('elenchos-cache-e2e-');
  const count = path.join(outside, 'setup-count');
  const p = makeProject({
    config: {
      agent: { type: 'command', command: '/bin/sh', args: ['-c', agentScript.replaceAll('$OUT', outside)], timeoutSeconds: 30 },
      setup: { command: `node install.js ${count}`, cache: { key: ['package-lock.json'], paths: ['node_modules'] } },
    },
    files: { 'install.js': INSTALL, 'package-lock.json': '{"x":"1.0.0"}\n', '.gitignore': 'node_modules\n', ...extraFiles },
  });
  watch(p.root);
  const setups = () => (existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0);
  return { ...p, outside, setups };
}

const setupLogs = (root: string) =>
  readdirSync(path.join(root, '.elenchos/runs'))
    .sort()
    .map((run) => readFileSync(path.join(root, '.elenchos/runs', run, 'attempts/01/setup.log'), 'utf8'));

describe.concurrent('setup.cache', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('misses once, then restores a pristine node_modules although the first agent poisoned its copy', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The agent poisons its copy once the entry is published (the copy runs while the agent works):
    // the entry is what setup left, not what the agent made of it.
    const p = project(
      watch,
      `printf '%s' '${GOOD_PAGE}' > page.html; cat node_modules/x/index.js > $OUT/seen-$(date +%s%N); ${AFTER_PUBLISH} echo 'module.exports = "poisoned";' > node_modules/x/index.js`,
    );
    const first = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.stdout + first.stderr).toMatch(/setup cache miss: no entry for key \w+: running `node install\.js/);
    const second = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(second.code, second.stderr + second.stdout).toBe(0);
    expect(second.stdout + second.stderr).toMatch(/setup cache hit: restored 1 files/);
    expect(p.setups()).toBe(1);
    const seen = readdirSync(p.outside).filter((name) => name.startsWith('seen-'));
    expect(seen).toHaveLength(2);
    for (const name of seen)
      expect(readFileSync(path.join(p.outside, name), 'utf8')).toBe('module.exports = "{\\"x\\":\\"1.0.0\\"}\\n";\n');
    const [log1, log2] = setupLogs(p.root);
    expect(log1).toMatch(/\[elenchos\] setup cache miss: saved 1 files/);
    expect(log2).toMatch(/\[elenchos\] setup cache hit: restored 1 files/);
  });

  it('a tampered entry is rejected with a warning in the terminal and setup.log, and setup runs', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, 'true', { 'page.html': `${GOOD_PAGE}\n` });
    expect((await runMain(['verify', 'tasks/add-task.json'], p.root, p.env)).code).toBe(0);
    const cache = path.join(p.root, '.elenchos/cache');
    const key = readdirSync(cache).find((name) => /^[0-9a-f]{64}$/.test(name)) ?? '';
    const stored = path.join(cache, key, 'files/node_modules/x/index.js');
    chmodSync(stored, 0o644);
    writeFileSync(stored, 'module.exports = "poisoned";\n');
    // --fresh: a warm worktree keeps its node_modules, proven equal to the manifest, and never reads the stored copy.
    const again = await runMain(['verify', '--fresh', 'tasks/add-task.json'], p.root, p.env);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(again.stdout).toMatch(/setup +warning: cache entry \w+ discarded: node_modules\/x\/index\.js differs from the manifest/);
    expect(again.stdout).toMatch(/setup cache rejected: no entry for key/);
    expect(p.setups()).toBe(2);
    expect(setupLogs(p.root)[1]).toMatch(/\[elenchos\] warning: cache entry \w+ discarded/);
    expect(readFileSync(stored, 'utf8')).toBe('module.exports = "{\\"x\\":\\"1.0.0\\"}\\n";\n');
  });

  it('an agent adding a dependency: its run is not cached, verifying the change does a fresh setup', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(
      watch,
      `printf '%s' '${GOOD_PAGE}' > page.html; echo '{"x":"1.0.0","left-pad":"1.3.0"}' > package-lock.json; node install.js $OUT/agent-install`,
    );
    expect((await runMain(['run', 'tasks/add-task.json'], p.root, p.env)).code).toBe(0);
    expect(p.setups()).toBe(1);
    // The change lands (as `apply` + commit would): its verify must not get the old node_modules.
    appendFileSync(path.join(p.root, 'package-lock.json'), '{"left-pad":"1.3.0"}\n');
    gitSync(p.root, 'commit', '-qam', 'add left-pad');
    const verify = await runMain(['verify', 'tasks/add-task.json'], p.root, p.env);
    // A miss, also in the warm worktree the run left (its node_modules, the agent's, thrown away: no entry for the new key).
    expect(verify.stdout + verify.stderr).toMatch(/setup cache miss/);
    expect(verify.stdout + verify.stderr).not.toMatch(/setup cache rejected/);
    expect(p.setups()).toBe(2);
    expect((await runMain(['verify', 'tasks/add-task.json'], p.root, p.env)).stdout).toMatch(/setup cache hit/);
    expect(p.setups()).toBe(2);
  });

  it("verify --in-place never uses the cache: the checkout is the user's, its node_modules too", async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, 'true', { 'page.html': `${GOOD_PAGE}\n` });
    const result = await runMain(['verify', '--in-place', 'tasks/add-task.json'], p.root, p.env);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(p.setups()).toBe(1);
    expect(existsSync(path.join(p.root, '.elenchos/cache'))).toBe(false);
    expect(setupLogs(p.root)[0]).not.toContain('setup cache');
  });

  it('verify --workers 2 of tasks sharing a key runs the setup once', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, 'true', {
      'page.html': `${GOOD_PAGE}\n`,
      'tasks/other.json': taskJson({ id: 'other', verification: { testFile: 'tests/add-task_test.md' } }),
    });
    const result = await runMain(['verify', '--workers', '2', 'tasks/add-task.json', 'tasks/other.json', '--json'], p.root, p.env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).runs.map((run: any) => run.state)).toEqual(['VERIFIED', 'VERIFIED']);
    expect(p.setups()).toBe(1);
    const logs = setupLogs(p.root).map((log) => /setup cache (\w+)/.exec(log)?.[1]);
    expect(logs.sort()).toEqual(['hit', 'miss']);
  });

  it(
    'an agent that poisons node_modules before the copy reads it (mtime put back): nothing is saved, the next run sets up afresh',
    { timeout: 300_000 },
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const pause = tempDir('elenchos-pause-');
      // Held at the copy's start (after the snapshot) until the agent has done its edit and lets it go.
      const p = project(
        watch,
        `printf '%s' '${GOOD_PAGE}' > page.html; cat node_modules/x/index.js > $OUT/seen-$(date +%s%N); ` +
          `touch -r node_modules/x/index.js $OUT/stamp; echo 'module.exports = "poisoned";' > node_modules/x/index.js; ` +
          `touch -r $OUT/stamp node_modules/x/index.js; touch ${pause}/cache-copy.go`,
      );
      const env = { ...p.env, ELENCHOS_TEST_PAUSE_AT: 'cache-copy', ELENCHOS_TEST_PAUSE_DIR: pause };
      const first = await runMain(['run', 'tasks/add-task.json'], p.root, env);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      expect(first.stdout).toMatch(
        /setup +warning: setup cache not saved: node_modules\/x\/index\.js changed after setup, before it was copied/,
      );
      expect(readdirSync(path.join(p.root, '.elenchos/cache')).filter((name) => /^[0-9a-f]{64}$/.test(name))).toEqual([]);
      const second = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
      expect(second.code, second.stderr + second.stdout).toBe(0);
      expect(p.setups()).toBe(2);
      expect(second.stdout).toMatch(/setup cache miss: saved 1 files/);
      const seen = readdirSync(p.outside).filter((name) => name.startsWith('seen-'));
      for (const name of seen)
        expect(readFileSync(path.join(p.outside, name), 'utf8')).toBe('module.exports = "{\\"x\\":\\"1.0.0\\"}\\n";\n');
    },
  );

  it(
    "a copy still held when the run ends is abandoned within the wait, the run's verdict untouched, the key free",
    { timeout: 300_000 },
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const pause = tempDir('elenchos-pause-'); // never let go
      const p = project(watch, `printf '%s' '${GOOD_PAGE}' > page.html`);
      const env = { ...p.env, ELENCHOS_TEST_PAUSE_AT: 'cache-copy', ELENCHOS_TEST_PAUSE_DIR: pause };
      const first = await runMain(['run', 'tasks/add-task.json'], p.root, env);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      expect(first.stdout).toMatch(/setup cache not saved: the copy was not done 2000 ms after the run ended/);
      expect(readdirSync(path.join(p.root, '.elenchos/cache'))).toEqual([]); // no entry, no stage, no lock
      expect(setupLogs(p.root)[0]).toMatch(/\[elenchos\] setup cache miss: not saved: the copy was not done/);
      // That line came after attempt 1 was sealed: the honest run still verifies intact.
      const check = await runMain(['evidence', 'verify', 'latest'], p.root, p.env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
    },
  );

  it(
    "a copy that ends after attempt 1 was sealed: its line in attempt 1's setup.log, the evidence intact, apply takes it",
    { timeout: 300_000 },
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const pause = tempDir('elenchos-pause-');
      const p = project(watch, `printf '%s' '${GOOD_PAGE}' > page.html`);
      const env = { ...p.env, ELENCHOS_TEST_PAUSE_AT: 'cache-copy,teardown', ELENCHOS_TEST_PAUSE_DIR: pause, ELENCHOS_SIGNING_KEY: KEY };
      const cli = startCli(['run', 'tasks/add-task.json'], p.root, env);
      // The verdict is in and attempt 1 sealed; the copy, held since setup, goes on only now.
      await waitForFile(path.join(pause, 'teardown.reached'));
      const attempt = path.join(p.root, '.elenchos/runs', readdirSync(path.join(p.root, '.elenchos/runs'))[0] ?? '', 'attempts/01');
      expect(existsSync(path.join(attempt, 'manifest.json'))).toBe(true);
      release(pause, 'cache-copy');
      await cli.waitFor('setup cache miss: saved 1 files');
      release(pause, 'teardown');
      expect(await cli.exited, cli.output().stdout + cli.output().stderr).toBe(0);
      expect(cli.output().stdout).not.toContain('warning: evidence sealed');
      expect(setupLogs(p.root)[0]).toMatch(/\[elenchos\] setup cache miss: saved 1 files/);
      const check = await runMain(['evidence', 'verify', 'latest'], p.root, env);
      expect(check.code, check.stdout + check.stderr).toBe(0); // before: 1, "attempt 1: modified: attempts/01/setup.log"
      const apply = await runMain(['apply', 'latest'], p.root, env);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    },
  );

  it(
    'gc keeps the current key, removes an old entry of another lockfile, and gc --cache removes every idle one',
    { timeout: 300_000 },
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const p = project(watch, 'true', { 'page.html': `${GOOD_PAGE}\n` });
      expect((await runMain(['verify', 'tasks/add-task.json'], p.root, p.env)).code).toBe(0);
      const cache = path.join(p.root, '.elenchos/cache');
      const keys = () => readdirSync(cache).filter((name) => /^[0-9a-f]{64}$/.test(name));
      const [first] = keys();
      // Another lockfile, verified once, then not used for a month.
      writeFileSync(path.join(p.root, 'package-lock.json'), '{"x":"2.0.0"}\n');
      gitSync(p.root, 'commit', '-qam', 'x 2');
      expect((await runMain(['verify', 'tasks/add-task.json'], p.root, p.env)).code).toBe(0);
      const second = keys().find((key) => key !== first) ?? '';
      gitSync(p.root, 'revert', '--no-edit', 'HEAD');
      const month = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
      for (const key of keys()) utimesSync(path.join(cache, key, 'last-used'), month, month);
      const gc = await runMain(['gc', '--json'], p.root, p.env);
      expect(gc.code, gc.stderr).toBe(0);
      // The first lockfile is HEAD's again: its entry is current, kept however old.
      expect(JSON.parse(gc.stdout).trimmedCache).toEqual([{ key: second, bytes: expect.any(Number), reason: 'not used for 14 days' }]);
      expect(keys()).toEqual([first]);
      const all = await runMain(['gc', '--cache'], p.root, p.env);
      expect(all.stdout).toMatch(new RegExp(`removed setup cache entry ${(first ?? '').slice(0, 12)} \\(\\d+ bytes\\): gc --cache`));
      expect(readdirSync(cache)).toEqual([]);
    },
  );
});
