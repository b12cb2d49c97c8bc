import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { excludePathspec, isUnderPrefix } from '../../src/git/path-prefix.js';
import { sameSnapshot, snapshotWorkspace } from '../../src/git/snapshot.js';
import { kaneOutputPaths } from '../../src/verifiers/kane/inputs.js';
import { tempRepo } from '../helpers/temp.js';

describe('isUnderPrefix', () => {
  it('matches folders, never name prefixes', () => {
    expect(isUnderPrefix('tests/output-a/Result.md', ['tests/output-a/'])).toBe(true);
    expect(isUnderPrefix('tests/output-a', ['tests/output-a/'])).toBe(true);
    expect(isUnderPrefix('tests/output-ab/Result.md', ['tests/output-a'])).toBe(false);
    expect(isUnderPrefix('./x/y', ['x'])).toBe(false);
    expect(isUnderPrefix('x/y/', ['./x/'])).toBe(true);
    expect(isUnderPrefix('anything', ['', '/', '*', './'])).toBe(false);
    expect(isUnderPrefix('/abs', [''])).toBe(false);
    // Normalisation: backslashes, every leading ./ (and only leading ones), every trailing slash.
    expect(isUnderPrefix('a/b/c', ['a\\b'])).toBe(true);
    expect(isUnderPrefix('x/y', ['././x'])).toBe(true);
    expect(isUnderPrefix('a./b/c', ['a./b'])).toBe(true);
    expect(isUnderPrefix('x/y', ['x//'])).toBe(true);
    expect(isUnderPrefix('tests/output-a//', ['tests/output-a'])).toBe(true);
  });

  it('a folder pattern (trailing star) matches folders of that name in that one directory only', () => {
    const kane = ['tests/helpers/helper-output-login-add-*'];
    expect(isUnderPrefix('tests/helpers/helper-output-login-add-1/Result.md', kane)).toBe(true);
    expect(isUnderPrefix('tests/helpers/helper-output-login-add-12/.internal/meta.json', kane)).toBe(true);
    // Not a file of that name, not the same name one level down or elsewhere, not another helper's.
    expect(isUnderPrefix('tests/helpers/helper-output-login-add-1', kane)).toBe(false);
    expect(isUnderPrefix('tests/helpers/sub/helper-output-login-add-1/a.js', kane)).toBe(false);
    expect(isUnderPrefix('public/helper-output-login-add-1/app.js', kane)).toBe(false);
    expect(isUnderPrefix('tests/helper-output-login-add-1/a', kane)).toBe(false);
    expect(isUnderPrefix('tests/helpers/helper-output-logout-add-1/a', kane)).toBe(false);
    expect(isUnderPrefix('xtests/helpers/helper-output-login-add-1/a', kane)).toBe(false);
    expect(isUnderPrefix('helper-output-h-t-1/Result.md', ['helper-output-h-t-*'])).toBe(true);
    expect(isUnderPrefix('a/helper-output-h-t-1/Result.md', ['helper-output-h-t-*'])).toBe(false);
    // A pattern with nothing before its star matches nothing; the parent must be the path's own start.
    expect(isUnderPrefix('a/b/c', ['a/*'])).toBe(false);
    expect(isUnderPrefix('other/helper-output-h-t-1/a', ['tests/helper-output-h-t-*'])).toBe(false);
    // The old any-depth form is gone: it matches nothing but its own literal name.
    expect(isUnderPrefix('public/helper-output-x/app.js', ['**/helper-output-*'])).toBe(false);
  });

  it('turns prefixes into git exclude pathspecs, escaping glob characters of the literal part', () => {
    expect(excludePathspec('tests/output-a/')).toBe(':(top,exclude,literal)tests/output-a');
    expect(excludePathspec('t[1]/helper-output-h-t-*')).toBe(':(top,exclude,glob)t\\[1\\]/helper-output-h-t-*/**');
  });
});

describe("Kane's output paths", () => {
  it('are exactly output-<stem>/, helper-output-<helper>-<stem>-* beside each helper reached, .testmuai/evidence/', async () => {
    const repo = tempRepo({
      'tests/add_test.md': '## One\n@import ./helpers/login.md\n\n## Two\nSee.\n\n## Three\n@import ../shared/cart.md\n',
      'tests/helpers/login.md': '## Log in\nLog in.\n',
      'shared/cart.md': '## Cart\n@import ./deep/pay.md\n',
      'shared/deep/pay.md': '## Pay\nPay.\n',
      'root_test.md': '## A\n@import helper.md\n',
      'helper.md': 'x\n',
    });
    expect(await kaneOutputPaths(repo, 'tests/add_test.md')).toEqual([
      'tests/output-add/',
      'shared/deep/helper-output-pay-add-*',
      'shared/helper-output-cart-add-*',
      'tests/helpers/helper-output-login-add-*',
      '.testmuai/evidence/',
    ]);
    expect(await kaneOutputPaths(repo, 'root_test.md')).toEqual(['output-root/', 'helper-output-helper-root-*', '.testmuai/evidence/']);
  });

  it('leave the snapshot alone when Kane writes its folders, and see a helper-output-* folder anywhere else', async () => {
    const repo = tempRepo({ 'tests/add_test.md': '## One\n@import ./helpers/login.md\n', 'tests/helpers/login.md': 'Log in.\n' });
    const exclude = await kaneOutputPaths(repo, 'tests/add_test.md');
    const before = await snapshotWorkspace(repo, { exclude });
    const write = (file: string) => {
      mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      writeFileSync(path.join(repo, file), 'kane wrote this\n');
    };
    for (const file of ['tests/output-add/Result.md', 'tests/helpers/helper-output-login-add-1/Result.md', '.testmuai/evidence/x.evidence'])
      write(file);
    expect(sameSnapshot(before, await snapshotWorkspace(repo, { exclude }))).toBe(true);
    write('public/helper-output-x/app.js');
    const after = await snapshotWorkspace(repo, { exclude });
    expect(after.changed).toEqual(['public/helper-output-x/app.js']);
    writeFileSync(path.join(repo, 'tests/helpers/login.md'), 'Log in as admin.\n');
    expect(sameSnapshot(before, await snapshotWorkspace(repo, { exclude }))).toBe(false);
  });
});
