// A full disk as git reports it (exit 128 and words, no errno): a DiskFullError that names the git
// command and says to free space, so a run ends ERROR DISK_FULL and not INTERNAL_ERROR.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskFullError } from '../../src/errors.js';
import { git, gitBytes, gitSaysDiskFull, gitToFile, GitError } from '../../src/git/git.js';
import { isDiskFull } from '../../src/process/run-scope.js';
import { tempDir, tempRepo } from '../helpers/temp.js';

// Each as git 2.39 prints it when the disk is full (the first three seen on a 64 KB tmpfs).
const FULL = [
  "error: unable to write file big.bin\nfatal: Could not reset index file to revision 'HEAD'.",
  "error: copy-fd: write returned: No space left on device\nfatal: cannot copy '/usr/share/git-core/templates/info/exclude' to '/m/r/.git/info/exclude': No space left on device",
  "fatal: sha1 file '/repo/.git/index.lock' write error. Out of diskspace",
  "fatal: sha1 file '/x/linux/.git/objects/pack/tmp_idx' write error. Out of diskspace\nfatal: fetch-pack: invalid index-pack output",
  'error: file write error: No space left on device\nfatal: unable to write loose object file',
  "fatal: Unable to create '/repo/.git/index.lock': No space left on device",
  'fatal: unable to create temporary file: No space left on device',
  "fatal: write failure on 'stdout': No space left on device",
  "fatal: write failure on 'stdout': Disk quota exceeded",
];

// Ordinary git failures that must stay what they are.
const NOT_FULL = [
  'fatal: not a git repository (or any of the parent directories): .git',
  "error: pathspec 'nope' did not match any file(s) known to git",
  "fatal: Unable to create '/repo/.git/index.lock': File exists.",
  "fatal: could not create work tree dir 'x': Permission denied",
  'error: unable to create file a.txt: Permission denied',
  "fatal: 'x' is a missing but locked worktree;",
  'fatal: bad object HEAD',
];

describe('gitSaysDiskFull', () => {
  it.each(FULL)('a full disk: %s', (stderr) => expect(gitSaysDiskFull(stderr)).toBe(true));
  it.each(NOT_FULL)('not a full disk: %s', (stderr) => expect(gitSaysDiskFull(stderr)).toBe(false));
});

/** A `git` first on PATH that fails `subcommand` as git does on a full disk, and runs the real git otherwise. */
function fullDiskGit(subcommand: string, stderr: string): NodeJS.ProcessEnv {
  const bin = tempDir('elenchos-fake-git-');
  const file = path.join(bin, 'git');
  writeFileSync(
    file,
    `#!/bin/sh\nfor a in "$@"; do if [ "$a" = ${JSON.stringify(subcommand)} ]; then printf '%s\\n' ${JSON.stringify(stderr)} >&2; exit 128; fi; done\nexec /usr/bin/git "$@"\n`,
  );
  chmodSync(file, 0o755);
  return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
}

describe('a git command failing for lack of space', () => {
  const message = "fatal: sha1 file '/repo/.git/index.lock' write error. Out of diskspace";

  it('through simple-git (git): a DiskFullError naming the command, the folder and git’s words, seen by isDiskFull', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const error = await git(['worktree', 'add', '--quiet', '--detach', path.join(root, 'w'), 'HEAD'], {
      cwd: root,
      env: fullDiskGit('worktree', message),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiskFullError);
    expect(isDiskFull(error)).toBe(true);
    const full = error as DiskFullError;
    expect(full.code).toBe('ELENCHOS_DISK_FULL');
    expect(full.message).toBe(`git worktree add --quiet failed in ${root}: no space left on the device (${message})`);
    expect(full.details).toEqual(['free some space on that disk, then run it again']);
  });

  it('through execa (gitBytes, gitToFile): named without the pinned -c settings in front', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const env = fullDiskGit('checkout', 'error: unable to write file a.txt');
    const error = await gitBytes(['-c', 'core.trustctime=true', 'checkout', '--quiet', '--detach', 'HEAD'], { cwd: root, env }).catch(
      (e: unknown) => e,
    );
    expect(isDiskFull(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^git checkout --quiet --detach failed in .*: no space left on the device \(error: unable to write file a\.txt\)$/,
    );
    const diff = await gitToFile(['diff', '--binary', 'HEAD'], {
      cwd: root,
      env: fullDiskGit('diff', "fatal: write failure on 'stdout': No space left on device"),
      file: path.join(tempDir('elenchos-diff-'), 'p.diff'),
    }).catch((e: unknown) => e);
    expect(isDiskFull(diff)).toBe(true);
    expect((diff as Error).message).toMatch(/^git diff --binary HEAD failed in /);
  });

  it('any other git failure stays a GitError, not a full disk', async () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const error = await git(['checkout', 'no-such-ref'], { cwd: root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(isDiskFull(error)).toBe(false);
  });
});
