import { rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirtyPaths, filesInHead, gitTracking, headCommit } from '../../src/git/status.js';

// trackedAmong became the index half of gitTracking.
const trackedAmong = async (root: string, paths: string[]) => (await gitTracking(root, paths)).inIndex;
import { gitSync, tempRepo, writeFiles } from '../helpers/temp.js';

const files = { '.gitignore': 'node_modules/\n*.log\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'tests/x_test.md': '# x\n' };

describe('headCommit', () => {
  it('returns the full sha of HEAD', async () => {
    const root = tempRepo(files);
    expect(await headCommit(root)).toBe(gitSync(root, 'rev-parse', 'HEAD').trim());
    expect(await headCommit(root)).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('dirtyPaths', () => {
  it('is empty for a clean checkout', async () => {
    expect(await dirtyPaths(tempRepo(files))).toEqual([]);
  });

  it('lists staged, unstaged, untracked and deleted paths, not ignored ones nor .elenchos/', async () => {
    const root = tempRepo(files);
    writeFiles(root, {
      'src/a.ts': 'staged\n',
      'src/b.ts': 'unstaged\n',
      'new/deep/file.txt': 'untracked\n',
      'node_modules/x/index.js': 'ignored\n',
      'debug.log': 'ignored\n',
      '.elenchos/runs/r/run.json': '{}',
    });
    gitSync(root, 'add', 'src/a.ts');
    unlinkSync(path.join(root, 'tests/x_test.md'));
    expect(await dirtyPaths(root)).toEqual(['new/deep/file.txt', 'src/a.ts', 'src/b.ts', 'tests/x_test.md']);
  });

  it('reports both sides of a staged rename and honours extra ignore prefixes', async () => {
    const root = tempRepo(files);
    gitSync(root, 'mv', 'src/a.ts', 'src/renamed.ts');
    writeFiles(root, { 'tests/output-x/report.html': '<p>', 'space name.txt': 'x' });
    expect(await dirtyPaths(root, { ignore: ['tests/output-x/'] })).toEqual(['space name.txt', 'src/a.ts', 'src/renamed.ts']);
  });

  it('reads unmerged paths and names with spaces, quotes and non-ASCII letters as they are', async () => {
    const root = tempRepo({ 'c.txt': 'base\n' });
    gitSync(root, 'checkout', '-q', '-b', 'other');
    writeFiles(root, { 'c.txt': 'other\n' });
    gitSync(root, 'commit', '-qam', 'other');
    gitSync(root, 'checkout', '-q', 'main');
    writeFiles(root, { 'c.txt': 'main\n' });
    gitSync(root, 'commit', '-qam', 'main');
    expect(() => gitSync(root, 'merge', '-q', 'other')).toThrow();
    writeFiles(root, { 'dir with space/"q" é.txt': 'x' });
    expect(await dirtyPaths(root)).toEqual(['c.txt', 'dir with space/"q" é.txt']);
  });
});

describe('trackedAmong and filesInHead', () => {
  it('tells committed, modified, staged-only, untracked and missing files apart, in one call each', async () => {
    const root = tempRepo(files);
    writeFiles(root, { 'src/b.ts': 'changed\n', 'staged.md': 's\n', 'loose.md': 'l\n', 'weird[1]*.md': 'w\n' });
    gitSync(root, 'add', 'staged.md');
    const asked = ['tests/x_test.md', 'src/b.ts', 'staged.md', 'loose.md', 'nope.md'];

    // The index: committed, modified and staged-only files, never untracked or missing ones.
    expect([...(await trackedAmong(root, asked))].sort()).toEqual(['src/b.ts', 'staged.md', 'tests/x_test.md']);
    // HEAD: committed files (modified or not), not staged-only ones.
    expect([...(await filesInHead(root, asked))].sort()).toEqual(['src/b.ts', 'tests/x_test.md']);
    expect(await filesInHead(root, ['./tests/x_test.md'])).toEqual(new Set(['tests/x_test.md']));

    // Pathspec magic must not turn a file name into a pattern.
    expect(await trackedAmong(root, ['weird[1]*.md'])).toEqual(new Set());
    expect(await filesInHead(root, ['weird[1]*.md'])).toEqual(new Set());
    expect(await trackedAmong(root, [])).toEqual(new Set());
  });

  it('is empty in a repository without commits', async () => {
    const root = tempRepo(files);
    rmSync(path.join(root, '.git'), { recursive: true });
    gitSync(root, 'init', '-q');
    expect(await filesInHead(root, ['tests/x_test.md'])).toEqual(new Set());
  });
});
