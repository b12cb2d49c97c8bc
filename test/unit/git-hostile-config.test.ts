// Our git calls against a repository whose config an agent wrote: no program of its runs, no replace
// ref is read; and git's settings are compared and put back (src/git/git-state.ts).
import { chmodSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureGitState, gitStateChanges } from '../../src/git/git-state.js';
import { git, gitBytes } from '../../src/git/git.js';
import { readStatus } from '../../src/git/status.js';
import { readWorktreeIndex } from '../../src/git/worktree-reset.js';
import { hiddenEdits, hiddenFiles } from '../../src/git/worktree-integrity.js';
import { addWorktree } from '../../src/git/worktree.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';

function hostileRepo() {
  const root = tempRepo({ 'a.txt': 'a\n' });
  const scratch = tempDir('elenchos-hostile-');
  const ran = path.join(scratch, 'ran');
  const program = path.join(scratch, 'program.sh');
  writeFileSync(program, `#!/bin/sh\necho "$0 $*" >> ${JSON.stringify(ran)}\nexit 1\n`);
  chmodSync(program, 0o755);
  return { root, scratch, ran, program };
}

describe('git calls in a repository with an agent-written config', () => {
  it('never run core.fsmonitor, a hooks path or a post-checkout hook, through simple-git or execa', async () => {
    const { root, ran, program } = hostileRepo();
    gitSync(root, 'config', 'core.fsmonitor', program);
    writeFileSync(path.join(root, '.git/hooks/post-checkout'), `#!/bin/sh\n${program} hook\n`);
    chmodSync(path.join(root, '.git/hooks/post-checkout'), 0o755);
    writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    // Each of these runs the fsmonitor (ls-files, diff) or a hook (worktree add) under git's defaults.
    gitSync(root, 'ls-files', '-v');
    expect(existsSync(ran), 'the program runs under git defaults').toBe(true);
    writeFileSync(ran, '');
    await git(['ls-files', '-v', '-z'], { cwd: root });
    await gitBytes(['diff', '--name-only', 'HEAD'], { cwd: root });
    await hiddenFiles(root);
    await addWorktree(root, path.join(root, '.elenchos/workspaces/w'));
    gitSync(root, 'config', 'core.hooksPath', path.dirname(program));
    await addWorktree(root, path.join(root, '.elenchos/workspaces/w2'));
    expect(readFileSync(ran, 'utf8')).toBe('');
  });

  it('reads objects as they are, not through a replace ref', async () => {
    const { root } = hostileRepo();
    const original = gitSync(root, 'rev-parse', 'HEAD:a.txt').trim();
    const fake = gitSync(root, 'hash-object', '-w', '--stdin').trim();
    gitSync(root, 'replace', original, fake);
    expect(gitSync(root, 'cat-file', 'blob', original)).toBe('');
    expect(await git(['cat-file', 'blob', original], { cwd: root })).toBe('a\n');
  });
});

describe('git state before and after the agent', () => {
  it('names what changed in the common config, info/, hooks and replace refs, and puts it back', async () => {
    const { root, program } = hostileRepo();
    const worktree = path.join(root, '.elenchos/workspaces/w');
    await addWorktree(root, worktree);
    const home = tempDir('elenchos-home-');
    const before = await captureGitState(worktree, { HOME: home });
    const hookBefore = readFileSync(path.join(root, '.git/hooks/pre-commit.sample'));
    gitSync(worktree, 'config', 'filter.x.smudge', program);
    writeFileSync(path.join(root, '.git/info/attributes'), '* filter=x\n');
    writeFileSync(path.join(root, '.git/hooks/pre-commit.sample'), 'evil');
    writeFileSync(path.join(home, '.gitconfig'), '[core]\n\tfsmonitor = x\n');
    const blob = gitSync(root, 'rev-parse', 'HEAD:a.txt').trim();
    gitSync(root, 'replace', blob, gitSync(root, 'hash-object', '-w', '--stdin').trim());
    expect(await gitStateChanges(before, { restore: true })).toEqual([
      '.git/config changed',
      '.git/hooks/pre-commit.sample changed',
      '.git/info/attributes added',
      `.git/refs/replace/${blob} added`,
      `${path.join(home, '.gitconfig')} added`,
    ]);
    expect(await gitStateChanges(before)).toEqual([]);
    expect(readFileSync(path.join(root, '.git/hooks/pre-commit.sample'))).toEqual(hookBefore);
    expect(gitSync(root, 'config', '--list')).not.toContain('filter.x');
  });

  it('an untouched repository and an ordinary commit in the worktree change nothing', async () => {
    const { root } = hostileRepo();
    const worktree = path.join(root, '.elenchos/workspaces/w');
    await addWorktree(root, worktree);
    const before = await captureGitState(worktree, { HOME: tempDir('elenchos-home-') });
    writeFileSync(path.join(worktree, 'b.txt'), 'b\n');
    gitSync(worktree, 'add', 'b.txt');
    gitSync(worktree, 'commit', '-qm', 'agent work');
    expect(await gitStateChanges(before)).toEqual([]);
  });

  it("git's own housekeeping (gc, update-server-info, pack-refs, maintenance) changes nothing that counts", async () => {
    const { root } = hostileRepo();
    const worktree = path.join(root, '.elenchos/workspaces/w');
    await addWorktree(root, worktree);
    const before = await captureGitState(worktree, { HOME: tempDir('elenchos-home-') });
    // What `gc --auto` does in the background after a large commit: repack, update-server-info (info/refs,
    // objects/info/packs), pack the refs; and what a fetch or a rebase leaves behind.
    gitSync(root, 'gc', '--quiet');
    gitSync(root, 'update-server-info');
    gitSync(root, 'pack-refs', '--all');
    writeFileSync(path.join(root, '.git/ORIG_HEAD'), gitSync(root, 'rev-parse', 'HEAD'));
    writeFileSync(path.join(root, '.git/FETCH_HEAD'), '');
    expect(readFileSync(path.join(root, '.git/info/refs'), 'utf8')).toContain('refs/heads/');
    expect(await gitStateChanges(before)).toEqual([]);
    // The files of info/ that git reads for the tree still count.
    writeFileSync(path.join(root, '.git/info/exclude'), 'page.html\n');
    writeFileSync(path.join(root, '.git/info/sparse-checkout'), '/a.txt\n');
    expect(await gitStateChanges(before, { restore: true })).toEqual(['.git/info/exclude changed', '.git/info/sparse-checkout added']);
  });
});

describe('hiddenEdits', () => {
  it('finds an edit whose index entry was rewritten to claim the committed blob, and nothing in an honest worktree', async () => {
    const { root } = hostileRepo();
    const worktree = path.join(root, '.elenchos/workspaces/w');
    await addWorktree(root, worktree);
    const trusted = await readWorktreeIndex(root, worktree);
    expect(await hiddenEdits(worktree, trusted, [])).toEqual([]);
    // Honest: edited and listed by status.
    writeFileSync(path.join(worktree, 'a.txt'), 'work\n');
    const listed = (await readStatus(worktree)).entries.map((e) => e.path);
    expect(listed).toEqual(['a.txt']);
    expect(await hiddenEdits(worktree, trusted, listed)).toEqual([]);
    // Hidden: stage it (the index takes its stat data), then put HEAD's blob id back into the entry.
    utimesSync(path.join(worktree, 'a.txt'), 978307200, 978307200);
    gitSync(worktree, 'add', 'a.txt');
    const indexFile = gitSync(worktree, 'rev-parse', '--path-format=absolute', '--git-path', 'index').trim();
    const index = readFileSync(indexFile);
    const at = index.indexOf(Buffer.from('a.txt\0')) - 62;
    Buffer.from(gitSync(worktree, 'rev-parse', 'HEAD:a.txt').trim(), 'hex').copy(index, at + 40);
    const { createHash } = await import('node:crypto');
    createHash('sha1')
      .update(index.subarray(0, -20))
      .digest()
      .copy(index, index.length - 20);
    writeFileSync(indexFile, index);
    const nowListed = (await readStatus(worktree)).entries.map((e) => e.path);
    expect(nowListed, 'git status no longer sees the edit').toEqual([]);
    expect(await hiddenEdits(worktree, trusted, nowListed)).toEqual(['a.txt']);
  });
});

describe('replace refs packed away', () => {
  it('a replace ref moved into packed-refs is still named', async () => {
    const { root } = hostileRepo();
    const before = await captureGitState(root, { HOME: tempDir('elenchos-home-') });
    const blob = gitSync(root, 'rev-parse', 'HEAD:a.txt').trim();
    gitSync(root, 'replace', blob, gitSync(root, 'hash-object', '-w', '--stdin').trim());
    gitSync(root, 'pack-refs', '--all');
    expect(existsSync(path.join(root, '.git/refs/replace', blob))).toBe(false);
    expect(await gitStateChanges(before)).toContain('.git/packed-refs#replace added');
  });
});
