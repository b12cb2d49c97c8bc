// A full disk reported by git: git says it in words and exits 128 (no errno reaches us), so the
// run must read the words. Injected through a `git` first on PATH that prints git's own message for one
// command and runs the real git for every other; and, where a tmpfs can be mounted, on a real full disk.
// @module-tag slow
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveRecordedPids } from '../helpers/live-cli.js';
import { makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { canMountSmallDisk, mountSmallDisk, unmount } from '../helpers/small-disk.js';
import { tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const TIMEOUT = 120_000;
const REAL_GIT = '/usr/bin/git';

/** PATH with a `git` that fails (exit 128, `stderr`) when its arguments contain `words`, else runs the real one. */
function gitFailingOn(words: string, stderr: string): string {
  const bin = tempDir('elenchos-full-git-');
  writeFileSync(
    path.join(bin, 'git'),
    [
      '#!/bin/sh',
      `case " $* " in *${JSON.stringify(` ${words} `)}*) printf '%s\\n' ${JSON.stringify(stderr)} >&2; exit 128;; esac`,
      `exec ${REAL_GIT} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

function workspaces(root: string): string[] {
  const dir = path.join(root, '.elenchos/workspaces');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** What every DISK_FULL run must leave: exit 2, no stack, the record sealed, nothing running, no worktree. */
function expectDiskFull(root: string, run: ReturnType<typeof runCli>, command: string): string {
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  const { dir, record } = onlyRun(root);
  expect(record).toMatchObject({ state: 'ERROR', reason: 'DISK_FULL' });
  expect(record.message).toContain(`git ${command}`);
  expect(record.message).toContain('no space left on the device');
  expect(record.message).toMatch(/free some space and run again$/);
  expect(record.internalError).toBeUndefined();
  expect(liveRecordedPids(dir)).toEqual([]);
  expect(processesInside(root)).toEqual([]);
  expect(workspaces(root)).toEqual([]);
  expect(leakedWorktrees(root)).toEqual([]);
  expect(runCli(['evidence', 'verify', 'latest'], root).code).toBe(0);
  return record.message as string;
}

describe('git reports a full disk', () => {
  it('git worktree add: "sha1 file … write error. Out of diskspace" ends ERROR DISK_FULL, not INTERNAL_ERROR', { timeout: TIMEOUT }, () => {
    const project = makeProject();
    const said = `fatal: sha1 file '${project.root}/.git/worktrees/x/index.lock' write error. Out of diskspace`;
    const run = runCli(['run', 'tasks/add-task.json'], project.root, { ...project.env, PATH: gitFailingOn('worktree add', said) });
    const message = expectDiskFull(project.root, run, 'worktree add --quiet');
    expect(message).toContain(said);
    expect(run.stdout).not.toContain('INTERNAL_ERROR');
  });

  // Before, the archive's failure was a note on the attempt ("workspace archive failed") and the run
  // went on to VERIFIED with no patch kept of what was verified.
  it("the workspace archive's git diff after the agent: ERROR DISK_FULL, the agent's children stopped", { timeout: TIMEOUT }, () => {
    const project = makeProject();
    const said = "fatal: write failure on 'stdout': No space left on device";
    const run = runCli(['run', 'tasks/add-task.json'], project.root, { ...project.env, PATH: gitFailingOn('diff --binary', said) });
    expect(expectDiskFull(project.root, run, 'diff --binary --no-renames')).toContain(said);
    expect(run.stdout).toContain('[kane] ✓ step 2'); // the verifier passed, and that is not what the record says
  });
});

const canMount = canMountSmallDisk();

describe.skipIf(!canMount)('git on a real full disk (a 3 MB tmpfs over .elenchos)', () => {
  it('a tracked file larger than the disk: git worktree add fails, ERROR DISK_FULL naming it', { timeout: TIMEOUT }, () => {
    const project = makeProject({ files: { 'assets/big.bin': 'x'.repeat(4 * 1024 * 1024) } });
    const disk = mountSmallDisk(project.root, '3m')!;
    try {
      const run = runCli(['run', 'tasks/add-task.json'], project.root, project.env);
      expect(expectDiskFull(project.root, run, 'worktree add')).toMatch(/\(error: unable to write file [^)]*\): every child/);
    } finally {
      unmount(disk, project.root);
    }
  });
});
