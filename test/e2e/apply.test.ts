// `elenchos apply` end to end: run → apply → verify on the new HEAD, with real git, and every refusal.
// @module-tag slow
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeManifest } from '../../src/evidence/manifest.js';
import { BIN, runMain, type CliRun } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { checkoutFingerprint, GIT_IDENTITY, makeProject, onlyRun } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const RICH_FILES = {
  'rename-me.txt': 'a file the agent renames\n',
  'delete-me.txt': 'a file the agent deletes\n',
  'script.sh': '#!/bin/sh\necho hi\n',
  'logo.bin': 'logo\u0000v1\u0000',
};
const NEW_BIN = Buffer.from([0, 255, 0, 1, 2, 3, 0, 10, 13, 0]);
const LOGO = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));

// The machine has no git identity: the tests give one, as a user's ~/.gitconfig would.
const IDENTITY = GIT_IDENTITY;

async function verifiedRun(watch: (root: string) => string, agent = 'rich-change', extra: string[] = []) {
  const made = makeProject({ agent, files: RICH_FILES });
  const project = { ...made, env: { ...made.env, ...IDENTITY } };
  watch(project.root);
  const result = await runMain(['run', 'tasks/add-task.json', ...extra], project.root, project.env);
  return { project, result };
}

/**
 * `elenchos args` with `readOnly` paths of `cwd` on a read-only bind mount (bubblewrap), so that even root
 * cannot write them: a folder, or a single file, of the user's checkout that the apply cannot change.
 */
function runCliWithReadOnly(args: string[], cwd: string, env: NodeJS.ProcessEnv, readOnly: string[]): CliRun {
  const binds = readOnly.flatMap((p) => ['--ro-bind', path.join(cwd, p), path.join(cwd, p)]);
  // `/` as it is (devices included, or git cannot open /dev/null), then the read-only paths over it.
  const result = spawnSync('bwrap', ['--bind', '/', '/', '--dev-bind', '/dev', '/dev', ...binds, '--', process.execPath, BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The tree of `rev` holds exactly the agent's change: content, modes, symlink target, rename, deletions. */
function expectRichTree(root: string, rev: string) {
  const entries = Object.fromEntries(
    gitSync(root, 'ls-tree', '-r', rev)
      .trim()
      .split('\n')
      .map((line) => {
        const [meta, name] = line.split('\t');
        const [mode, , sha] = meta!.split(' ');
        return [name!, { mode: mode!, sha: sha! }];
      }),
  );
  expect(Object.keys(entries).sort()).toEqual(
    [
      'elenchos.config.json',
      'app.js',
      'page.html',
      'tasks/add-task.json',
      'tests/add-task_test.md',
      'renamed.txt',
      'script.sh',
      'logo.bin',
      'new.bin',
      'link-to-page',
      'src/deep/new.js',
    ].sort(),
  );
  expect(entries['script.sh']!.mode).toBe('100755');
  expect(entries['link-to-page']!.mode).toBe('120000');
  expect(gitSync(root, 'cat-file', 'blob', entries['link-to-page']!.sha)).toBe('page.html');
  // Bytes, not text: execFileSync without an encoding keeps them exact.
  const blob = (name: string) => execFileSync('git', ['cat-file', 'blob', `${rev}:${name}`], { cwd: root });
  expect(blob('logo.bin').equals(LOGO)).toBe(true);
  expect(blob('new.bin').equals(NEW_BIN)).toBe(true);
  expect(gitSync(root, 'show', `${rev}:renamed.txt`)).toBe('a file the agent renames\n');
}

describe.concurrent('elenchos apply', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('round trip: run → apply --commit → verify on the new HEAD is VERIFIED; binary, rename, deletion, exec bit and symlink survive', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project, result } = await verifiedRun(watch);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { record } = onlyRun(project.root);
    expect(result.stdout).toContain(`take the change: elenchos apply ${record.runId}`);
    const base = gitSync(project.root, 'rev-parse', 'HEAD').trim();

    const applied = await runMain(['apply', record.runId, '--commit'], project.root, project.env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^committed [0-9a-f]{12}: the verified change of run /);
    expect(gitSync(project.root, 'rev-parse', 'HEAD^').trim()).toBe(base);
    expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
    const message = gitSync(project.root, 'log', '-1', '--format=%B');
    expect(message).toContain(`Elenchos-Run: ${record.runId}`);
    const taskHash = record.contract.files.find((f: { role: string }) => f.role === 'task').sha256;
    expect(message).toContain(`Elenchos-Contract: sha256:${taskHash} tasks/add-task.json`);
    expect(gitSync(project.root, 'log', '-1', '--format=%(trailers:key=Elenchos-Run,valueonly)').trim()).toBe(record.runId);
    expectRichTree(project.root, 'HEAD');

    const verified = await runMain(['verify', 'tasks/add-task.json'], project.root, project.env);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toContain('1/1 VERIFIED');
  });

  it('HEAD moved since the run: a branch from the base, the checkout untouched, and how to merge it', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project, result } = await verifiedRun(watch);
    expect(result.code).toBe(0);
    const base = gitSync(project.root, 'rev-parse', 'HEAD').trim();
    writeFileSync(path.join(project.root, 'NOTES.md'), 'someone else committed meanwhile\n');
    gitSync(project.root, 'add', 'NOTES.md');
    gitSync(project.root, 'commit', '-qm', 'meanwhile');
    const before = checkoutFingerprint(project.root);
    const { record } = onlyRun(project.root);

    const applied = await runMain(['apply', 'latest'], project.root, project.env);
    expect(applied.code, applied.stderr).toBe(0);
    const branch = `elenchos/add-task-${record.runId}`;
    expect(applied.stdout).toContain(`created branch ${branch} at `);
    expect(applied.stdout).toContain(`git merge ${branch}`);
    expect(checkoutFingerprint(project.root)).toEqual(before);
    expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
    expect(gitSync(project.root, 'rev-parse', `${branch}^`).trim()).toBe(base);
    expectRichTree(project.root, branch);
    expect(leakedWorktrees(project.root)).toEqual([]);
    // The branch merges into the moved HEAD.
    gitSync(project.root, 'merge', '-q', '--no-edit', branch);
    expect(readFileSync(path.join(project.root, 'renamed.txt'), 'utf8')).toBe('a file the agent renames\n');

    const again = await runMain(['apply', 'latest', '--branch', branch], project.root, project.env);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe(
      `elenchos: branch ${branch} already exists; name another with --branch <name>, or delete it (git branch -D ${branch})\n`,
    );
  });

  it('without --commit the change is left unstaged in the checkout, exactly; --commit without a git identity is refused first', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project } = await verifiedRun(watch);
    const anonymous = await runMain(['apply', '--commit'], project.root, {
      ...project.env,
      GIT_AUTHOR_NAME: '',
      GIT_AUTHOR_EMAIL: '',
      GIT_COMMITTER_NAME: '',
      GIT_COMMITTER_EMAIL: '',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    });
    expect(anonymous.code).toBe(3);
    expect(anonymous.stderr).toBe(
      'elenchos: git does not know who you are, so it cannot commit; set git config user.name and user.email, then apply again\n',
    );
    expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
    const applied = await runMain(['apply'], project.root, project.env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('not staged');
    gitSync(project.root, 'add', '-A');
    expectRichTree(project.root, gitSync(project.root, 'write-tree').trim());
  });

  it('run --apply --commit and run --branch take the change at the end of a VERIFIED run', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project, result } = await verifiedRun(watch, 'implement', ['--apply', '--commit']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/committed [0-9a-f]{12}: the verified change of run /);
    expect(gitSync(project.root, 'show', 'HEAD:page.html')).toContain('Buy milk');
    const branched = await runMain(['run', 'tasks/add-task.json', '--branch', 'feature/add-task'], project.root, project.env);
    expect(branched.code, branched.stdout + branched.stderr).toBe(0);
    expect(branched.stdout).toContain('created branch feature/add-task at ');
    expect(gitSync(project.root, 'rev-parse', 'feature/add-task^').trim()).toBe(gitSync(project.root, 'rev-parse', 'HEAD').trim());
  });
});

describe.concurrent('elenchos apply refuses (exit 3, one line)', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('a run that is not VERIFIED', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({ agent: 'never-fix', config: { maxRepairAttempts: 0 } });
    watch(project.root);
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(1);
    const applied = await runMain(['apply', 'latest'], project.root, project.env);
    expect(applied.code).toBe(3);
    expect(applied.stderr).toMatch(
      /^elenchos: run \S+ is FAILED \(PRODUCT_FAILURE\), not VERIFIED: only a verified change can be applied; elenchos show \S+ says why\n$/,
    );
  });

  it('a dirty tree, and evidence altered after the run (a patched diff.patch, then a resealed manifest too)', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project } = await verifiedRun(watch, 'implement');
    writeFileSync(path.join(project.root, 'scratch.txt'), 'work in progress\n');
    const dirty = await runMain(['apply', 'latest'], project.root, project.env);
    expect(dirty.code).toBe(3);
    expect(dirty.stderr).toMatch(
      /^elenchos: the working tree is not clean \(scratch\.txt\); commit or stash first, or take the change on a branch with elenchos apply \S+ --branch\n$/,
    );

    const { dir } = onlyRun(project.root);
    const patch = path.join(dir, 'attempts/01/workspace/diff.patch');
    writeFileSync(patch, readFileSync(patch, 'utf8').replace('Buy milk', 'Buy beer'));
    const branch = await runMain(['apply', 'latest', '--branch'], project.root, project.env);
    expect(branch.code).toBe(3);
    expect(branch.stderr).toMatch(
      /^elenchos: run \S+: its evidence does not match its manifest \(1 problem\(s\)\), so the stored change cannot be trusted; elenchos evidence verify \S+ lists them\n$/,
    );
    expect(gitSync(project.root, 'branch', '--list', 'elenchos/*')).toBe('');

    // The attacker also rewrites the run's manifest (no signing key): attempt 1's own, sealed when it ended, still
    // names the patch, as evidence verify does.
    await writeManifest(dir);
    const runResealed = await runMain(['apply', 'latest', '--branch'], project.root, project.env);
    expect(runResealed.code).toBe(3);
    expect(runResealed.stderr).toMatch(/^elenchos: run \S+: its evidence does not match its manifest \(1 problem\(s\)\)/);
    // And attempt 1's manifest too: the rebuilt tree still is not the one the verifier passed.
    await writeManifest(path.join(dir, 'attempts/01'));
    await writeManifest(dir);
    const resealed = await runMain(['apply', 'latest', '--branch'], project.root, project.env);
    expect(resealed.code).toBe(3);
    expect(resealed.stderr).toMatch(
      /^elenchos: run \S+: the stored change does not rebuild the tree the verifier passed \(page\.html: .*\); nothing was applied\n$/,
    );
    expect(gitSync(project.root, 'branch', '--list', 'elenchos/*')).toBe('');
    expect(leakedWorktrees(project.root)).toEqual([]);
  });

  it('a new file of the change that the checkout now ignores (and has a file of its own at): nothing is written', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project } = await verifiedRun(watch);
    writeFileSync(path.join(project.root, '.git/info/exclude'), 'new.bin\n', { flag: 'a' });
    writeFileSync(path.join(project.root, 'new.bin'), 'my own file\n');
    const before = checkoutFingerprint(project.root);
    const applied = await runMain(['apply', 'latest', '--commit'], project.root, project.env);
    expect(applied.code).toBe(3);
    // Ignored here, new.bin would be left out of the commit: the rebuilt tree is not the verified one.
    expect(applied.stderr).toMatch(
      /^elenchos: run \S+: the stored change does not rebuild the tree the verifier passed \(new\.bin: deleted\); nothing was applied; a path that reads "deleted" may be hidden by ignore rules added since the run/,
    );
    expect(checkoutFingerprint(project.root)).toEqual(before);
    expect(readFileSync(path.join(project.root, 'new.bin'), 'utf8')).toBe('my own file\n');
  });

  // A review of the apply: only a symlinked folder was checked before writing; anything else in the way failed
  // after `git apply` had already changed the checkout.
  it('an ignored file where the change needs a folder (.env here, the change adds .env/settings.txt): nothing is written', async (ctx) => {
    const watch = leftoversOf(ctx);
    const made = makeProject({ agent: 'unignore-env', files: { '.gitignore': '.env\n' } });
    const project = { ...made, env: { ...made.env, ...IDENTITY } };
    watch(project.root);
    writeFileSync(path.join(project.root, '.env'), 'API_TOKEN=mine\n');
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const before = checkoutFingerprint(project.root, { folders: true });
    const applied = await runMain(['apply', 'latest', '--commit'], project.root, project.env);
    expect(applied.code).toBe(3);
    expect(applied.stderr).toMatch(
      /^elenchos: the stored change writes \.env\/settings\.txt, but \S+\/\.env is a file in your checkout \(one git ignores, so the run never saw it\); nothing was written: move it away, or take the change on a branch \(--branch\)\n$/,
    );
    expect(checkoutFingerprint(project.root, { folders: true })).toEqual(before);
    expect(gitSync(project.root, 'log', '--format=%s')).not.toContain('Verified by Elenchos');
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    'a folder of the checkout that cannot be written (a read-only mount): nothing is written',
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const made = makeProject({ agent: 'rich-change', files: { ...RICH_FILES, 'src/keep.txt': 'kept\n' } });
      const project = { ...made, env: { ...made.env, ...IDENTITY } };
      watch(project.root);
      expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
      const before = checkoutFingerprint(project.root, { folders: true });
      const applied = runCliWithReadOnly(['apply', 'latest'], project.root, project.env, ['src']);
      expect(applied.code, applied.stderr).toBe(3);
      expect(applied.stderr).toMatch(
        /^elenchos: the stored change writes src\/deep\/new\.js, but \S+\/src cannot be written \(EROFS\); nothing was written: make it writable, or take the change on a branch \(--branch\)\n$/,
      );
      expect(checkoutFingerprint(project.root, { folders: true })).toEqual(before);
    },
  );

  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    'a write that fails half-way (page.html on a read-only mount, after git apply wrote logo.bin) is rolled back to the byte',
    async (ctx) => {
      const watch = leftoversOf(ctx);
      const { project, result } = await verifiedRun(watch);
      expect(result.code).toBe(0);
      const before = checkoutFingerprint(project.root, { folders: true });
      const applied = runCliWithReadOnly(['apply', 'latest'], project.root, project.env, ['page.html']);
      expect(applied.code, applied.stderr).toBe(3);
      expect(applied.stderr).toMatch(
        /^elenchos: writing the stored change into \S+ failed \(.*\); every path it had written was put back, so the checkout is as it was: fix the cause, or take the change on a branch \(--branch\)\n$/s,
      );
      expect(applied.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
      expect(checkoutFingerprint(project.root, { folders: true })).toEqual(before);
      expect(gitSync(project.root, 'status', '--porcelain')).toBe('');
    },
  );

  it('a verify run: it made no change', async (ctx) => {
    const watch = leftoversOf(ctx);
    const project = makeProject({
      agent: 'implement',
      files: { 'page.html': '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n' },
    });
    watch(project.root);
    expect((await runMain(['verify', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const applied = await runMain(['apply', 'latest'], project.root, project.env);
    expect(applied.code).toBe(3);
    expect(applied.stderr).toMatch(/is an `elenchos verify` of commit [0-9a-f]{12}: it made no change to apply\n$/);
  });
});
