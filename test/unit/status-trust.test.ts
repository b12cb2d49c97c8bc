// What makes `git status` call a checkout clean although it differs from its commit, each on a real repository:
// `verify --in-place` refuses every one (git/status-trust.ts), and says nothing about an honest checkout.
import { execFileSync } from 'node:child_process';
import { appendFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirtyPaths } from '../../src/git/status.js';
import { hiddenFromStatus } from '../../src/git/status-trust.js';
import { FORGE_INDEX } from '../helpers/forge-index.js';
import { gitSync, tempRepo, writeFiles } from '../helpers/temp.js';

const COMMITTED = '<h1>Tasks</h1><ul></ul>\n';
const EDITED = '<h1>Tasks</h1><ul><li>Buy milk</li></ul>\n';

function checkout(): string {
  const root = tempRepo({ '.gitignore': 'node_modules/\n', 'page.html': COMMITTED, 'app.js': 'serve()\n', 'src/a.js': '1\n' });
  writeFileSync(path.join(root, 'page.html'), EDITED);
  return root;
}

/** The checkout looks clean to git status, and `hidden` names why it is not. */
async function expectHidden(root: string, ...hidden: RegExp[]): Promise<void> {
  expect(await dirtyPaths(root)).toEqual([]);
  const found = await hiddenFromStatus(root);
  expect(found).toHaveLength(hidden.length);
  hidden.forEach((pattern, i) => expect(found[i]).toMatch(pattern));
}

describe.concurrent('what hides a difference from git status', () => {
  it('nothing, in an honest checkout (files ignored by the commit’s .gitignore, and a filter no driver runs)', async () => {
    const root = tempRepo({
      '.gitignore': 'node_modules/\n',
      '.gitattributes': '*.bin filter=nowhere\n',
      'page.html': COMMITTED,
      'a.bin': 'x',
    });
    writeFiles(root, { 'node_modules/x/.gitignore': '*\n', 'node_modules/x/index.js': '' });
    expect(await hiddenFromStatus(root)).toEqual([]);
    // git-lfs's own filter gives the pointer the commit holds: no reason to refuse a repository that uses it.
    writeFiles(root, { '.git/info/attributes': '*.bin filter=lfs\n' });
    gitSync(root, 'config', 'filter.lfs.clean', 'git-lfs clean -- %f');
    gitSync(root, 'config', 'filter.lfs.smudge', 'git-lfs smudge -- %f');
    expect(await hiddenFromStatus(root)).toEqual([]);
  });

  it('skip-worktree', async () => {
    const root = checkout();
    gitSync(root, 'update-index', '--skip-worktree', 'page.html');
    await expectHidden(
      root,
      /^page\.html is marked skip-worktree in the index, so git status does not look at it; run git update-index --no-skip-worktree -- page\.html/,
    );
  });

  it('assume-unchanged', async () => {
    const root = checkout();
    utimesSync(path.join(root, 'page.html'), new Date(0), new Date(0));
    gitSync(root, 'update-index', '--assume-unchanged', 'page.html');
    await expectHidden(root, /^page\.html is marked assume-unchanged in the index/);
  });

  it('a sparse checkout (what it leaves out is skip-worktree, and missing)', async () => {
    const root = checkout();
    gitSync(root, 'checkout', '-q', '--', 'page.html');
    gitSync(root, 'sparse-checkout', 'set', '--no-cone', '/src/');
    expect(await hiddenFromStatus(root)).toEqual([
      expect.stringMatching(/^\.gitignore is marked skip-worktree/),
      expect.stringMatching(/^app\.js is marked skip-worktree/),
      expect.stringMatching(/^page\.html is marked skip-worktree/),
    ]);
  });

  it('an index entry whose stat data was forged to claim the committed content', async () => {
    const root = checkout();
    utimesSync(path.join(root, 'page.html'), new Date(1_000_000), new Date(1_000_000));
    gitSync(root, 'add', 'page.html');
    execFileSync(process.execPath, ['-e', FORGE_INDEX], { cwd: root });
    await expectHidden(root, /^page\.html differs from HEAD, but the checkout's index claims it does not/);
  });

  it('a clean filter configured in the repository', async () => {
    const root = checkout();
    writeFileSync(path.join(root, '.git/info/attributes'), 'page.html filter=same\n');
    gitSync(root, 'config', 'filter.same.clean', 'git show HEAD:page.html');
    gitSync(root, 'add', 'page.html'); // refresh the index through the filter
    await expectHidden(root, /^page\.html \(and every path whose attributes say filter=same\) is read through the filter driver "same"/);
  });

  it('an untracked file hidden by .git/info/exclude, and a .gitignore that ignores itself', async () => {
    const root = tempRepo({ '.gitignore': '', 'page.html': COMMITTED });
    appendFileSync(path.join(root, '.git/info/exclude'), 'override.html\n');
    writeFileSync(path.join(root, 'override.html'), EDITED);
    execFileSync('mkdir', ['-p', path.join(root, 'public')]);
    writeFileSync(path.join(root, 'public/.gitignore'), '*\n');
    writeFileSync(path.join(root, 'public/index.html'), EDITED);
    await expectHidden(
      root,
      /^override\.html is ignored by \.git\/info\/exclude, not by a committed \.gitignore, so git status does not show it/,
      /^public\/ is ignored by public\/\.gitignore, which the commit does not have, not by a committed \.gitignore/,
    );
  });
});
