// The app's bubblewrap command line (src/core/app/app-sandbox.ts) and doctor's sandbox line: what is bound how.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSandboxCommand, openWithoutSandbox, setupSandboxOptions } from '../../src/core/app/app-sandbox.js';
import { checkSandbox } from '../../src/core/doctor/sandbox-check.js';
import { emptyFile } from '../../src/agents/sandbox.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';

/** The pairs `flag src dest` (or `flag dest`) of a bwrap command line, as one string each. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const flag = args[i]!;
    if (['--ro-bind', '--bind'].includes(flag)) out.push(`${flag} ${args[++i]} ${args[++i]}`);
    else if (['--tmpfs', '--remount-ro', '--chdir', '--dev', '--proc', '--cap-drop'].includes(flag)) out.push(`${flag} ${args[++i]}`);
    else out.push(flag);
  }
  return out;
}

describe('appSandboxCommand', () => {
  it('a worktree: the checkout hidden, .git read-only whole (objects too), the worktree writable, its .git file read-only', () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const tree = path.join(root, '.elenchos/workspaces/r1');
    gitSync(root, 'worktree', 'add', '-q', '--detach', tree);
    const home = tempDir('elenchos-home-');
    mkdirSync(path.join(home, '.testmuai'));
    writeFileSync(path.join(home, '.npmrc'), '//registry/:_authToken=x\n');
    const { command, args } = appSandboxCommand('/bin/sh', ['-c', 'node app.js'], { workspace: tree, checkout: root, home });
    expect(command).toBe('/usr/bin/bwrap');
    expect(args.slice(args.indexOf('--'))).toEqual(['--', '/bin/sh', '-c', 'node app.js']);
    const m = mounts(args);
    expect(m).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--tmpfs /tmp',
      `--tmpfs ${root}`,
      `--ro-bind ${root}/.git ${root}/.git`,
      // Every run's quarantines and held objects (a best-of rival's work) hidden; this run holds none yet.
      `--ro-bind ${root}/.git/objects ${root}/.git/objects`,
      `--tmpfs ${root}/.git/objects/elenchos-private`,
      `--remount-ro ${root}/.git/objects/elenchos-private`,
      // Other worktrees' admin folders hidden (a best-of rival's index), this one's bound back read-only.
      `--tmpfs ${root}/.git/worktrees`,
      `--ro-bind ${root}/.git/worktrees/r1 ${root}/.git/worktrees/r1`,
      `--remount-ro ${root}/.git/worktrees`,
      `--bind ${tree} ${tree}`,
      `--ro-bind ${tree}/.git ${tree}/.git`,
      `--tmpfs ${home}/.testmuai`,
      `--ro-bind ${emptyFile()} ${home}/.npmrc`,
      `--remount-ro ${root}`,
      // Whoever starts Elenchos (root included): no capability to undo a mount (docs/security.md#the-agent-sandbox).
      '--unshare-user',
      '--cap-drop ALL',
      '--unshare-pid',
      '--unshare-ipc',
      '--die-with-parent',
      `--chdir ${tree}`,
    ]);
    // Nothing under .git is bound writable: not objects (the agent's sandbox needs them), not the admin folder.
    expect(m.filter((x) => x.startsWith('--bind') && x.includes('.git'))).toEqual([]);
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    "really run: a best-of candidate's app sees its own worktree's git admin folder, not its rival's",
    () => {
      const root = tempRepo({ 'a.txt': 'a\n' });
      const mine = path.join(root, '.elenchos/workspaces/run-a');
      const rival = path.join(root, '.elenchos/workspaces/run-b');
      gitSync(root, 'worktree', 'add', '-q', '--detach', mine);
      gitSync(root, 'worktree', 'add', '-q', '--detach', rival);
      writeFileSync(path.join(rival, 'solution.txt'), 'the rival solution\n');
      gitSync(rival, 'add', 'solution.txt'); // staged: its blob id is in the rival's index
      const probe = 'ls "$(git rev-parse --git-common-dir)/worktrees"; git status --porcelain';
      const { command, args } = appSandboxCommand('/bin/sh', ['-c', probe], { workspace: mine, checkout: root, home: undefined });
      const seen = spawnSync(command, args, { encoding: 'utf8' });
      expect(seen.status, seen.stderr).toBe(0);
      // Before: "run-a\nrun-b" (and so the rival's index, naming the object of its staged file).
      expect(seen.stdout).toBe('run-a\n');
    },
  );

  it('in place: the checkout writable but its .git read-only and its .elenchos/ hidden, bound after it', () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    mkdirSync(path.join(root, '.elenchos/acks'), { recursive: true });
    const m = mounts(appSandboxCommand('/bin/sh', ['-c', 'x'], { workspace: root, checkout: root, home: undefined }).args);
    const at = (entry: string) => m.indexOf(entry);
    expect(at(`--bind ${root} ${root}`)).toBeGreaterThan(0);
    expect(at(`--ro-bind ${root}/.git ${root}/.git`)).toBeGreaterThan(at(`--bind ${root} ${root}`));
    expect(at(`--tmpfs ${root}/.elenchos`)).toBeGreaterThan(at(`--bind ${root} ${root}`));
    expect(m).toContain(`--remount-ro ${root}/.elenchos`);
    expect(m).not.toContain(`--tmpfs ${root}`);
  });

  it("setup: the package manager's download cache writable, .npmrc readable, the verifier's credentials still hidden", () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const home = tempDir('elenchos-home-');
    mkdirSync(path.join(home, '.testmuai'));
    writeFileSync(path.join(home, '.npmrc'), 'x\n');
    const m = mounts(appSandboxCommand('/bin/sh', ['-c', 'npm ci'], setupSandboxOptions(root, root, home)).args);
    expect(m).toContain(`--bind ${home}/.npm ${home}/.npm`); // made when missing: npm would make it
    expect(m).toContain(`--tmpfs ${home}/.testmuai`);
    expect(m.some((x) => x.includes('.npmrc'))).toBe(false);
    // npm's cache where its variable names it (npx sets npm_config_cache for what it runs): writable too, or
    // an offline npm ci fails on a read-only cache (the install test's doctor did, once setup was sandboxed).
    const cache = tempDir('elenchos-npm-cache-');
    const named = mounts(
      appSandboxCommand(
        '/bin/sh',
        ['-c', 'npm ci'],
        setupSandboxOptions(root, root, home, [], { npm_config_cache: cache, YARN_CACHE_FOLDER: 'relative' }),
      ).args,
    );
    expect(named).toContain(`--bind ${cache} ${cache}`);
    expect(named.filter((x) => x.includes('relative'))).toEqual([]);
  });
});

describe('doctor: sandbox', () => {
  it('names what stays open without the sandbox; a missing bwrap fails "bwrap" and is a warning under "auto", with how to install it', async () => {
    expect((await checkSandbox('none')).check).toMatchObject({ status: 'warn', message: openWithoutSandbox('run') });
    const asked = await checkSandbox('bwrap', '/nonexistent/bwrap');
    expect(asked.check).toMatchObject({
      status: 'fail',
      message: 'agent.sandbox is "bwrap" but bubblewrap is not installed at /nonexistent/bwrap',
    });
    expect(asked.check.fix).toMatch(/^install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap/);
    const auto = await checkSandbox('auto', '/nonexistent/bwrap');
    expect(auto).toMatchObject({ mode: 'none', check: { status: 'warn' } });
    expect(auto.check.message).toBe(
      'no sandbox: the agent and its app run as you, since agent.sandbox is "auto" and bubblewrap is not installed at /nonexistent/bwrap; see docs/security.md#what-the-sandbox-closes',
    );
    expect(auto.check.fix).toMatch(/apt-get install bubblewrap/);
  });
});

describe('the no-sandbox line', () => {
  it('is short, links the details, and in verify speaks of the app (the commit), not an agent', () => {
    const run = openWithoutSandbox('run');
    const verify = openWithoutSandbox('verify');
    expect(run).toBe('no sandbox: the agent and its app run as you; see docs/security.md#what-the-sandbox-closes');
    expect(verify).toBe("no sandbox: the app (this commit's code) runs as you; see docs/security.md#what-the-sandbox-closes");
    for (const line of [run, verify]) expect(line.length).toBeLessThan(140); // before: about 300 characters on every run
    expect(verify).not.toContain('agent');
  });
});

describe.skipIf(!existsSync('/usr/bin/bwrap'))('a hidden file of the home, in the real sandbox', () => {
  it('reads as empty, not as an error: yarn 1 stopped at the EACCES of a /dev/null bound over ~/.npmrc, and the secret stays out of reach', () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const tree = path.join(root, '.elenchos/workspaces/r1');
    gitSync(root, 'worktree', 'add', '-q', '--detach', tree);
    const home = tempDir('elenchos-home-');
    writeFileSync(path.join(home, '.npmrc'), '//registry/:_authToken=secret-token\n', { mode: 0o600 });
    const { command, args } = appSandboxCommand('/bin/sh', ['-c', 'cat "$1"; echo "exit $?"', 'sh', path.join(home, '.npmrc')], {
      workspace: tree,
      checkout: root,
      home,
    });
    const result = spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0 && /setting up uid map|Operation not permitted|No permissions/.test(result.stderr)) return; // no user namespaces here
    expect(result.stdout).toBe('exit 0\n');
    expect(result.stdout + result.stderr).not.toContain('secret-token');
  });
});
