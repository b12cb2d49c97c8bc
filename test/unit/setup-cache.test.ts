// The setup cache's pieces: the key, the manifest, save/restore with checks, and the attacks on them.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeCacheKey } from '../../src/core/workspace/setup-cache-key.js';
import {
  readCacheManifest,
  readStamps,
  restoreCacheEntry,
  snapshotForSave,
  writeStamps,
} from '../../src/core/workspace/setup-cache-store.js';
import { beginCachedSetup, verifyCachedPaths } from '../../src/core/workspace/setup-cache.js';
import { tryExclusiveLock as tryLock } from '../../src/process/exclusive-lock.js';
import { sha256 } from '../../src/util/sha256.js';
import { compareTree, statSignature, walkTree } from '../../src/util/tree-manifest.js';
import { saveCacheEntry } from '../helpers/setup-cache.js';
import { tempDir, tempRepo, writeFiles, tempCacheKeyFile } from '../helpers/temp.js';

const KEY_FILE = tempCacheKeyFile();

const spec = { command: 'npm ci', key: ['package-lock.json'], paths: ['node_modules'] };

/** A worktree-like repo (node_modules ignored) with an installed tree. */
function installedRepo(lock = '{"v":1}\n'): string {
  const repo = tempRepo({ 'package-lock.json': lock, '.gitignore': 'node_modules\n' });
  writeFiles(repo, { 'node_modules/x/index.js': 'module.exports = 1;\n', 'node_modules/x/package.json': '{"name":"x"}\n' });
  mkdirSync(path.join(repo, 'node_modules/.bin'));
  symlinkSync('../x/index.js', path.join(repo, 'node_modules/.bin/x'));
  chmodSync(path.join(repo, 'node_modules/x/index.js'), 0o755);
  return repo;
}

const controller = new AbortController();
const begin = (cacheDir: string, workspace: string, waitMs = 30_000) =>
  beginCachedSetup({ keyFile: KEY_FILE, cacheDir, workspace, spec, signal: controller.signal, waitMs });

/** Runs one cached setup the way prepareWorktree does, `install` standing in for setup.command. */
async function cachedSetup(cacheDir: string, workspace: string, install: () => void) {
  const cached = await begin(cacheDir, workspace);
  if (cached.kind === 'hit') return cached.report;
  try {
    install();
    return cached.save ? await (await cached.save()).done : cached.report;
  } finally {
    await cached.release();
  }
}

const install = (repo: string) => () => {
  writeFiles(repo, { 'node_modules/x/index.js': 'module.exports = 1;\n', 'node_modules/x/package.json': '{"name":"x"}\n' });
};

describe('computeCacheKey', () => {
  it('changes with a key file, the command or the paths; a missing file is a value of its own', async () => {
    const repo = tempRepo({ 'package-lock.json': 'a' });
    const key = async (s = spec) => {
      const result = await computeCacheKey(repo, s);
      if (!result.ok) throw new Error(result.reason);
      return result.key;
    };
    const first = await key();
    expect(await key()).toBe(first);
    writeFileSync(path.join(repo, 'package-lock.json'), 'b');
    const second = await key();
    expect(second).not.toBe(first);
    expect(await key({ ...spec, command: 'npm install' })).not.toBe(second);
    expect(await key({ ...spec, paths: ['node_modules', 'dist'] })).not.toBe(second);
    writeFileSync(path.join(repo, 'package-lock.json'), '');
    const empty = await key();
    rmSync(path.join(repo, 'package-lock.json'));
    expect(await key()).not.toBe(empty);
  });

  it('refuses a key file that is a symlink (its target could change behind the name)', async () => {
    const repo = tempRepo({ 'real.json': 'a' });
    symlinkSync('real.json', path.join(repo, 'package-lock.json'));
    expect(await computeCacheKey(repo, spec)).toEqual({ ok: false, reason: expect.stringContaining('is a symlink') });
  });
});

describe('walkTree / compareTree', () => {
  it('records files, modes and symlinks, and sees any change to them', async () => {
    const repo = installedRepo();
    const walked = await walkTree(repo, ['node_modules']);
    if (!walked.ok) throw new Error(walked.reason);
    const file = walked.entries.find((entry) => entry.path === 'node_modules/x/index.js');
    expect(file).toMatchObject({ type: 'file', mode: 0o755, size: 20, sha256: sha256('module.exports = 1;\n') });
    expect(walked.entries.find((entry) => entry.type === 'symlink')).toMatchObject({ target: '../x/index.js' });
    expect(await compareTree(repo, ['node_modules'], walked.entries)).toBeNull();
    writeFileSync(path.join(repo, 'node_modules/x/index.js'), 'module.exports = 2;\n');
    expect(await compareTree(repo, ['node_modules'], walked.entries)).toMatch(/index\.js: content differs/);
    writeFileSync(path.join(repo, 'node_modules/x/index.js'), 'module.exports = 1;\n');
    chmodSync(path.join(repo, 'node_modules/x/index.js'), 0o644);
    expect(await compareTree(repo, ['node_modules'], walked.entries)).toMatch(/mode 644/);
    chmodSync(path.join(repo, 'node_modules/x/index.js'), 0o755);
    writeFileSync(path.join(repo, 'node_modules/x/index.mjs'), 'export default 2;\n');
    expect(await compareTree(repo, ['node_modules'], walked.entries)).toMatch(/index\.mjs is not in the manifest/);
  });

  it('refuses a cache path that is a symlink, and a symlink leaving the worktree', async () => {
    const outside = tempDir();
    const repo = tempRepo({ a: 'a' });
    symlinkSync(outside, path.join(repo, 'node_modules'));
    expect(await walkTree(repo, ['node_modules'])).toEqual({ ok: false, reason: expect.stringContaining('is a symlink') });
    rmSync(path.join(repo, 'node_modules'));
    mkdirSync(path.join(repo, 'node_modules'));
    symlinkSync('../../etc', path.join(repo, 'node_modules/up'));
    expect(await walkTree(repo, ['node_modules'])).toEqual({ ok: false, reason: expect.stringContaining('outside the worktree') });
  });
});

describe('save and restore', () => {
  it('restores the same tree by copying, and refuses a tampered, truncated or edited entry', async () => {
    const repo = installedRepo();
    const cacheDir = path.join(tempDir(), 'cache');
    expect(await saveCacheEntry(cacheDir, 'k1', repo, ['node_modules'], KEY_FILE)).toMatchObject({ ok: true, files: 2 });
    const read = await readCacheManifest(cacheDir, 'k1', KEY_FILE);
    if (!read.ok) throw new Error(read.reason);
    const target = tempDir();
    expect(await restoreCacheEntry(cacheDir, read.manifest, target)).toMatchObject({ ok: true });
    expect(await compareTree(target, ['node_modules'], read.manifest.entries)).toBeNull();
    // A copy, not a link: writing to the restored file leaves the entry alone.
    writeFileSync(path.join(target, 'node_modules/x/index.js'), 'evil');
    expect(readFileSync(path.join(cacheDir, 'k1/files/node_modules/x/index.js'), 'utf8')).toBe('module.exports = 1;\n');

    const stored = path.join(cacheDir, 'k1/files/node_modules/x/index.js');
    chmodSync(stored, 0o644);
    writeFileSync(stored, 'module.exports = 1;'); // truncated
    expect(await restoreCacheEntry(cacheDir, read.manifest, tempDir())).toEqual({ ok: false, reason: expect.stringContaining('differs') });

    const manifestFile = path.join(cacheDir, 'k1/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    manifest.entries[0].mode = 0o777;
    writeFileSync(manifestFile, JSON.stringify(manifest));
    expect(await readCacheManifest(cacheDir, 'k1', KEY_FILE)).toMatchObject({
      ok: false,
      exists: true,
      reason: expect.stringContaining('edited'),
    });
  });

  it('removes what a killed save or discard left behind, never a live save', async () => {
    const repo = installedRepo();
    const cacheDir = path.join(tempDir(), 'cache');
    const dead = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim());
    const key = 'a'.repeat(64);
    const live = [`.saving-${process.pid}-live`, `.discarded-kept-${process.pid}-live`, `.discarded-${key}-${process.pid}-1`];
    for (const name of [`.saving-${dead}-abc`, `.discarded-${key}-${dead}-2`, `.discarded-kept-${dead}-x`, ...live])
      mkdirSync(path.join(cacheDir, name, 'files'), { recursive: true });
    await saveCacheEntry(cacheDir, 'k3', repo, ['node_modules'], KEY_FILE);
    expect(readdirSync(cacheDir).sort()).toEqual([...live, 'k3'].sort());
  });

  it('refuses a manifest rewritten whole (digest recomputed) that would write outside the cache paths', async () => {
    const repo = installedRepo();
    const cacheDir = path.join(tempDir(), 'cache');
    await saveCacheEntry(cacheDir, 'k2', repo, ['node_modules'], KEY_FILE);
    const manifestFile = path.join(cacheDir, 'k2/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    manifest.entries.push({ path: 'node_modules/../.git/hooks/pre-commit', type: 'file', mode: 0o755, size: 0, sha256: sha256('') });
    const { digest: _, ...rest } = manifest;
    manifest.digest = sha256(JSON.stringify([rest.version, rest.key, rest.platform, rest.paths, rest.entries]));
    writeFileSync(manifestFile, JSON.stringify(manifest));
    expect(await readCacheManifest(cacheDir, 'k2', KEY_FILE)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('outside setup.cache.paths'),
    });
  });
});

describe('beginCachedSetup', () => {
  it('misses, saves, then restores a pristine copy in the next worktree even after run 1 edited its own', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    expect(await cachedSetup(cacheDir, one, install(one))).toMatchObject({
      status: 'miss',
      message: expect.stringMatching(/^saved 2 files/),
    });
    writeFileSync(path.join(one, 'node_modules/x/index.js'), 'module.exports = "poisoned";\n'); // the agent of run 1
    const two = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    let ran = false;
    expect(await cachedSetup(cacheDir, two, () => (ran = true))).toMatchObject({ status: 'hit' });
    expect(ran).toBe(false);
    expect(readFileSync(path.join(two, 'node_modules/x/index.js'), 'utf8')).toBe('module.exports = 1;\n');
  });

  it('gives a worktree whose agent changed the lockfile a fresh setup', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    await cachedSetup(cacheDir, one, install(one));
    const two = tempRepo({ 'package-lock.json': 'L1 + left-pad', '.gitignore': 'node_modules\n' });
    let ran = false;
    expect(await cachedSetup(cacheDir, two, () => ((ran = true), install(two)()))).toMatchObject({ status: 'miss' });
    expect(ran).toBe(true);
  });

  it('detects an entry written through a symlink an agent planted in its worktree, discards it, runs setup', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const saved = await cachedSetup(cacheDir, one, install(one));
    // The agent plants a link to the entry and writes through it (the stored file is read-only; it chmods).
    symlinkSync(path.join(cacheDir, saved.key ?? '', 'files/node_modules/x'), path.join(one, 'door'));
    chmodSync(path.join(one, 'door/index.js'), 0o644);
    writeFileSync(path.join(one, 'door/index.js'), 'module.exports = "poisoned";\n');
    const two = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const report = await cachedSetup(cacheDir, two, install(two));
    expect(report).toMatchObject({
      status: 'rejected',
      warnings: [expect.stringMatching(/discarded: node_modules\/x\/index\.js differs/)],
    });
    expect(readFileSync(path.join(two, 'node_modules/x/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    // The fresh setup saved a clean entry again.
    expect(await cachedSetup(cacheDir, tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' }), () => {})).toMatchObject({
      status: 'hit',
    });
  });

  it('never caches a path git tracks, nor with a key file that is a symlink', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const tracked = tempRepo({ 'package-lock.json': 'L1', 'node_modules/x/index.js': 'tracked' });
    const cached = await begin(cacheDir, tracked);
    expect(cached).toMatchObject({ kind: 'run', save: null, report: { status: 'off', warnings: [expect.stringContaining('is tracked')] } });
    expect(existsSync(path.join(tracked, 'node_modules/x/index.js'))).toBe(true);
    const linked = tempRepo({ 'real.json': 'L1', '.gitignore': 'node_modules\n' });
    symlinkSync('real.json', path.join(linked, 'package-lock.json'));
    expect(await begin(cacheDir, linked)).toMatchObject({ kind: 'run', save: null, report: { status: 'off' } });
    const parentLinked = tempRepo({ 'package-lock.json': 'L1' });
    symlinkSync(tempDir(), path.join(parentLinked, 'packages'));
    expect(
      await beginCachedSetup({
        keyFile: KEY_FILE,
        cacheDir,
        workspace: parentLinked,
        spec: { ...spec, paths: ['packages/a/node_modules'] },
        signal: controller.signal,
        waitMs: 0,
      }),
    ).toMatchObject({
      report: { status: 'off', warnings: [expect.stringContaining('packages is a symlink')] },
    });
    for (const paths of [['.git'], ['.elenchos/cache'], ['node_modules', 'node_modules/x']]) {
      const off = await beginCachedSetup({
        keyFile: KEY_FILE,
        cacheDir,
        workspace: tracked,
        spec: { ...spec, paths },
        signal: controller.signal,
        waitMs: 0,
      });
      expect(off).toMatchObject({
        kind: 'run',
        save: null,
        report: { status: 'off', warnings: [expect.stringContaining('cannot be a cache path')] },
      });
    }
  });

  it('refuses to save a cache path that is a symlink pointing outside the worktree', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const outside = tempDir();
    writeFiles(outside, { 'x/index.js': 'outside' });
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const report = await cachedSetup(cacheDir, one, () => symlinkSync(outside, path.join(one, 'node_modules')));
    expect(report).toMatchObject({ status: 'miss', message: expect.stringContaining('not saved: node_modules is a symlink') });
    expect(readdirSync(cacheDir).filter((name) => !name.endsWith('.lock'))).toEqual([]);
  });

  it('a save that fails costs a warning, never the run', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const report = await cachedSetup(cacheDir, one, () => {
      install(one)();
      rmSync(cacheDir, { recursive: true });
      writeFileSync(cacheDir, 'not a folder'); // the cache folder is gone and a file sits at its name
    });
    expect(report).toMatchObject({
      status: 'miss',
      message: expect.stringContaining('not saved'),
      warnings: [expect.stringContaining('not saved')],
    });
  });

  it('verifies kept cache paths (a warm worktree): a tampered kept file is thrown away and restored', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const saved = await cachedSetup(cacheDir, one, install(one));
    expect(await verifyCachedPaths(cacheDir, one, saved.key ?? '', ['node_modules'], KEY_FILE)).toEqual({ ok: true });
    expect(await cachedSetup(cacheDir, one, () => {})).toMatchObject({
      status: 'hit',
      message: expect.stringMatching(/^kept node_modules verified/),
    });
    writeFileSync(path.join(one, 'node_modules/x/index.js'), 'module.exports = "poisoned";\n');
    expect(await verifyCachedPaths(cacheDir, one, saved.key ?? '', ['node_modules'], KEY_FILE)).toEqual({
      ok: false,
      reason: expect.stringContaining('content differs'),
    });
    const again = await cachedSetup(cacheDir, one, () => {});
    expect(again).toMatchObject({ status: 'hit', warnings: [expect.stringContaining('thrown away')] });
    expect(readFileSync(path.join(one, 'node_modules/x/index.js'), 'utf8')).toBe('module.exports = 1;\n');
  });

  it('re-reads only files whose stat signature changed, and a same-size edit with its mtime put back is still caught', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const saved = await cachedSetup(cacheDir, one, install(one));
    const file = path.join(one, 'node_modules/x/index.js');
    const before = statSync(file);
    // The agent's careful edit: same size, mtime restored. ctime cannot be restored by any process.
    writeFileSync(file, 'module.exports = 9;\n');
    utimesSync(file, before.atime, before.mtime);
    expect(await verifyCachedPaths(cacheDir, one, saved.key ?? '', ['node_modules'], KEY_FILE)).toEqual({
      ok: false,
      reason: expect.stringContaining('content differs'),
    });
  });

  it('trusts a recorded signature without reading the file (why the signature must include ctime)', async () => {
    const repo = installedRepo();
    const signatures = new Map<string, string>();
    const walked = await walkTree(repo, ['node_modules'], { signatures });
    if (!walked.ok) throw new Error(walked.reason);
    const forged = walked.entries.map((entry) => (entry.type === 'file' ? { ...entry, sha256: sha256('something else') } : entry));
    expect(await compareTree(repo, ['node_modules'], forged, { trusted: signatures })).toBeNull();
    expect(await compareTree(repo, ['node_modules'], forged)).toMatch(/content differs/);
  });

  it('lets concurrent worktrees sharing a key do the setup once; the others wait and restore', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const trees = [1, 2, 3].map(() => tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' }));
    const first = await begin(cacheDir, trees[0] as string);
    expect(first.kind).toBe('run');
    const waiting = trees.slice(1).map((tree) => begin(cacheDir, tree));
    install(trees[0] as string)();
    if (first.kind === 'run') {
      await first.save?.();
      await first.release();
    }
    for (const result of await Promise.all(waiting)) expect(result).toMatchObject({ kind: 'hit', report: { status: 'hit' } });
  });
});

describe('beginCachedSetup waiting for another run', () => {
  it('hands the setup to a waiter when the owner of the key failed, and stops waiting on abort', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const [a, b, c] = [1, 2, 3].map(() => tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' })) as [
      string,
      string,
      string,
    ];
    const owner = await begin(cacheDir, a);
    expect(owner.kind).toBe('run');
    const waiter = begin(cacheDir, b);
    const aborted = new AbortController();
    const quitter = beginCachedSetup({ keyFile: KEY_FILE, cacheDir, workspace: c, spec, signal: aborted.signal, waitMs: 30_000 });
    aborted.abort();
    await expect(quitter).rejects.toThrow(/interrupted while waiting/);
    if (owner.kind === 'run') await owner.release(); // its setup.command failed: nothing saved
    expect(await waiter).toMatchObject({ kind: 'run', report: { status: 'miss' }, save: expect.any(Function) });
  });
});

describe('the setup lock (tryExclusiveLock)', () => {
  it('is exclusive while its owner lives, and taken over from a dead owner', async () => {
    const file = path.join(tempDir(), 'k.lock');
    const lock = await tryLock(file);
    expect(lock).not.toBeNull();
    expect(await tryLock(file)).toBeNull();
    await lock?.release();
    const dead = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim());
    writeFileSync(file, JSON.stringify({ pid: dead, startTime: '1' }));
    const taken = await tryLock(file);
    expect(taken).not.toBeNull();
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(process.pid);
    await taken?.release();
    expect(existsSync(file)).toBe(false);
  });
});

describe('stamps of a kept cache path', () => {
  it('follow the worktree folder when it moves (pool ⇄ run path), and never pass to another folder at its old path', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const home = tempDir();
    const workspace = path.join(home, 'pool-0');
    mkdirSync(workspace);
    const signatures = new Map([['node_modules/a/index.js', 'sig-1']]);
    await writeStamps(cacheDir, 'k1', workspace, signatures, KEY_FILE);
    const moved = path.join(home, 'run-1');
    renameSync(workspace, moved); // what taking a warm worktree does (git worktree move)
    expect(await readStamps(cacheDir, 'k1', moved, KEY_FILE)).toEqual(signatures);
    mkdirSync(workspace); // a new folder where the old one was: another worktree, not proven by these stamps
    expect(await readStamps(cacheDir, 'k1', workspace, KEY_FILE)).toEqual(new Map());
    expect(await readStamps(cacheDir, 'k2', moved, KEY_FILE)).toEqual(new Map());
  });
});

// The save of a miss is copied while the agent works: what setup left is recorded before the
// agent starts (structure, modes, link targets, stat signatures) and each file is copied only if it
// still has its recorded signature. Every attack below must end with no entry or the pre-agent tree.
describe('the background save of a miss, against an agent working meanwhile', () => {
  const PRISTINE = 'module.exports = 1;\n';
  const EDITED = 'module.exports = 2;\n'; // same size: only the ctime can tell

  /**
   * One miss: `install` is setup.command; `agent` runs after the snapshot (the agent has started) and
   * before the copy reads a file; `racing(rel)` runs between reading a file and checking its signature.
   */
  async function missWhileAgentWorks(
    cacheDir: string,
    workspace: string,
    hooks: { agent?: () => void; racing?: (rel: string) => void; setup?: () => void } = {},
  ) {
    const cached = await beginCachedSetup({
      keyFile: KEY_FILE,
      cacheDir,
      workspace,
      spec,
      signal: controller.signal,
      waitMs: 30_000,
      beforeCopy: async () => hooks.agent?.(),
      afterRead: async (rel) => hooks.racing?.(rel),
    });
    if (cached.kind !== 'run' || !cached.save) throw new Error(`expected a miss: ${JSON.stringify(cached.report)}`);
    (hooks.setup ?? install(workspace))();
    const pending = await cached.save();
    await cached.release(); // what prepareWorktree does at once: the save owns the lock now
    return pending.done;
  }

  /** What a later worktree restores from the entry (null: no entry published). */
  async function restoredTree(cacheDir: string): Promise<Record<string, string> | null> {
    const two = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    const cached = await begin(cacheDir, two, 1000);
    if (cached.kind !== 'hit') return null;
    const read = await walkTree(two, ['node_modules']);
    if (!read.ok) throw new Error(read.reason);
    return Object.fromEntries(
      read.entries.map((entry) => [
        entry.path,
        entry.type === 'file'
          ? `${entry.mode.toString(8)} ${readFileSync(path.join(two, entry.path), 'utf8')}`
          : `${entry.type} ${entry.mode.toString(8)} ${entry.target ?? ''}`,
      ]),
    );
  }

  const PRE_AGENT = {
    node_modules: 'dir 755 ',
    'node_modules/x': 'dir 755 ',
    'node_modules/x/index.js': `644 ${PRISTINE}`,
    'node_modules/x/package.json': '644 {"name":"x"}\n',
  };
  const fresh = () => ({
    cacheDir: path.join(tempDir(), 'cache'),
    one: tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' }),
  });
  const file = (repo: string) => path.join(repo, 'node_modules/x/index.js');

  it('publishes the pre-agent tree when the agent changes nothing (the baseline of the attacks)', async () => {
    const { cacheDir, one } = fresh();
    expect(await missWhileAgentWorks(cacheDir, one)).toMatchObject({ status: 'miss', message: expect.stringMatching(/^saved 2 files/) });
    expect(await restoredTree(cacheDir)).toEqual(PRE_AGENT);
  });

  it('an edit before the copy, same size, mtime put back: nothing published', async () => {
    const { cacheDir, one } = fresh();
    const report = await missWhileAgentWorks(cacheDir, one, {
      agent: () => {
        const before = statSync(file(one));
        writeFileSync(file(one), EDITED);
        utimesSync(file(one), before.atime, before.mtime);
      },
    });
    expect(report.message).toMatch(/^not saved: node_modules\/x\/index\.js changed after setup, before it was copied/);
    expect(report.warnings).toEqual([expect.stringContaining('setup cache not saved')]);
    expect(await restoredTree(cacheDir)).toBeNull();
    expect(readdirSync(cacheDir).filter((name) => !name.endsWith('.lock'))).toEqual([]); // no stage left either
  });

  it('an edit after the copy: the entry is the pre-agent tree, and the edited kept copy is not trusted', async () => {
    const { cacheDir, one } = fresh();
    expect((await missWhileAgentWorks(cacheDir, one)).message).toMatch(/^saved/);
    const before = statSync(file(one));
    writeFileSync(file(one), EDITED);
    utimesSync(file(one), before.atime, before.mtime);
    expect(await restoredTree(cacheDir)).toEqual(PRE_AGENT);
    const key = await computeCacheKey(one, spec);
    if (!key.ok) throw new Error(key.reason);
    // The stamps written on publish are the pre-agent signatures: the edited file is re-read and refused.
    expect(await verifyCachedPaths(cacheDir, one, key.key, spec.paths, KEY_FILE)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/content differs/),
    });
  });

  it('a write racing the copy of a file (between its read and its check): nothing published', async () => {
    const { cacheDir, one } = fresh();
    const report = await missWhileAgentWorks(cacheDir, one, {
      racing: (rel) => {
        if (rel === 'node_modules/x/index.js') writeFileSync(file(one), EDITED);
      },
    });
    expect(report.message).toMatch(/^not saved: node_modules\/x\/index\.js changed after setup/);
    expect(await restoredTree(cacheDir)).toBeNull();
  });

  it('an edit to one file while another is copied: no entry, or one equal to the pre-agent tree', async () => {
    const { cacheDir, one } = fresh();
    await missWhileAgentWorks(cacheDir, one, {
      racing: (rel) => {
        if (rel === 'node_modules/x/package.json') writeFileSync(file(one), EDITED);
      },
    });
    const restored = await restoredTree(cacheDir);
    if (restored !== null) expect(restored).toEqual(PRE_AGENT);
  });

  it('a file replaced by a symlink to the same content, or by a new file with the same bytes and mtime: nothing published', async () => {
    for (const replace of [
      (one: string) => {
        writeFileSync(path.join(one, 'same.js'), PRISTINE);
        rmSync(file(one));
        symlinkSync('../../same.js', file(one));
      },
      (one: string) => {
        const before = statSync(file(one));
        writeFileSync(path.join(one, 'node_modules/x/new.js'), PRISTINE);
        utimesSync(path.join(one, 'node_modules/x/new.js'), before.atime, before.mtime);
        renameSync(path.join(one, 'node_modules/x/new.js'), file(one));
      },
    ]) {
      const { cacheDir, one } = fresh();
      const report = await missWhileAgentWorks(cacheDir, one, { agent: () => replace(one) });
      expect(report.message).toMatch(/^not saved: node_modules\/x\/index\.js (could not be read|changed) after setup/);
      expect(await restoredTree(cacheDir)).toBeNull();
    }
  });

  it('a file deleted or chmod-ed before its copy: nothing published', async () => {
    for (const attack of [(one: string) => rmSync(file(one)), (one: string) => chmodSync(file(one), 0o755)]) {
      const { cacheDir, one } = fresh();
      const report = await missWhileAgentWorks(cacheDir, one, { agent: () => attack(one) });
      expect(report.message).toMatch(/^not saved: node_modules\/x\/index\.js/);
      expect(await restoredTree(cacheDir)).toBeNull();
    }
  });

  it('a file or folder added, a folder chmod-ed, a symlink planted: the entry is the pre-agent tree all the same', async () => {
    const { cacheDir, one } = fresh();
    const report = await missWhileAgentWorks(cacheDir, one, {
      agent: () => {
        writeFiles(one, { 'node_modules/evil.js': 'steal()\n', 'node_modules/y/index.js': 'steal()\n' });
        symlinkSync('../../../.ssh', path.join(one, 'node_modules/x/ssh'));
        chmodSync(path.join(one, 'node_modules/x'), 0o777);
      },
    });
    expect(report.message).toMatch(/^saved 2 files/);
    expect(await restoredTree(cacheDir)).toEqual(PRE_AGENT);
  });

  it("a symlink retargeted before the copy keeps setup's target in the entry", async () => {
    const { cacheDir, one } = fresh();
    const report = await missWhileAgentWorks(cacheDir, one, {
      setup: () => {
        install(one)();
        mkdirSync(path.join(one, 'node_modules/.bin'));
        symlinkSync('../x/index.js', path.join(one, 'node_modules/.bin/x'));
      },
      agent: () => {
        rmSync(path.join(one, 'node_modules/.bin/x'));
        symlinkSync('../../evil.js', path.join(one, 'node_modules/.bin/x'));
      },
    });
    expect(report.message).toMatch(/^saved/);
    expect((await restoredTree(cacheDir))?.['node_modules/.bin/x']).toBe('symlink 0 ../x/index.js');
  });

  it('an abandoned copy publishes nothing and frees the key; until then, waiters for the key wait instead of running setup', async () => {
    const { cacheDir, one } = fresh();
    let letGo = () => undefined as void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const cached = await beginCachedSetup({
      keyFile: KEY_FILE,
      cacheDir,
      workspace: one,
      spec,
      signal: controller.signal,
      waitMs: 30_000,
      beforeCopy: () => gate,
    });
    if (cached.kind !== 'run' || !cached.save) throw new Error('expected a miss');
    install(one)();
    const pending = await cached.save();
    await cached.release();
    // The copy is held at its start: the key's lock is still the save's, so a waiter neither runs setup nor gets a hit yet.
    const two = tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });
    let settled = false;
    const waiter = begin(cacheDir, two).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 600)); // several of the waiter's polls
    expect(settled).toBe(false);
    const abandoned = pending.abandon('the run ended');
    letGo();
    expect((await abandoned).message).toBe('not saved: the run ended');
    expect(await pending.done).toBe(await abandoned);
    // Freed: the waiter takes the key itself (a miss), and no entry was published.
    expect(await waiter).toMatchObject({ kind: 'run', report: { status: 'miss' } });
    expect((await readCacheManifest(cacheDir, ((await computeCacheKey(one, spec)) as { key: string }).key, KEY_FILE)).ok).toBe(false);
  });

  it('the snapshot returns only once the file system clock has passed every recorded ctime', async () => {
    const { one } = fresh();
    install(one)();
    const snap = await snapshotForSave(one, ['node_modules']);
    if (!snap.ok) throw new Error(snap.reason);
    // The fastest possible agent: a same-size write with the mtime put back, right after the snapshot.
    const before = statSync(file(one));
    writeFileSync(file(one), EDITED);
    utimesSync(file(one), before.atime, before.mtime);
    expect(statSignature(lstatSync(file(one), { bigint: true }))).not.toBe(snap.snapshot.signatures.get('node_modules/x/index.js'));
  });
});
