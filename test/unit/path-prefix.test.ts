import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUnderPrefix } from '../../src/git/path-prefix.js';
import { sameSnapshot, snapshotWorkspace } from '../../src/git/snapshot.js';
import { kaneOutputPaths } from '../../src/verifiers/kane/inputs.js';
import { tempRepo } from '../helpers/temp.js';

describe('isUnderPrefix', () => {
  it('matches folders, never name prefixes, unless the prefix is a **/name-* folder pattern', () => {
    expect(isUnderPrefix('tests/output-a/Result.md', ['tests/output-a/'])).toBe(true);
    expect(isUnderPrefix('tests/output-ab/Result.md', ['tests/output-a'])).toBe(false);
    expect(isUnderPrefix('tests/helpers/helper-output-login-t-3/Result.md', ['**/helper-output-*'])).toBe(true);
    expect(isUnderPrefix('helper-output-x/a.md', ['**/helper-output-*'])).toBe(true);
    expect(isUnderPrefix('tests/helpers/helper-output-notes.md', ['**/helper-output-*'])).toBe(false);
  });
});

describe("Kane's output paths", () => {
  it("leave the snapshot alone when Kane writes output-<stem>/, helper-output-*/ and .testmuai/evidence/", async () => {
    const repo = tempRepo({ 'tests/add_test.md': '## One\n@import ./helpers/login.md\n', 'tests/helpers/login.md': 'Log in.\n' });
    const exclude = kaneOutputPaths('tests/add_test.md');
    const before = await snapshotWorkspace(repo, { exclude });
    for (const file of ['tests/output-add/Result.md', 'tests/helpers/helper-output-login-add-1/Result.md', '.testmuai/evidence/x.evidence']) {
      mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      writeFileSync(path.join(repo, file), 'kane wrote this\n');
    }
    expect(sameSnapshot(before, await snapshotWorkspace(repo, { exclude }))).toBe(true);
    writeFileSync(path.join(repo, 'tests/helpers/login.md'), 'Log in as admin.\n');
    expect(sameSnapshot(before, await snapshotWorkspace(repo, { exclude }))).toBe(false);
  });
});
