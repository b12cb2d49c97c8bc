// The warm worktree pool against real repositories: take, return, reset, discard, and the agent of
// one run trying to leave something for the next (each attack a test).
// @module-tag slow
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { dropTouchedSlots, markPool } from '../../src/core/workspace/pool-guard.js';
import { verifyCachedPaths } from '../../src/core/workspace/setup-cache.js';
import { computeCacheKey } from '../../src/core/workspace/setup-cache-key.js';
import { saveCacheEntry } from '../helpers/setup-cache.js';
import { returnWorktree, takeWorktree, trimPool } from '../../src/core/workspace/worktree-pool.js';
import { filesHolding } from '../helpers/secret-leak.js';
import { gitSync, tempDir, tempRepo, writeFiles, tempCacheKeyFile } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const KEY_FILE = tempCacheKeyFile();

const FILES = {
  '.gitignore': 'node_modules/\n*.log\ndist/\n',
  'src/app.js': 'export const app = 1;\n',
  'src/lib/util.js': 'export const util = 2;\n',
  'README.md': '# demo\n',
};

function repo(): { root: string; base: string } {
  const root = tempRepo(FILES);
  return { root, base: gitSync(root, 'rev-parse', 'HEAD').trim() };
}

let counter = 0;
const workspace = (root: string) => path.join(root, '.elenchos', 'workspaces', `run-${++counter}`);
const admin = (dir: string) =>
  readFileSync(path.join(dir, '.git'), 'utf8')
    .replace(/^gitdir: /, '')
    .trim();

type SetupCache = { dir: string; spec: { command: string; key: string[]; paths: string[] }; keyFile: string };

/** One use of the pool as a run makes it: take, let `work` act as the agent, return. */
async function use(root: string, base: string, work: (dir: string) => void | Promise<void>, keep: string[] = [], cache?: SetupCache) {
  const dir = workspace(root);
  const taken = await takeWorktree({ root, target: dir, base, keep });
  await work(dir);
  const back = await returnWorktree({ root, dir, index: taken.index, base, keep, size: 4, ...(cache ? { cache } : {}) });
  return { dir, taken, back };
}

/** The setup cache entry a `setup.command` that made `files` (under node_modules/) would have saved for this repository. */
async function setupCacheOf(root: string, files: Record<string, string>): Promise<SetupCache> {
  const spec = { command: 'npm ci', key: ['README.md'], paths: ['node_modules'] };
  const dir = path.join(root, '.elenchos', 'cache');
  const scratch = tempDir('elenchos-setup-');
  writeFiles(scratch, { 'README.md': FILES['README.md'], ...files });
  const key = await computeCacheKey(scratch, spec);
  if (!key.ok) throw new Error(key.reason);
  const saved = await saveCacheEntry(dir, key.key, scratch, spec.paths, KEY_FILE);
  if (!saved.ok) throw new Error(saved.reason);
  return { dir, spec, keyFile: KEY_FILE };
}

/** Takes a worktree for the next run and says what it holds besides the committed tree. */
async function nextRun(root: string, base: string, keep: string[] = []) {
  const dir = workspace(root);
  const taken = await takeWorktree({ root, target: dir, base, keep });
  const status = gitSync(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all');
  return { dir, taken, status };
}

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('worktree pool: take and return', () => {
  it('adds a fresh worktree when the pool is empty, then reuses it, reset to the new base', async () => {
    const { root, base } = repo();
    const first = await use(root, base, (dir) => writeFileSync(path.join(dir, 'src/app.js'), 'changed\n'));
    expect(first.taken.reusedFrom).toBeNull();
    expect(first.back.pooled).toBe(path.join(root, '.elenchos', 'pool', '0'));
    expect(existsSync(first.dir)).toBe(false);
    expect(leakedWorktrees(root)).toEqual([]);
    // The repository moves on between runs.
    writeFileSync(path.join(root, 'README.md'), '# moved\n');
    gitSync(root, 'commit', '-qam', 'moved');
    const moved = gitSync(root, 'rev-parse', 'HEAD').trim();
    const next = await nextRun(root, moved);
    expect(next.taken.reusedFrom).toBe(path.join(root, '.elenchos', 'pool', '0'));
    expect(next.status).toBe('');
    expect(gitSync(next.dir, 'rev-parse', 'HEAD').trim()).toBe(moved);
    expect(readFileSync(path.join(next.dir, 'README.md'), 'utf8')).toBe('# moved\n');
    expect(readFileSync(path.join(next.dir, 'src/app.js'), 'utf8')).toBe(FILES['src/app.js']);
  });

  it('a pool folder deleted by hand (git still lists its worktrees) takes the next returned worktree all the same', async () => {
    const { root, base } = repo();
    expect((await use(root, base, () => undefined)).back.pooled).toBe(path.join(root, '.elenchos', 'pool', '0'));
    rmSync(path.join(root, '.elenchos', 'pool'), { recursive: true, force: true });
    const again = await use(root, base, () => undefined);
    expect(again.taken.reusedFrom).toBeNull();
    expect(again.back).toMatchObject({ pooled: path.join(root, '.elenchos', 'pool', '0'), reason: null });
    expect(leakedWorktrees(root)).toEqual([]);
  });

  it('removes the returned worktree when the pool is full, and trims it with gc', async () => {
    const { root, base } = repo();
    const dirs = [workspace(root), workspace(root), workspace(root)];
    const taken = await Promise.all(dirs.map((target) => takeWorktree({ root, target, base, keep: [] })));
    const backs = [];
    for (const [i, dir] of dirs.entries()) backs.push(await returnWorktree({ root, dir, index: taken[i]!.index, base, keep: [], size: 2 }));
    expect(backs.map((b) => b.pooled !== null)).toEqual([true, true, false]);
    expect(backs[2]!.reason).toBe('the pool is full');
    expect(dirs.every((d) => !existsSync(d))).toBe(true);
    expect(readdirSync(path.join(root, '.elenchos', 'pool')).sort()).toEqual(['0', '0.index', '1', '1.index']);
    expect(await trimPool(root, 1)).toEqual([path.join(root, '.elenchos', 'pool', '1')]);
    expect(await trimPool(root, 0)).toEqual([path.join(root, '.elenchos', 'pool', '0')]);
    expect(readdirSync(path.join(root, '.elenchos', 'pool'))).toEqual([]);
    expect(gitSync(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('never hands one worktree to two concurrent takers', async () => {
    const { root, base } = repo();
    const seed = await Promise.all([0, 1, 2].map(() => takeWorktree({ root, target: workspace(root), base, keep: [] })));
    void seed;
    for (const dir of readdirSync(path.join(root, '.elenchos', 'workspaces')))
      await returnWorktree({ root, dir: path.join(root, '.elenchos', 'workspaces', dir), index: seed[0]!.index, base, keep: [], size: 4 });
    const targets = Array.from({ length: 5 }, () => workspace(root));
    const taken = await Promise.all(targets.map((target) => takeWorktree({ root, target, base, keep: [] })));
    const reused = taken.map((t) => t.reusedFrom).filter(Boolean);
    expect(reused).toHaveLength(3);
    expect(new Set(reused).size).toBe(3);
    for (const target of targets) expect(gitSync(target, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('never hands one worktree to two processes taking at once (the built module, run by separate node processes)', async () => {
    const { root, base } = repo();
    const seeded = await Promise.all([0, 1].map(() => takeWorktree({ root, target: workspace(root), base, keep: [] })));
    for (const [i, dir] of readdirSync(path.join(root, '.elenchos', 'workspaces')).entries())
      await returnWorktree({
        root,
        dir: path.join(root, '.elenchos', 'workspaces', dir),
        index: seeded[i]!.index,
        base,
        keep: [],
        size: 4,
      });
    const built = pathToFileURL(path.resolve('dist/core/workspace/worktree-pool.js')).href;
    const takers = [1, 2, 3, 4].map((i) => {
      const target = path.join(root, '.elenchos', 'workspaces', `proc-${i}`);
      const script = `const { takeWorktree } = await import(${JSON.stringify(built)});
        const t = await takeWorktree({ root: ${JSON.stringify(root)}, target: ${JSON.stringify(target)}, base: ${JSON.stringify(base)}, keep: [] });
        console.log(JSON.stringify(t.reusedFrom));`;
      return new Promise<string | null>((resolve, reject) => {
        execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) =>
          error ? reject(error) : resolve(JSON.parse(stdout) as string | null),
        );
      });
    });
    const reused = (await Promise.all(takers)).filter(Boolean);
    expect(reused.sort()).toEqual([path.join(root, '.elenchos', 'pool', '0'), path.join(root, '.elenchos', 'pool', '1')]);
    for (const i of [1, 2, 3, 4])
      expect(gitSync(path.join(root, '.elenchos', 'workspaces', `proc-${i}`), 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('leaves a slot another live process has claimed alone, and takes over the claim of a dead one', async () => {
    const { root, base } = repo();
    await use(root, base, () => undefined);
    const lock = path.join(root, '.elenchos', 'pool', '0.lock');
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper.pid!);
    const start = readFileSync(`/proc/${sleeper.pid}/stat`, 'latin1').split(') ')[1]!.split(' ')[19];
    writeFileSync(lock, JSON.stringify({ pid: sleeper.pid, startTime: start }));
    const busy = await nextRun(root, base);
    expect(busy.taken.reusedFrom).toBeNull();
    expect(existsSync(path.join(root, '.elenchos', 'pool', '0'))).toBe(true);
    // The same pid with another start time is a reused pid, not the owner.
    writeFileSync(lock, JSON.stringify({ pid: sleeper.pid, startTime: '1' }));
    const reclaimed = await nextRun(root, base);
    expect(reclaimed.taken.reusedFrom).toBe(path.join(root, '.elenchos', 'pool', '0'));
    expect(existsSync(lock)).toBe(false);
  });
});

describe('worktree pool: what run 1 plants, run 2 never sees', () => {
  it('untracked, ignored and nested-repository files, a changed, deleted or chmod-ed tracked file, a commit', async () => {
    const { root, base } = repo();
    await use(root, base, (dir) => {
      writeFileSync(path.join(dir, 'planted.js'), 'evil\n');
      writeFileSync(path.join(dir, 'debug.log'), 'ignored\n');
      mkdirSync(path.join(dir, 'dist/deep'), { recursive: true });
      writeFileSync(path.join(dir, 'dist/deep/bundle.js'), 'ignored\n');
      mkdirSync(path.join(dir, 'vendor/inner'), { recursive: true });
      gitSync(path.join(dir, 'vendor/inner'), 'init', '-q');
      writeFileSync(path.join(dir, 'src/app.js'), 'export const app = "evil";\n');
      rmSync(path.join(dir, 'src/lib/util.js'));
      chmodSync(path.join(dir, 'README.md'), 0o755);
      writeFileSync(path.join(dir, 'README.md'), '# committed by the agent\n');
      gitSync(dir, 'commit', '-qam', 'agent commit');
    });
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).not.toBeNull();
    expect(next.status).toBe('');
    expect(gitSync(next.dir, 'rev-parse', 'HEAD').trim()).toBe(base);
    for (const p of ['planted.js', 'debug.log', 'dist', 'vendor']) expect(existsSync(path.join(next.dir, p)), p).toBe(false);
    expect(readFileSync(path.join(next.dir, 'src/app.js'), 'utf8')).toBe(FILES['src/app.js']);
    expect(readFileSync(path.join(next.dir, 'README.md'), 'utf8')).toBe(FILES['README.md']);
    // Its reflog starts afresh, as a fresh worktree's would: the agent's commit is no `HEAD@{1}` of the next run.
    expect(gitSync(next.dir, 'reflog').trim().split('\n')).toHaveLength(1);
  });

  it('a changed file hidden from git by the index (git add, assume-unchanged, skip-worktree) is still put back', async () => {
    const { root, base } = repo();
    await use(root, base, (dir) => {
      writeFileSync(path.join(dir, 'src/app.js'), 'staged evil\n');
      gitSync(dir, 'add', 'src/app.js'); // the index now vouches for the changed content
      writeFileSync(path.join(dir, 'src/lib/util.js'), 'hidden evil\n');
      gitSync(dir, 'update-index', '--assume-unchanged', 'src/lib/util.js');
      writeFileSync(path.join(dir, 'README.md'), 'skipped evil\n');
      gitSync(dir, 'update-index', '--skip-worktree', 'README.md');
      expect(gitSync(dir, 'status', '--porcelain')).toBe('M  src/app.js\n');
    });
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).not.toBeNull();
    for (const [p, content] of Object.entries(FILES)) expect(readFileSync(path.join(next.dir, p), 'utf8'), p).toBe(content);
    expect(
      gitSync(next.dir, 'ls-files', '-v')
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('H ')),
    ).toBe(true);
  });

  it('a hook planted in the shared .git/hooks (an agent without the sandbox can reach it) does not run on the reset', async () => {
    const { root, base } = repo();
    const marker = path.join(tempDir('elenchos-hook-'), 'ran');
    await use(root, base, () => {
      writeFileSync(path.join(root, '.git/hooks/post-checkout'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
      writeFileSync(path.join(root, '.git/hooks/reference-transaction'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    });
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).not.toBeNull();
    expect(existsSync(marker)).toBe(false);
  });

  it('a symlink where a tracked folder was, pointing outside, is replaced by the folder', async () => {
    const { root, base } = repo();
    const outside = tempDir('elenchos-outside-');
    writeFileSync(path.join(outside, 'util.js'), 'export const util = 2;\n');
    await use(root, base, (dir) => {
      rmSync(path.join(dir, 'src/lib'), { recursive: true });
      symlinkSync(outside, path.join(dir, 'src/lib'));
    });
    const next = await nextRun(root, base);
    expect(next.status).toBe('');
    expect(readdirSync(path.join(next.dir, 'src/lib'))).toEqual(['util.js']);
    expect(gitSync(next.dir, 'ls-files', '-s', 'src/lib')).toContain('100644');
    expect(readFileSync(path.join(outside, 'util.js'), 'utf8')).toBe('export const util = 2;\n');
    // Not followed: the folder is a real one now.
    expect(lstatSync(path.join(next.dir, 'src/lib')).isSymbolicLink()).toBe(false);
  });

  it('keeps only the declared cache paths (their content is the setup cache’s to verify, not the pool’s)', async () => {
    const { root, base } = repo();
    await use(
      root,
      base,
      (dir) => {
        mkdirSync(path.join(dir, 'node_modules/pkg'), { recursive: true });
        writeFileSync(path.join(dir, 'node_modules/pkg/index.js'), 'cached\n');
        writeFileSync(path.join(dir, 'node_modules.log'), 'not a cache\n');
        mkdirSync(path.join(dir, 'src/node_modules'), { recursive: true });
        writeFileSync(path.join(dir, 'src/node_modules/x.js'), 'not the declared path\n');
      },
      ['node_modules'],
      await setupCacheOf(root, { 'node_modules/pkg/index.js': 'cached\n' }),
    );
    const next = await nextRun(root, base, ['node_modules']);
    expect(next.taken.reusedFrom).not.toBeNull();
    expect(next.status).toBe('!! node_modules/pkg/index.js\n');
    expect(existsSync(path.join(next.dir, 'node_modules.log'))).toBe(false);
    expect(existsSync(path.join(next.dir, 'src/node_modules'))).toBe(false);
  });
});

describe('worktree pool: a returned worktree is reset at once, not at the next take', () => {
  const SECRET = 'sk-live-4f9a2c7e1b';

  it("an agent's untracked secret, ignored output, commit message and reflog are gone from the idle slot as soon as it is back", async () => {
    const { root, base } = repo();
    const { back } = await use(
      root,
      base,
      (dir) => {
        writeFileSync(path.join(dir, '.env.local'), `STRIPE_KEY=${SECRET}\n`);
        writeFileSync(path.join(dir, 'debug.log'), `token ${SECRET}\n`);
        mkdirSync(path.join(dir, 'dist/deep'), { recursive: true });
        writeFileSync(path.join(dir, 'dist/deep/env.js'), `export const key = "${SECRET}";\n`);
        mkdirSync(path.join(dir, 'node_modules/pkg'), { recursive: true });
        writeFileSync(path.join(dir, 'node_modules/pkg/index.js'), 'cached\n');
        writeFileSync(path.join(dir, 'src/app.js'), `export const app = "${SECRET}";\n`);
        gitSync(dir, 'commit', '-qam', `wip ${SECRET}`);
      },
      ['node_modules'],
      await setupCacheOf(root, { 'node_modules/pkg/index.js': 'cached\n' }),
    );
    const slot = path.join(root, '.elenchos', 'pool', '0');
    expect(back.pooled).toBe(slot);
    // Nothing of the agent's in the slot or its admin folder (the commit message, the reflog): no take has happened.
    expect(filesHolding(path.join(root, '.elenchos', 'pool'), SECRET)).toEqual([]);
    expect(filesHolding(admin(slot), SECRET)).toEqual([]);
    expect(gitSync(slot, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('!! node_modules/pkg/index.js\n');
    expect(gitSync(slot, 'rev-parse', 'HEAD').trim()).toBe(base);
    expect(readFileSync(path.join(slot, 'src/app.js'), 'utf8')).toBe(FILES['src/app.js']);
    // The next take still reuses it, proven clean again.
    const next = await nextRun(root, base, ['node_modules']);
    expect(next.taken.reusedFrom).toBe(slot);
    expect(next.status).toBe('!! node_modules/pkg/index.js\n');
  });

  // The reset leaves setup.cache paths alone (the setup cache proves them at the next take): on return, what
  // the cache's signed entry does not vouch for goes, so the idle slot holds none of it either.
  it('a secret the agent writes under a kept node_modules/ is gone from the slot; what the setup cache vouches for stays', async () => {
    const { root, base } = repo();
    const cache = await setupCacheOf(root, { 'node_modules/pkg/index.js': 'cached\n' });
    const { back } = await use(
      root,
      base,
      (dir) => {
        writeFiles(dir, {
          'node_modules/pkg/index.js': 'cached\n', // as setup left it
          'node_modules/.env': `STRIPE_KEY=${SECRET}\n`,
          'node_modules/pkg/creds.json': `{"key":"${SECRET}"}\n`,
          'node_modules/.cache/deep/token': SECRET,
        });
        symlinkSync('../.env', path.join(dir, 'node_modules/pkg/link'));
      },
      ['node_modules'],
      cache,
    );
    const slot = path.join(root, '.elenchos', 'pool', '0');
    expect(back.pooled).toBe(slot);
    expect(filesHolding(path.join(root, '.elenchos', 'pool'), SECRET)).toEqual([]);
    expect(gitSync(slot, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('!! node_modules/pkg/index.js\n');
    expect(back.dropped).toBe(
      "node_modules/.cache, node_modules/.env, node_modules/pkg/creds.json and 1 more (not in the setup cache's entry)",
    );
    // What stays is the entry, proven again at the next take without a restore.
    const next = await nextRun(root, base, ['node_modules']);
    expect(next.taken.reusedFrom).toBe(slot);
    const key = await computeCacheKey(next.dir, cache.spec);
    expect(key.ok && (await verifyCachedPaths(cache.dir, next.dir, key.key, ['node_modules'], KEY_FILE))).toEqual({ ok: true });
  });

  it('a file the entry has, rewritten by the agent, takes the whole kept path with it; with no cache entry nothing is kept', async () => {
    const { root, base } = repo();
    const cache = await setupCacheOf(root, { 'node_modules/pkg/index.js': 'cached\n' });
    const poisoned = await use(
      root,
      base,
      (dir) => writeFiles(dir, { 'node_modules/pkg/index.js': `module.exports = "${SECRET}";\n` }),
      ['node_modules'],
      cache,
    );
    expect(poisoned.back.pooled).not.toBeNull();
    expect(existsSync(path.join(poisoned.back.pooled!, 'node_modules'))).toBe(false);
    expect(poisoned.back.dropped).toBe('node_modules (node_modules/pkg/index.js: content differs)');
    expect(filesHolding(path.join(root, '.elenchos', 'pool'), SECRET)).toEqual([]);

    // setup.cache unused (no command, or never saved): nothing vouches for node_modules, so nothing of it stays.
    const { root: other, base: otherBase } = repo();
    const bare = await use(other, otherBase, (dir) => writeFiles(dir, { 'node_modules/.env': `KEY=${SECRET}\n` }), ['node_modules']);
    expect(existsSync(path.join(bare.back.pooled!, 'node_modules'))).toBe(false);
    expect(bare.back.dropped).toBe('node_modules (no setup cache vouches for them)');
    const entryless = await use(other, otherBase, (dir) => writeFiles(dir, { 'node_modules/.env': `KEY=${SECRET}\n` }), ['node_modules'], {
      dir: path.join(other, '.elenchos', 'cache'),
      spec: cache.spec,
      keyFile: KEY_FILE,
    });
    expect(existsSync(path.join(entryless.back.pooled!, 'node_modules'))).toBe(false);
    expect(entryless.back.dropped).toBe('node_modules (no setup cache entry vouches for them)');
  });

  it('what git cannot see is gone too: an unreadable folder (mode 0311), a FIFO, a socket, an empty folder', async () => {
    const { root, base } = repo();
    const { back } = await use(root, base, (dir) => {
      mkdirSync(path.join(dir, 'src/hidden/deeper'), { recursive: true });
      writeFileSync(path.join(dir, 'src/hidden/deeper/page.html'), `<h1>${SECRET}</h1>\n`);
      chmodSync(path.join(dir, 'src/hidden'), 0o311);
      execFileSync('mkfifo', [path.join(dir, 'src/pipe')]);
      execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', path.join(dir, 'app.sock')]);
      mkdirSync(path.join(dir, 'empty/nested'), { recursive: true });
    });
    const slot = path.join(root, '.elenchos', 'pool', '0');
    expect(back.pooled).toBe(slot);
    // Only what the base commit has (and the .git file): listed by a walk that would fail on an unreadable folder.
    const left = readdirSync(slot, { recursive: true, withFileTypes: true })
      .map((e) => path.relative(slot, path.join(e.parentPath, e.name)))
      .sort();
    expect(left).toEqual(['.git', '.gitignore', 'README.md', 'src', 'src/app.js', 'src/lib', 'src/lib/util.js']);
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).toBe(slot);
    expect(next.status).toBe('');
  });

  it('a worktree that cannot be reset on return is removed, not pooled (its files with it)', async () => {
    const { root, base } = repo();
    const { dir, back } = await use(root, base, (d) => {
      writeFileSync(path.join(d, '.env.local'), `KEY=${SECRET}\n`);
      writeFileSync(path.join(admin(d), 'config.worktree'), '[core]\n\tbare = false\n');
    });
    expect(back.pooled).toBeNull();
    expect(back.reason).toMatch(/^it could not be reset: unexpected git state in its admin folder: config\.worktree/);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(path.join(root, '.elenchos', 'pool', '0'))).toBe(false);
    expect(filesHolding(path.join(root, '.elenchos'), SECRET)).toEqual([]);
    expect(leakedWorktrees(root)).toEqual([]);
  });
});

describe('worktree pool: the reset without a checkout (HEAD still the base, no tracked change)', () => {
  it('removes what a verify task leaves (output folders, logs) and proves the rest clean', async () => {
    const { root, base } = repo();
    await use(root, base, (dir) => {
      mkdirSync(path.join(dir, 'tests/output-t'), { recursive: true });
      writeFileSync(path.join(dir, 'tests/output-t/result.json'), '{}\n');
      writeFileSync(path.join(dir, 'app.log'), 'ignored\n');
    });
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).not.toBeNull();
    expect(next.status).toBe('');
    expect(existsSync(path.join(next.dir, 'tests'))).toBe(false);
  });

  // Git compares whole seconds of ctime (built without USE_NSEC), and an entry as new as the index file is
  // "racily clean" (its content compared). A rewrite in the same second as the checkout has the old ctime
  // second: only the index file's own mtime, kept with the trusted index, makes git look. Tried until the
  // rewrite lands in that second (a busy machine may need a few repositories); fails without the mtime.
  it('a tracked file rewritten in the second of its checkout, size and mtime kept (only racy-git tells), is still restored', async (context) => {
    let raced = false;
    for (let attempt = 0; attempt < 10 && !raced; attempt++) {
      const { root, base } = repo();
      await use(root, base, (dir) => {
        const file = path.join(dir, 'src/app.js');
        const before = statSync(file);
        writeFileSync(file, 'export const app = 9;\n'); // same length as the committed line
        utimesSync(file, before.atime, before.mtime);
        writeFileSync(path.join(dir, 'untracked.txt'), 'x\n');
        const recorded = /ctime: (\d+):/.exec(gitSync(dir, 'ls-files', '--debug', 'src/app.js'))![1];
        raced = recorded === String(Math.floor(statSync(file).ctimeMs / 1000));
      });
      if (!raced) continue;
      const next = await nextRun(root, base);
      expect(next.taken.reusedFrom).not.toBeNull();
      expect(readFileSync(path.join(next.dir, 'src/app.js'), 'utf8')).toBe(FILES['src/app.js']);
      expect(next.status).toBe('');
    }
    // Never raced: the machine was too slow to rewrite within the second of a checkout ten times in a row.
    if (!raced) context.skip();
  }, 300_000); // up to ten repositories on a machine loaded enough to miss the second

  // git lists `dist/` whole around the kept `dist/cache`: the rm of what status listed would take the kept
  // path too, so git clean thins it out (and the proof, seeing `dist/` still, discards it, as before).
  it('a folder git lists whole around a kept path is never removed whole, and what it held besides goes', async () => {
    const { root, base } = repo();
    const keep = ['dist/cache'];
    const { back } = await use(
      root,
      base,
      (dir) => {
        mkdirSync(path.join(dir, 'dist/cache'), { recursive: true });
        writeFileSync(path.join(dir, 'dist/cache/kept.bin'), 'kept\n');
        writeFileSync(path.join(dir, 'dist/bundle.js'), 'planted\n');
      },
      keep,
    );
    // Reset on its way back: pooled without the planted file, or removed whole when the proof sees `dist/` still.
    if (back.pooled) expect(existsSync(path.join(back.pooled, 'dist/bundle.js'))).toBe(false);
    else expect(back.reason).toMatch(/could not be reset: not clean after the reset: dist/);
    const dir = workspace(root);
    const taken = await takeWorktree({ root, target: dir, base, keep });
    expect(existsSync(path.join(dir, 'dist/bundle.js'))).toBe(false);
    if (taken.reusedFrom) expect(readFileSync(path.join(dir, 'dist/cache/kept.bin'), 'utf8')).toBe('kept\n');
    else expect(back.pooled === null || /not clean after the reset: dist/.test(taken.discarded[0]!.reason)).toBe(true);
  });
});

describe('worktree pool: a worktree that cannot be proven clean is discarded', () => {
  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      'a per-worktree git config',
      (dir) => writeFileSync(path.join(admin(dir), 'config.worktree'), '[core]\n\thooksPath = /tmp/evil\n'),
      /config\.worktree/,
    ],
    ['a sparse-checkout file', (dir) => mkdirSync(path.join(admin(dir), 'info')), /info/],
    ['a foreign index.lock', (dir) => writeFileSync(path.join(admin(dir), 'index.lock'), ''), /index\.lock/],
    ['a rebase in progress', (dir) => mkdirSync(path.join(admin(dir), 'rebase-merge')), /rebase-merge/],
    [
      'a .git link pointing at another repository',
      (dir) => writeFileSync(path.join(dir, '.git'), `gitdir: ${path.join(tempRepo({ x: 'x' }), '.git')}\n`),
      /points elsewhere|could not be moved/,
    ],
    ['a HEAD git cannot read', (dir) => writeFileSync(path.join(admin(dir), 'HEAD'), 'garbage\n'), /reset failed|could not be moved/],
  ];
  for (const [name, plant, reason] of cases) {
    it(name, async () => {
      const { root, base } = repo();
      const { back } = await use(root, base, plant);
      const next = await nextRun(root, base);
      expect(next.taken.reusedFrom).toBeNull();
      // Thrown away when it came back (git would not even move it) or when it was taken.
      const why = back.pooled ? next.taken.discarded.map((d) => d.reason) : [back.reason];
      expect(why).toHaveLength(1);
      expect(why[0]).toMatch(reason);
      expect(next.status).toBe('');
      expect(readdirSync(admin(next.dir)).sort()).toEqual(expect.not.arrayContaining(['config.worktree', 'index.lock', 'info']));
      expect(existsSync(path.join(root, '.elenchos', 'pool', '0'))).toBe(false);
    });
  }

  it('a locked worktree (git worktree lock) is not pooled', async () => {
    const { root, base } = repo();
    const { back } = await use(root, base, (dir) => void gitSync(root, 'worktree', 'lock', dir));
    expect(back.pooled).toBeNull();
    // git's `locked` file in its admin folder: the reset on return refuses it before git would refuse the move.
    expect(back.reason).toMatch(/could not be reset: unexpected git state in its admin folder: locked|could not be moved/);
    expect(existsSync(path.join(root, '.elenchos', 'pool', '0'))).toBe(false);
  });

  it('a worktree with a process still inside is not pooled, and one that a process entered since is not reused', async () => {
    const { root, base } = repo();
    const { back } = await use(root, base, (dir) => {
      const child = spawn('sleep', ['30'], { cwd: dir, stdio: 'ignore', detached: true });
      children.push(child.pid!);
    });
    expect(back.pooled).toBeNull();
    expect(back.reason).toMatch(/process \d+ is still inside/);
    await use(root, base, () => undefined);
    const slot = path.join(root, '.elenchos', 'pool', '0');
    const visitor = spawn('sleep', ['30'], { cwd: slot, stdio: 'ignore' });
    children.push(visitor.pid!);
    await new Promise((resolve) => visitor.once('spawn', resolve));
    const next = await nextRun(root, base);
    expect(next.taken.reusedFrom).toBeNull();
    expect(next.taken.discarded[0]!.reason).toMatch(/process \d+ is inside it/);
  });

  it('a slot without its trusted index (lost, or deleted by the pool guard) is not reused', async () => {
    const { root, base } = repo();
    await use(root, base, () => undefined);
    rmSync(path.join(root, '.elenchos', 'pool', '0.index'));
    const next = await nextRun(root, base);
    expect(next.taken.discarded[0]!.reason).toMatch(/no trusted index/);
    expect(leakedWorktrees(root).length).toBe(1); // only the one just taken
  });
});

describe("the pool guard and the pool's own writes", () => {
  it('a slot another task of this process returned while one ran is not taken for tampering (verify --workers N)', async () => {
    const { root, base } = repo();
    await use(root, base, () => undefined);
    // Task A marks the pool, then task B (same process) takes slot 0 and returns it: a new index file.
    const marks = await markPool(root);
    await use(root, base, () => undefined);
    expect(existsSync(path.join(root, '.elenchos', 'pool', '0.index'))).toBe(true);
    expect(await dropTouchedSlots(root, marks)).toEqual([]);
    expect((await nextRun(root, base)).taken.reusedFrom).not.toBeNull();
  });

  it('an index rewritten after the pool wrote it is still dropped, even with its bytes and mtime put back', async () => {
    const { root, base } = repo();
    const marks = await markPool(root);
    await use(root, base, () => undefined);
    const file = path.join(root, '.elenchos', 'pool', '0.index');
    const { mtime } = statSync(file);
    writeFileSync(file, readFileSync(file));
    utimesSync(file, mtime, mtime);
    expect(await dropTouchedSlots(root, marks)).toEqual([path.join('.elenchos', 'pool', '0')]);
    expect(existsSync(file)).toBe(false);
    expect((await nextRun(root, base)).taken.reusedFrom).toBeNull();
  });
});
