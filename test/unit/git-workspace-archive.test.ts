import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { create } from 'tar';
import { describe, expect, it } from 'vitest';
import { snapshotWorkspace } from '../../src/git/snapshot.js';
import { applyStoredWorkspace, restoreWorkspace, saveWorkspace } from '../../src/git/workspace-archive.js';
import { addWorktree } from '../../src/git/worktree.js';
import { gitSync, tempDir, tempRepo, writeFiles } from '../helpers/temp.js';

/** Every file under `dir` (no .git, no ignored folders) as path → type, exec bit and bytes. */
function walk(dir: string, skip: string[] = ['.git', 'node_modules']): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (skip.includes(name)) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, relPath);
      const stats = lstatSync(abs);
      if (stats.isSymbolicLink()) out[relPath] = `link ${readlinkSync(abs)}`;
      else if (stats.isDirectory()) visit(relPath);
      else out[relPath] = `file ${stats.mode & 0o100 ? 'x' : '-'} ${readFileSync(abs).toString('base64')}`;
    }
  };
  visit('');
  return out;
}

const binary = (seed: number) => Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * seed + (i >> 3)) % 256));

function baseRepo(): { root: string; base: string; work: string } {
  const root = tempRepo({
    '.gitignore': 'node_modules/\n',
    'src/app.js': 'console.log("v1");\n',
    'src/keep.js': 'keep\n',
    'docs/old.md': 'old\n',
    'bin/tool.sh': '#!/bin/sh\n',
    '@scoped.txt': 'at\n',
  });
  writeFileSync(path.join(root, 'logo.bin'), binary(7));
  gitSync(root, 'add', 'logo.bin');
  gitSync(root, 'commit', '-qm', 'binary');
  return { root, base: gitSync(root, 'rev-parse', 'HEAD').trim(), work: path.join(root, '.elenchos', 'workspaces', 'w') };
}

describe.concurrent('saveWorkspace and restoreWorkspace', () => {
  for (const mode of ['scanning itself', 'reusing a snapshot'] as const) {
    it(`round-trips every kind of change byte for byte, agent commits included (${mode})`, async () => {
      const { root, base, work } = baseRepo();
      await addWorktree(root, work);
      // The agent commits part of its work...
      writeFiles(work, { 'src/app.js': 'console.log("v2");\n', 'src/committed-new.js': 'new\n' });
      gitSync(work, 'add', '-A');
      gitSync(work, '-c', 'user.name=a', '-c', 'user.email=a@a', 'commit', '-qm', 'agent');
      // ...then keeps going without committing.
      writeFiles(work, {
        'src/keep.js': 'keep, edited\n',
        'src/staged.js': 'staged\n',
        'new/dir/deep.txt': 'deep\n',
        '@untracked.txt': 'at\n',
        'node_modules/pkg/index.js': 'ignored',
        'tests/output-x/Result.md': 'verifier output',
      });
      gitSync(work, 'add', 'src/staged.js');
      unlinkSync(path.join(work, 'docs/old.md'));
      writeFileSync(path.join(work, 'logo.bin'), binary(13));
      writeFileSync(path.join(work, 'new-binary.bin'), binary(3));
      chmodSync(path.join(work, 'bin/tool.sh'), 0o755);
      writeFiles(work, { 'run-me.sh': '#!/bin/sh\necho run\n' });
      chmodSync(path.join(work, 'run-me.sh'), 0o755);
      symlinkSync('src/keep.js', path.join(work, 'keep-link'));

      const out = path.join(tempDir(), 'attempts', '01', 'workspace');
      const exclude = ['tests/output-x/'];
      const snapshot = mode === 'reusing a snapshot' ? await snapshotWorkspace(work, { exclude }) : undefined;
      const result = await saveWorkspace(work, base, out, { exclude, snapshot });
      expect(readFileSync(path.join(out, 'base.txt'), 'utf8')).toBe(`${base}\n`);
      // tracked: app.js, committed-new.js, keep.js, staged.js, old.md, logo.bin, tool.sh; untracked: 5
      expect(result.files).toBe(12);
      expect(result.bytes).toBeGreaterThan(0);

      const restored = path.join(root, '.elenchos', 'restore', 'r');
      await restoreWorkspace(root, path.dirname(out), restored);
      const expected = walk(work, ['.git', 'node_modules', 'output-x']);
      expect(walk(restored)).toEqual(expected);
      expect(Object.keys(expected)).toEqual(
        expect.arrayContaining(['new/dir/deep.txt', '@untracked.txt', 'keep-link', 'src/committed-new.js', 'new-binary.bin']),
      );
      expect(Object.keys(expected)).not.toContain('docs/old.md');
      expect(existsSync(path.join(restored, 'tests/output-x'))).toBe(false);
      expect(statSync(path.join(restored, 'run-me.sh')).mode & 0o100).toBeTruthy();
    });
  }

  it('round-trips a change too big to list path by path', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2100; i++) files[`many/f${i}.txt`] = `${i}\n`;
    const root = tempRepo(files);
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    const work = path.join(root, '.elenchos', 'workspaces', 'big');
    await addWorktree(root, work);
    const changed: Record<string, string> = {};
    for (let i = 0; i < 2100; i++) changed[`many/f${i}.txt`] = `${i} changed\n`;
    writeFiles(work, changed);
    const out = path.join(tempDir(), 'workspace');
    expect((await saveWorkspace(work, base, out)).files).toBe(2100);
    const restored = path.join(root, '.elenchos', 'restore', 'big');
    await restoreWorkspace(root, out, restored);
    expect(walk(restored)).toEqual(walk(work));
  });

  it('stores an unchanged worktree as an empty patch and an empty archive, and restores it', async () => {
    const { root, base, work } = baseRepo();
    await addWorktree(root, work);
    const out = path.join(tempDir(), 'workspace');
    expect((await saveWorkspace(work, base, out)).files).toBe(0);
    expect(statSync(path.join(out, 'diff.patch')).size).toBe(0);
    const restored = path.join(root, '.elenchos', 'restore', 'clean');
    await restoreWorkspace(root, out, restored);
    expect(walk(restored)).toEqual(walk(work));
  });

  it('keeps the patch and archive proportional to the change', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`pkg/f${i}.txt`] = `${'x'.repeat(1000)}${i}\n`;
    const root = tempRepo(files);
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    writeFiles(root, { 'pkg/f1.txt': 'changed\n' });
    const out = path.join(tempDir(), 'workspace');
    const result = await saveWorkspace(root, base, out);
    expect(result.files).toBe(1);
    expect(result.bytes).toBeLessThan(4000);
  });

  it('leaves tracked files under an excluded prefix out of the patch', async () => {
    const root = tempRepo({ 'a.txt': 'a\n', '.testmuai/evidence/log.txt': 'old\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    writeFiles(root, { 'a.txt': 'b\n', '.testmuai/evidence/log.txt': 'new\n', '.testmuai/evidence/more.txt': 'more\n' });
    const out = path.join(tempDir(), 'workspace');
    expect((await saveWorkspace(root, base, out, { exclude: ['.testmuai/evidence/'] })).files).toBe(1);
    expect(readFileSync(path.join(out, 'diff.patch'), 'utf8')).not.toContain('.testmuai');
  });

  it('refuses a workspace folder without a valid base commit', async () => {
    const { root } = baseRepo();
    const out = tempDir();
    writeFiles(out, { 'base.txt': 'not-a-sha\n', 'diff.patch': '' });
    await expect(restoreWorkspace(root, out, path.join(root, '.elenchos', 'x'))).rejects.toThrow(/not a commit sha/);
  });
});

describe.concurrent('applyStoredWorkspace into a checkout (refuseExisting)', () => {
  it('writes nothing when a new file would overwrite one already there, or when the patch does not apply', async () => {
    const root = tempRepo({ 'a.txt': 'one\n', '.gitignore': 'local/\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    const work = path.join(tempDir(), 'w');
    await addWorktree(root, work, base);
    writeFileSync(path.join(work, 'a.txt'), 'two\n');
    writeFileSync(path.join(work, 'new.txt'), 'mine\n');
    const stored = path.join(tempDir(), 'ws');
    await saveWorkspace(work, base, stored);

    const checkout = tempRepo({ 'a.txt': 'one\n', '.gitignore': 'new.txt\n' });
    writeFileSync(path.join(checkout, 'new.txt'), 'theirs\n');
    await expect(applyStoredWorkspace(stored, checkout, { refuseExisting: true })).rejects.toThrow(
      `${path.join(checkout, 'new.txt')} already exists, and the stored change adds it as a new file; move it away first`,
    );
    expect(readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('one\n');

    unlinkSync(path.join(checkout, 'new.txt'));
    writeFileSync(path.join(checkout, 'a.txt'), 'changed meanwhile\n');
    await expect(applyStoredWorkspace(stored, checkout, { refuseExisting: true })).rejects.toThrow(
      /^the stored change does not apply to .* \(patch failed: a\.txt:1 error: a\.txt: patch does not apply\); take it on a branch instead \(--branch\), or move the file in its way$/,
    );
    expect(existsSync(path.join(checkout, 'new.txt'))).toBe(false);

    writeFileSync(path.join(checkout, 'a.txt'), 'one\n');
    await applyStoredWorkspace(stored, checkout, { refuseExisting: true });
    expect(readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(path.join(checkout, 'new.txt'), 'utf8')).toBe('mine\n');
  });
  it("a nested repository's .git never travels, and a stored one is refused before anything is written", async () => {
    const root = tempRepo({ 'a.txt': 'one\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    for (const redact of [false, true]) {
      const work = path.join(tempDir(), 'w');
      await addWorktree(root, work, base);
      writeFileSync(path.join(work, 'a.txt'), 'two\n');
      // What the agent leaves: a vendored package with its own repository, whose config runs a command.
      gitSync(tempDir(), 'init', '-q', path.join(work, 'vendor/widget'));
      writeFileSync(path.join(work, 'vendor/widget/index.js'), 'export default 1;\n');
      gitSync(path.join(work, 'vendor/widget'), 'config', 'core.fsmonitor', 'touch /tmp/pwned-by-the-agent');
      // And a `.git` file (a worktree's or a submodule's pointer) in a folder of its own.
      writeFiles(work, { 'sub/.git': 'gitdir: /elsewhere/.git/worktrees/x\n', 'sub/keep.txt': 'kept\n' });
      const stored = path.join(tempDir(), 'ws');
      await saveWorkspace(work, base, stored, redact ? { redactDir: async () => undefined } : {});
      const checkout = tempRepo({ 'a.txt': 'one\n' });
      await applyStoredWorkspace(stored, checkout, { refuseExisting: true });
      expect(readFileSync(path.join(checkout, 'vendor/widget/index.js'), 'utf8')).toBe('export default 1;\n');
      expect(existsSync(path.join(checkout, 'vendor/widget/.git'))).toBe(false);
      expect(existsSync(path.join(checkout, 'sub/.git'))).toBe(false);
      expect(readFileSync(path.join(checkout, 'sub/keep.txt'), 'utf8')).toBe('kept\n');
      expect(gitSync(checkout, 'status', '--porcelain')).toContain('?? vendor/');
    }

    // An archive that holds one anyway (an older Elenchos, or planted in the evidence): refused, nothing written.
    const planted = path.join(tempDir(), 'ws');
    const work = path.join(tempDir(), 'w2');
    await addWorktree(root, work, base);
    writeFileSync(path.join(work, 'a.txt'), 'two\n');
    await saveWorkspace(work, base, planted);
    const source = tempDir();
    writeFiles(source, { 'vendor/widget/.git/config': '[core]\n\tfsmonitor = touch /tmp/pwned\n', 'vendor/widget/index.js': 'x\n' });
    await create({ gzip: true, cwd: source, file: path.join(planted, 'untracked.tar.gz') }, ['vendor']);
    const checkout = tempRepo({ 'a.txt': 'one\n' });
    await expect(applyStoredWorkspace(planted, checkout, { refuseExisting: true })).rejects.toThrow(
      /^the stored change holds a git folder \(vendor\/widget\/\.git\/\): refused/,
    );
    expect(readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(checkout, 'vendor'))).toBe(false);
  });
  // Found in review: only a lowercase `.git` was refused. `.GIT` is `.git` on macOS and Windows, `GIT~1` its
  // NTFS short name, and git uses a folder laid out as a bare repository (HEAD, objects/, refs/) when run in it.
  const HOOK = '[core]\n\tfsmonitor = touch /tmp/pwned-by-the-agent\n';
  const BARE = { HEAD: 'ref: refs/heads/main\n', config: HOOK, 'objects/info/packs': '\n', 'refs/heads/main': `${'a'.repeat(40)}\n` };
  const bareAt = (dir: string) => Object.fromEntries(Object.entries(BARE).map(([k, v]) => [`${dir}/${k}`, v]));

  it('a nested repository spelled .GIT, .Git or GIT~1, or laid out bare, never travels', async () => {
    const root = tempRepo({ 'a.txt': 'one\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    for (const redact of [false, true]) {
      const work = path.join(tempDir(), 'w');
      await addWorktree(root, work, base);
      writeFiles(work, {
        'a.txt': 'two\n',
        'vendor/a/.GIT/config': HOOK,
        'vendor/a/index.js': 'a\n',
        'vendor/b/.Git/hooks/post-checkout': '#!/bin/sh\ntouch /tmp/pwned\n',
        'vendor/c/GIT~1/config': HOOK,
        ...bareAt('vendor/d'),
        'vendor/e/keep.js': 'e\n',
      });
      // A real nested repository (stored whole, its .git left out) holding a bare layout of its own.
      gitSync(tempDir(), 'init', '-q', path.join(work, 'vendor/widget'));
      writeFiles(work, { 'vendor/widget/index.js': 'w\n', ...bareAt('vendor/widget/deep') });
      const stored = path.join(tempDir(), 'ws');
      await saveWorkspace(work, base, stored, redact ? { redactDir: async () => undefined } : {});
      const checkout = tempRepo({ 'a.txt': 'one\n' });
      await applyStoredWorkspace(stored, checkout, { refuseExisting: true });
      expect(readFileSync(path.join(checkout, 'vendor/a/index.js'), 'utf8')).toBe('a\n');
      expect(readFileSync(path.join(checkout, 'vendor/e/keep.js'), 'utf8')).toBe('e\n');
      expect(readFileSync(path.join(checkout, 'vendor/widget/index.js'), 'utf8')).toBe('w\n');
      for (const gone of ['vendor/a/.GIT', 'vendor/b', 'vendor/c/GIT~1', 'vendor/d', 'vendor/widget/.git', 'vendor/widget/deep'])
        expect(existsSync(path.join(checkout, gone)), `${gone} (redact: ${redact})`).toBe(false);
    }
  });

  it('a stored change holding a .GIT folder or a bare layout, in its files or committed in its patch, is refused by apply and restore before anything is written', async () => {
    const root = tempRepo({ 'a.txt': 'one\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    const plant = async (files: Record<string, string>, folder: string) => {
      const work = path.join(tempDir(), 'w');
      await addWorktree(root, work, base);
      writeFileSync(path.join(work, 'a.txt'), 'two\n');
      const stored = path.join(tempDir(), 'ws');
      await saveWorkspace(work, base, stored);
      const source = tempDir();
      writeFiles(source, files);
      await create({ gzip: true, cwd: source, file: path.join(stored, 'untracked.tar.gz') }, [folder]);
      return stored;
    };
    // The agent commits a bare layout: to git these are plain files, so they travel in diff.patch.
    const committed = path.join(tempDir(), 'w');
    await addWorktree(root, committed, base);
    writeFiles(committed, { 'a.txt': 'two\n', ...bareAt('tools/evil') });
    gitSync(committed, 'add', '-A');
    gitSync(committed, '-c', 'user.name=a', '-c', 'user.email=a@e', 'commit', '-q', '-m', 'agent');
    const inPatch = path.join(tempDir(), 'ws');
    await saveWorkspace(committed, base, inPatch);

    for (const [stored, named] of [
      [await plant({ 'vendor/w/.GIT/config': HOOK, 'vendor/w/x.js': 'x\n' }, 'vendor'), 'vendor/w/.GIT/'],
      [await plant({ 'vendor/w/.Git': 'gitdir: /elsewhere\n' }, 'vendor'), 'vendor/w/.Git'],
      [await plant(bareAt('vendor/bare'), 'vendor'), 'vendor/bare/'],
      [inPatch, 'tools/evil/'],
    ] as const) {
      const checkout = tempRepo({ 'a.txt': 'one\n' });
      await expect(applyStoredWorkspace(stored, checkout, { refuseExisting: true })).rejects.toThrow(
        `the stored change holds a git folder (${named}): refused`,
      );
      expect(readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('one\n');
      expect(readdirSync(checkout).sort()).toEqual(['.git', 'a.txt']);
      const target = path.join(tempDir(), 'restored');
      await expect(restoreWorkspace(root, stored, target)).rejects.toThrow('the stored change holds a git folder');
      expect(existsSync(target)).toBe(false);
    }
  });

  it('a change that adds a file under a folder the checkout has as a symlink is refused before anything is written', async () => {
    const root = tempRepo({ 'a.txt': 'one\n', '.gitignore': 'node_modules\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    const work = path.join(tempDir(), 'w');
    await addWorktree(root, work, base);
    // The agent un-ignores node_modules and adds a file there.
    writeFiles(work, { '.gitignore': '', 'node_modules/pkg/index.js': 'planted\n' });
    const stored = path.join(tempDir(), 'ws');
    await saveWorkspace(work, base, stored);
    const checkout = tempRepo({ 'a.txt': 'one\n', '.gitignore': 'node_modules\n' });
    const elsewhere = tempDir();
    symlinkSync(elsewhere, path.join(checkout, 'node_modules'));
    await expect(applyStoredWorkspace(stored, checkout, { refuseExisting: true })).rejects.toThrow(
      /^the stored change adds node_modules\/pkg\/index\.js, but .*node_modules is a symbolic link in your checkout; nothing was written/,
    );
    expect(readFileSync(path.join(checkout, '.gitignore'), 'utf8')).toBe('node_modules\n');
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
