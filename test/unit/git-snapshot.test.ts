import { chmodSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSnapshots, sameSnapshot, snapshotWorkspace } from '../../src/git/snapshot.js';
import { gitSync, tempDir, tempRepo, writeFiles } from '../helpers/temp.js';

const files = {
  '.gitignore': 'node_modules/\n',
  'src/app.js': 'console.log(1);\n',
  'bin/run.sh': '#!/bin/sh\necho hi\n',
  'tests/add-task_test.md': '# add\n',
};

function repo(): string {
  const root = tempRepo(files);
  symlinkSync('src/app.js', path.join(root, 'link'));
  gitSync(root, 'add', 'link');
  gitSync(root, 'commit', '-qm', 'link');
  return root;
}

const write = (root: string, rel: string, content: string) => writeFiles(root, { [rel]: content });

describe.concurrent('snapshotWorkspace', () => {
  it('is equal when nothing changed, clean or dirty', async () => {
    const root = repo();
    const clean = await snapshotWorkspace(root);
    expect(clean.changed).toEqual([]);
    expect(sameSnapshot(clean, await snapshotWorkspace(root))).toBe(true);
    write(root, 'src/app.js', 'edited\n');
    write(root, 'new.txt', 'new\n');
    const dirty = await snapshotWorkspace(root);
    expect(dirty.changed).toEqual(['new.txt', 'src/app.js']);
    expect(sameSnapshot(dirty, await snapshotWorkspace(root))).toBe(true);
    expect(sameSnapshot(clean, dirty)).toBe(false);
  });

  const changes: Record<string, (root: string) => void> = {
    'a content edit of a tracked file': (root) => write(root, 'src/app.js', 'console.log(2);\n'),
    'a new untracked file': (root) => write(root, 'deep/new/file.txt', 'x'),
    'a deleted file': (root) => unlinkSync(path.join(root, 'tests/add-task_test.md')),
    'chmod +x': (root) => chmodSync(path.join(root, 'src/app.js'), 0o755),
    'a symlink retarget': (root) => {
      unlinkSync(path.join(root, 'link'));
      symlinkSync('bin/run.sh', path.join(root, 'link'));
    },
    'a commit (HEAD moves)': (root) => gitSync(root, 'commit', '-q', '--allow-empty', '-m', 'empty'),
  };

  for (const [name, change] of Object.entries(changes)) {
    it(`differs after ${name}`, async () => {
      const root = repo();
      const before = await snapshotWorkspace(root);
      change(root);
      const after = await snapshotWorkspace(root);
      expect(sameSnapshot(before, after)).toBe(false);
      expect(diffSnapshots(before, after).length).toBeGreaterThan(0);
    });
  }

  it('a staged rename lists both paths: the old one deleted, the new one created', async () => {
    const root = repo();
    gitSync(root, 'mv', 'src/app.js', 'src/main.js');
    const snapshot = await snapshotWorkspace(root);
    expect(snapshot.changed).toEqual(['src/app.js', 'src/main.js']);
    expect(snapshot.entries['src/app.js']).toBe('deleted');
  });

  it('needs a commit to stand on', async () => {
    const root = tempDir();
    gitSync(root, 'init', '-q');
    writeFiles(root, { 'a.txt': 'x' });
    await expect(snapshotWorkspace(root)).rejects.toThrow();
  });

  it('differs when an already-dirty file changes again', async () => {
    const root = repo();
    write(root, 'src/app.js', 'one\n');
    write(root, 'scratch.txt', 'one\n');
    const before = await snapshotWorkspace(root);
    write(root, 'scratch.txt', 'two\n');
    const after = await snapshotWorkspace(root);
    expect(sameSnapshot(before, after)).toBe(false);
    expect(diffSnapshots(before, after)).toEqual(['scratch.txt: content changed']);
  });

  it('is equal when a file is touched back to the same content', async () => {
    const root = repo();
    write(root, 'untracked.txt', 'same\n');
    const before = await snapshotWorkspace(root);
    write(root, 'src/app.js', 'something else\n');
    write(root, 'src/app.js', files['src/app.js']);
    write(root, 'untracked.txt', 'same\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(root, 'src/app.js'), later, later);
    expect(sameSnapshot(before, await snapshotWorkspace(root))).toBe(true);
  });

  it('leaves out excluded prefixes, ignored files and .elenchos/', async () => {
    const root = repo();
    const before = await snapshotWorkspace(root, { exclude: ['tests/output-add-task/', '.testmuai/evidence'] });
    writeFiles(root, {
      'tests/output-add-task/Result.md': 'pass',
      '.testmuai/evidence/shot.png': 'png',
      'node_modules/pkg/index.js': 'x',
      '.elenchos/runs/r/run.json': '{}',
    });
    const after = await snapshotWorkspace(root, { exclude: ['tests/output-add-task/', '.testmuai/evidence'] });
    expect(sameSnapshot(before, after)).toBe(true);
    expect(after.changed).toEqual([]);
    // A sibling that merely shares the prefix text is not excluded.
    write(root, 'tests/output-add-task-2.md', 'x');
    expect(sameSnapshot(before, await snapshotWorkspace(root, { exclude: ['tests/output-add-task/'] }))).toBe(false);
  });

  it('does not follow symlinks: a changed link target file outside the repo does not matter', async () => {
    const root = repo();
    const outside = path.join(root, '..', `${path.basename(root)}-outside.txt`);
    writeFileSync(outside, 'one');
    symlinkSync(outside, path.join(root, 'out-link'));
    const before = await snapshotWorkspace(root);
    writeFileSync(outside, 'two');
    expect(sameSnapshot(before, await snapshotWorkspace(root))).toBe(true);
    rmSync(outside);
  });
});

describe.concurrent('diffSnapshots', () => {
  it('names each difference in words', async () => {
    const root = repo();
    write(root, 'gone-soon.txt', 'x');
    write(root, 'bin/run.sh', '#!/bin/sh\necho changed\n');
    unlinkSync(path.join(root, 'link'));
    symlinkSync('first', path.join(root, 'link'));
    const before = await snapshotWorkspace(root);
    write(root, 'src/app.js', 'changed\n');
    write(root, 'fresh.txt', 'x');
    chmodSync(path.join(root, 'bin/run.sh'), 0o755);
    unlinkSync(path.join(root, 'tests/add-task_test.md'));
    unlinkSync(path.join(root, 'link'));
    symlinkSync('elsewhere', path.join(root, 'link'));
    rmSync(path.join(root, 'gone-soon.txt'));
    gitSync(root, 'commit', '-q', '--allow-empty', '-m', 'moved');
    const after = await snapshotWorkspace(root);
    write(root, 'src/app.js', files['src/app.js']);
    expect(diffSnapshots(after, await snapshotWorkspace(root))).toContain('src/app.js: restored to its committed content');
    const lines = diffSnapshots(before, after);
    expect(lines[0]).toBe(`HEAD moved from ${before.head.slice(0, 12)} to ${after.head.slice(0, 12)}`);
    expect(lines.slice(1)).toEqual([
      'bin/run.sh: mode changed from 644 to 755',
      'fresh.txt: created',
      'gone-soon.txt: deleted',
      'link: symlink retargeted from first to elsewhere',
      'src/app.js: modified',
      'tests/add-task_test.md: deleted',
    ]);
  });
});
