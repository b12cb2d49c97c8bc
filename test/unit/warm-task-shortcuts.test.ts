// The shortcuts a warm `verify` task takes (docs/performance.md "What a warm task is made of"),
// each attacked the way an agent would try to get a tampered tree or a hidden process past it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCacheManifest } from '../../src/core/workspace/setup-cache-store.js';
import { saveCacheEntry } from '../helpers/setup-cache.js';
import { beginCachedSetup, verifyCachedPaths } from '../../src/core/workspace/setup-cache.js';
import { commonGitDir } from '../../src/git/git.js';
import { trackedInCommit, trackedUnder } from '../../src/git/tracked-paths.js';
import { captureGitState } from '../../src/git/git-state.js';
import { worktreeGitDirs } from '../../src/git/worktree-reset.js';
import { ensureExcluded } from '../../src/git/worktree.js';
import { killEscapedProcesses, PROCESS_TAG_ENV, scanEscapedProcesses } from '../../src/process/escaped-processes.js';
import { sha256 } from '../../src/util/sha256.js';
import { gitSync, tempDir, tempRepo, writeFiles, tempCacheKeyFile } from '../helpers/temp.js';

const KEY_FILE = tempCacheKeyFile();

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid && child.exitCode === null) child.kill('SIGKILL');
});

const key = 'c'.repeat(64);

async function savedEntry() {
  const workspace = tempDir('elenchos-kept-');
  writeFiles(workspace, { 'node_modules/x/index.js': 'module.exports = 1;\n', 'node_modules/x/package.json': '{"name":"x"}\n' });
  const cacheDir = tempDir('elenchos-cache-');
  expect((await saveCacheEntry(cacheDir, key, workspace, ['node_modules'], KEY_FILE)).ok).toBe(true);
  return { workspace, cacheDir, manifest: path.join(cacheDir, key, 'manifest.json') };
}

/** Waits until the file system clock has moved past `file`'s ctime (a rewrite then gets a new one). */
async function clockPast(file: string, dir: string): Promise<void> {
  const before = statSync(file, { bigint: true }).ctimeNs;
  for (let i = 0; ; i++) {
    const probe = path.join(dir, `.clock-${i}`);
    writeFileSync(probe, '');
    if (statSync(probe, { bigint: true }).ctimeNs > before) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Puts `file`'s mtime back to the nanosecond (`touch -d @s.ns`: a Date or a float would round it). */
function putMtimeBack(file: string, mtimeNs: bigint): void {
  const seconds = mtimeNs / 1_000_000_000n;
  const fraction = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
  execFileSync('touch', ['-m', '-d', `@${seconds}.${fraction}`, file]);
}

describe('a manifest already checked in this process', () => {
  it('is read again when rewritten with its size and mtime put back (ctime), so an edit is still refused', async () => {
    const { cacheDir, manifest } = await savedEntry();
    expect((await readCacheManifest(cacheDir, key, KEY_FILE)).ok).toBe(true); // now remembered
    const before = statSync(manifest, { bigint: true });
    const text = readFileSync(manifest, 'utf8');
    // Same length, one hash changed: an entry that would vouch for another file's bytes.
    const sha = /"sha256":"([0-9a-f]{64})"/.exec(text)![1]!;
    const forged = text.replace(sha, sha256('something else'));
    expect(forged.length).toBe(text.length);
    await clockPast(manifest, cacheDir);
    writeFileSync(manifest, forged);
    putMtimeBack(manifest, before.mtimeNs);
    const after = statSync(manifest, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    expect(after.ctimeNs).not.toBe(before.ctimeNs);
    const read = await readCacheManifest(cacheDir, key, KEY_FILE);
    expect(read).toMatchObject({ ok: false, reason: 'the manifest was edited or is not for this key' });
    // And the kept tree is no longer proven by it.
    expect(read.ok).toBe(false);
  });

  it('is read again when another file is renamed over it, and never serves a manifest of another key', async () => {
    const { cacheDir, manifest } = await savedEntry();
    expect((await readCacheManifest(cacheDir, key, KEY_FILE)).ok).toBe(true);
    const copy = `${manifest}.copy`;
    writeFileSync(copy, readFileSync(manifest, 'utf8').replace('"version":1', '"version":2'));
    renameSync(copy, manifest);
    expect((await readCacheManifest(cacheDir, key, KEY_FILE)).ok).toBe(false);
    expect((await readCacheManifest(cacheDir, 'd'.repeat(64), KEY_FILE)).ok).toBe(false);
  });

  it('still lets the kept check find a file changed after the manifest was remembered', async () => {
    const { workspace, cacheDir } = await savedEntry();
    expect(await verifyCachedPaths(cacheDir, workspace, key, ['node_modules'], KEY_FILE)).toEqual({ ok: true });
    const file = path.join(workspace, 'node_modules/x/index.js');
    const before = statSync(file, { bigint: true });
    await clockPast(file, workspace);
    writeFileSync(file, 'module.exports = 2;\n'); // same size
    putMtimeBack(file, before.mtimeNs);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    expect(await verifyCachedPaths(cacheDir, workspace, key, ['node_modules'], KEY_FILE)).toMatchObject({
      ok: false,
      reason: 'node_modules/x/index.js: content differs',
    });
  });
});

describe('the /proc scans skip kernel threads', () => {
  it('still find a user process named like a kernel thread, by its cwd and by its tag', async () => {
    const worktree = tempDir('elenchos-worktree-');
    const ready = path.join(worktree, 'ready');
    const tag = `run-${process.pid}/1/app`;
    // exec -a gives it the name a kernel worker shows in ps: the skip must not go by name.
    const child = spawn(
      'bash',
      ['-c', `exec -a '[kworker/0:1-events]' node -e "require('fs').writeFileSync('${ready}', ''); setInterval(() => {}, 1000)"`],
      { cwd: worktree, env: { ...process.env, [PROCESS_TAG_ENV]: tag }, detached: true, stdio: 'ignore' },
    );
    started.push(child);
    while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));
    const found = scanEscapedProcesses({ directories: [worktree] }).found.find((p) => p.pid === child.pid);
    expect(found?.found).toContain('cwd');
    expect(found?.command).toContain('kworker');
    const byTag = scanEscapedProcesses({ tags: [tag] }).found.find((p) => p.pid === child.pid);
    expect(byTag?.found).toEqual(['marker']);
    const swept = await killEscapedProcesses({ tags: [tag], directories: [worktree] });
    expect(swept.killed.map((p) => p.pid)).toContain(child.pid);
    expect(swept.survivors).toEqual([]);
  });

  it('find a tag that is not the first variable of a long environment', async () => {
    const worktree = tempDir('elenchos-worktree-');
    const ready = path.join(worktree, 'ready');
    const tag = `run-${process.pid}/2/agent`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (let i = 0; i < 200; i++) env[`FILLER_${i}`] = 'x'.repeat(100);
    env[PROCESS_TAG_ENV] = tag;
    const child = spawn(process.execPath, ['-e', `require('fs').writeFileSync('${ready}', ''); setInterval(() => {}, 1000)`], {
      cwd: tempDir('elenchos-outside-'),
      env,
      detached: true,
      stdio: 'ignore',
    });
    started.push(child);
    while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(scanEscapedProcesses({ tags: [tag] }).found.map((p) => p.pid)).toContain(child.pid);
    expect(scanEscapedProcesses({ tagPrefixes: [`run-${process.pid}/2/`] }).found.map((p) => p.pid)).toContain(child.pid);
    // A variable whose value merely contains the tag is not the tag.
    expect(scanEscapedProcesses({ tags: [`${tag}-not`] }).found.map((p) => p.pid)).not.toContain(child.pid);
  });
});

describe('the common git folder, asked once per process', () => {
  it('is where git keeps info/exclude, from the main checkout and from a linked worktree', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const common = await commonGitDir(repo);
    expect(common).toBe(path.join(repo, '.git'));
    expect(await ensureExcluded(repo)).toBe(true);
    expect(readFileSync(path.join(repo, '.git/info/exclude'), 'utf8')).toContain('.elenchos/\n');
    expect(await ensureExcluded(repo)).toBe(false);
    const linked = path.join(tempDir('elenchos-linked-'), 'wt');
    execFileSync('git', ['worktree', 'add', '-q', '--detach', linked], { cwd: repo });
    expect(await commonGitDir(linked)).toBe(path.join(repo, '.git'));
    expect(await ensureExcluded(linked, 'extra/')).toBe(true);
    const gitSays = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-path', 'info/exclude'], {
      cwd: linked,
      encoding: 'utf8',
    });
    expect(readFileSync(gitSays.trim(), 'utf8')).toContain('extra/\n');
  });
});

describe("the setup cache's tracked-path check, read from the commit once per process", () => {
  const spec = { command: 'npm ci', key: ['package-lock.json'], paths: ['node_modules'] };
  const lookup = (workspace: string, commit: string) =>
    beginCachedSetup({
      keyFile: KEY_FILE,
      cacheDir: tempDir('elenchos-cache-'),
      workspace,
      spec,
      signal: new AbortController().signal,
      waitMs: 1000,
      commit,
    });

  it('still turns the cache off for a commit that tracks a file under a cache path, after a clean commit was asked', async () => {
    const repo = tempRepo({ 'package-lock.json': '{}\n', '.gitignore': 'node_modules\n' });
    const clean = gitSync(repo, 'rev-parse', 'HEAD').trim();
    expect(await trackedInCommit(repo, clean, ['node_modules'])).toEqual([]);
    // The agent's commit forces a file under node_modules into the history: the next task's base.
    writeFiles(repo, { 'node_modules/x/index.js': 'module.exports = "planted";\n' });
    gitSync(repo, 'add', '-f', 'node_modules/x/index.js');
    gitSync(repo, 'commit', '-qm', 'track node_modules');
    const planted = gitSync(repo, 'rev-parse', 'HEAD').trim();
    const worktree = path.join(tempDir('elenchos-wt-'), 'wt');
    gitSync(repo, 'worktree', 'add', '-q', '--detach', worktree, planted);
    const off = await lookup(worktree, planted);
    expect(off.kind).toBe('run');
    expect(off.report).toMatchObject({ status: 'off' });
    expect(off.report.warnings.join('\n')).toContain('node_modules/x/index.js is tracked by git');
    // The committed file is never removed or replaced by a cached copy.
    expect(readFileSync(path.join(worktree, 'node_modules/x/index.js'), 'utf8')).toBe('module.exports = "planted";\n');
    // Asked of the commit, not of whatever stands at a path: the clean commit's answer is still its own.
    expect(await trackedInCommit(worktree, clean, ['node_modules'])).toEqual([]);
    expect(await trackedInCommit(worktree, planted, ['node_modules'])).toEqual(['node_modules/x/index.js']);
  });

  it('gives what `git ls-files --cached` gives in a worktree just checked out at the commit', async () => {
    const repo = tempRepo({ 'vendor/a.js': 'a\n', 'vendor/deep/b.js': 'b\n', 'vendorx/c.js': 'c\n', 'node_modules.md': 'n\n' });
    const head = gitSync(repo, 'rev-parse', 'HEAD').trim();
    for (const paths of [['vendor'], ['node_modules'], ['vendor/deep', 'vendorx'], ['vendor*']])
      expect(await trackedInCommit(repo, head, paths)).toEqual(await trackedUnder(repo, paths));
  });
});

describe("a task's git folders, read from the worktree's link instead of asked of git", () => {
  it("are git's own answer for a worktree of ours, and nothing for a link that does not point back", async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const linked = path.join(tempDir('elenchos-linked-'), 'wt');
    gitSync(repo, 'worktree', 'add', '-q', '--detach', linked);
    const [common, own] = gitSync(linked, 'rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir').trim().split('\n');
    expect(await worktreeGitDirs(repo, linked)).toEqual({ commonDir: common, gitDir: own });
    // A worktree whose .git an agent repointed at another repository's admin folder proves nothing: git is asked.
    const other = tempRepo({ 'b.txt': 'b\n' });
    const elsewhere = path.join(tempDir('elenchos-linked-'), 'wt');
    gitSync(other, 'worktree', 'add', '-q', '--detach', elsewhere);
    writeFileSync(path.join(linked, '.git'), readFileSync(path.join(elsewhere, '.git')));
    expect(await worktreeGitDirs(repo, linked)).toBeUndefined();
    // So the settings read are the ones git would obey there (the other repository's config).
    const state = await captureGitState(linked, { HOME: tempDir('elenchos-home-') }, await worktreeGitDirs(repo, linked));
    expect(state.commonDir).toBe(path.join(other, '.git'));
  });
});
