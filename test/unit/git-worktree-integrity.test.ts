import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenFiles, worktreeIntegrity } from '../../src/git/worktree-integrity.js';
import { addWorktree, listWorktrees, removeWorktree } from '../../src/git/worktree.js';
import { gitSync, tempRepo } from '../helpers/temp.js';

describe('worktreeIntegrity', () => {
  it('trusts an honest worktree, also one made from a linked worktree (whose .git is a file)', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const linked = path.join(repo, '..', `${path.basename(repo)}-linked`);
    gitSync(repo, 'worktree', 'add', '-q', '--detach', linked);
    const workspace = path.join(linked, '.elenchos/workspaces/w1');
    await addWorktree(linked, workspace);
    expect(await worktreeIntegrity(workspace, linked)).toEqual([]);
    await removeWorktree(linked, workspace);
    gitSync(repo, 'worktree', 'remove', '--force', linked);
  });

  it('reports files hidden after the baseline, not those hidden from the start (sparse checkouts)', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const workspace = path.join(repo, '.elenchos/workspaces/w2');
    await addWorktree(repo, workspace);
    gitSync(workspace, 'update-index', '--skip-worktree', 'a.txt');
    const baseline = await hiddenFiles(workspace);
    expect([...baseline]).toEqual(['a.txt']);
    expect(await worktreeIntegrity(workspace, repo, baseline)).toEqual([]);
    gitSync(workspace, 'update-index', '--assume-unchanged', 'b.txt');
    expect(await worktreeIntegrity(workspace, repo, baseline)).toEqual([
      'files hidden from git status (assume-unchanged / skip-worktree): b.txt',
    ]);
    await removeWorktree(repo, workspace);
  });
});

describe('addWorktree / removeWorktree', () => {
  it('survive eight at once on one repository (git reads half-written entries otherwise)', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const dirs = Array.from({ length: 8 }, (_, i) => path.join(repo, `.elenchos/workspaces/p${i}`));
    await Promise.all(dirs.map((dir) => addWorktree(repo, dir)));
    expect((await listWorktrees(repo)).filter((w) => w.path.includes('/.elenchos/workspaces/'))).toHaveLength(8);
    await Promise.all(dirs.map((dir) => removeWorktree(repo, dir)));
    expect((await listWorktrees(repo)).filter((w) => w.path.includes('/.elenchos/workspaces/'))).toHaveLength(0);
  });
});
