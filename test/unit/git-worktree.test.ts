import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, ensureExcluded, listWorktrees, removeWorktree } from '../../src/git/worktree.js';
import { gitSync, tempRepo, writeFiles } from '../helpers/temp.js';

describe.concurrent('worktrees', () => {
  it('adds a detached worktree under new parent folders and lists it', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const head = gitSync(root, 'rev-parse', 'HEAD').trim();
    const dir = path.join(root, '.elenchos', 'workspaces', 'run-1');
    await addWorktree(root, dir);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a\n');
    const list = await listWorktrees(root);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ path: root, head, detached: false, branch: 'refs/heads/main' });
    expect(list[1]).toMatchObject({ path: dir, head, detached: true, branch: null });
    // The main checkout's branch is untouched.
    expect(gitSync(root, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
  });

  it('checks out the given ref', async () => {
    const root = tempRepo({ 'a.txt': 'one\n' });
    const first = gitSync(root, 'rev-parse', 'HEAD').trim();
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    gitSync(root, 'commit', '-qam', 'two');
    const dir = path.join(root, '.elenchos', 'w');
    await addWorktree(root, dir, first);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('removes a dirty worktree, and does not throw when it is already gone', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const dir = path.join(root, '.elenchos', 'w');
    await addWorktree(root, dir);
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    await removeWorktree(root, dir);
    expect(existsSync(dir)).toBe(false);
    expect(await listWorktrees(root)).toHaveLength(1);
    await expect(removeWorktree(root, dir)).resolves.toBeUndefined();
  });

  it('cleans up a worktree whose folder was deleted behind git’s back', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const dir = path.join(root, '.elenchos', 'w');
    await addWorktree(root, dir);
    rmSync(path.join(dir, '.git'));
    await removeWorktree(root, dir);
    expect(existsSync(dir)).toBe(false);
    expect(await listWorktrees(root)).toHaveLength(1);
  });

  it('adds the exclude line once, keeping what was there', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const exclude = path.join(root, '.git', 'info', 'exclude');
    writeFileSync(exclude, '# mine\n*.log'); // no trailing newline
    expect(await ensureExcluded(root)).toBe(true);
    expect(await ensureExcluded(root)).toBe(false);
    expect(readFileSync(exclude, 'utf8')).toBe('# mine\n*.log\n.elenchos/\n');
    writeFiles(root, { 'x.log': 'log', '.elenchos/runs/r/run.json': '{}' });
    expect(gitSync(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('writes the shared exclude file from inside a linked worktree and creates it when missing', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    rmSync(path.join(root, '.git', 'info'), { recursive: true, force: true });
    const dir = path.join(root, '.elenchos', 'w');
    await addWorktree(root, dir);
    expect(await ensureExcluded(dir, 'custom/')).toBe(true);
    expect(readFileSync(path.join(root, '.git', 'info', 'exclude'), 'utf8')).toBe('custom/\n');
    expect(await ensureExcluded(root, 'custom/')).toBe(false);
  });
});
