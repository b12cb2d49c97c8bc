// The repository's object store is out of the sandboxed agent's reach: an object it
// writes goes to a quarantine folder, is checked against its id, and never replaces one the store has.
// @module-tag slow
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { gitRead, giveTo, runCliAs, WHO } from '../helpers/as-user.js';
import { FIXTURES, makeProject, onlyRun } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';

const ORIGINAL = '<h1>Tasks</h1>\n';

/** A project whose agent (committed into it: the sandbox's /tmp is private) is `script`, run in bwrap by default. */
function sandboxedProject(script: string, sandbox: 'bwrap' | 'none' = 'bwrap') {
  const p = makeProject({ files: { 'agent.js': readFileSync(path.join(FIXTURES, 'agents', script), 'utf8') } });
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  settings.agent = { type: 'command', command: process.execPath, args: ['agent.js'], timeoutSeconds: 30, sandbox };
  settings.maxRepairAttempts = 0;
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', 'sandboxed agent');
  return p;
}

describe.skipIf(!existsSync('/usr/bin/bwrap')).each(WHO)('the object store under agent.sandbox "bwrap", as %s', (who) => {
  it('an object written under the id of the base commit’s page never replaces it: verify --fresh of the unchanged commit stays FAILED', () => {
    const p = sandboxedProject('object-forger.js');
    giveTo(who, p.root, p.home);
    const blob = gitRead(p.root, 'rev-parse', 'HEAD:page.html').trim();
    const run = runCliAs(who, ['run', 'tasks/add-task.json'], p.root, p.env);
    const forger = JSON.parse(/\[agent\] FORGER (\{.*\})/.exec(run.stdout)?.[1] ?? 'null') as Record<string, string> | null;
    expect(forger, run.stdout + run.stderr).not.toBeNull();
    // The store itself is read-only; the forged object is written where new objects go, and refused there.
    expect(forger!.store).not.toBe('written');
    expect(forger!.quarantine).toBe('written');
    const { record } = onlyRun(p.root);
    expect(record.state, run.stdout).toBe('ERROR');
    expect(record.reason).toBe('UNSTABLE_WORKSPACE');
    expect(record.message).toContain(blob);
    expect(gitRead(p.root, 'cat-file', 'blob', blob)).toBe(ORIGINAL);
    expect(readdirSync(path.join(p.root, '.git/objects')).filter((name) => name.startsWith('incoming-'))).toEqual([]);
    // The run's quarantines and held objects are gone with it.
    expect(readdirSync(path.join(p.root, '.git/objects/elenchos-private'))).toEqual([]);

    // Before: VERIFIED, the fresh worktree checked the finished page out of the forged object.
    const verify = runCliAs(who, ['verify', '--fresh', 'tasks/add-task.json'], p.root, p.env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(1);
    expect(verify.stdout).toContain('FAILED');
  }, 120_000);

  it('the agent still adds, commits and writes new objects, and the run reads them', () => {
    const p = sandboxedProject('git-worker.js');
    giveTo(who, p.root, p.home);
    const run = runCliAs(who, ['run', 'tasks/add-task.json'], p.root, p.env);
    const worker = JSON.parse(/\[agent\] GIT (\{.*\})/.exec(run.stdout)?.[1] ?? 'null') as Record<string, unknown> | null;
    expect(worker, run.stdout + run.stderr).not.toBeNull();
    expect(worker).toMatchObject({ add: true, commit: true, quarantined: true, storeWritable: false });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The agent's commit is in the repository's store now: the stored patch holds its page.
    const { dir } = onlyRun(p.root);
    const patch = readFileSync(path.join(dir, 'attempts/01/workspace/diff.patch'), 'utf8');
    expect(patch).toContain('Buy milk');
    expect(gitRead(p.root, 'cat-file', '-t', String(worker!.commitId)).trim()).toBe('commit');
  }, 120_000);
});

describe('the object store without the sandbox', () => {
  it('an object renamed over the base commit’s page is found by its ctime and removed: the run ends ERROR, verify --fresh is never VERIFIED', () => {
    const p = sandboxedProject('object-forger.js', 'none');
    const blob = gitSync(p.root, 'rev-parse', 'HEAD:page.html').trim();
    const run = runCli(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(run.stdout).toContain('FORGER {"store":"written"');
    const { record } = onlyRun(p.root);
    expect(record.state, run.stdout).toBe('ERROR');
    expect(record.reason).toBe('UNSTABLE_WORKSPACE');
    expect(record.message).toContain(blob);
    expect(record.message).toContain('removed from the repository');
    expect(existsSync(path.join(p.root, '.git/objects', blob.slice(0, 2), blob.slice(2)))).toBe(false);
    // Before: VERIFIED. Now git fails on the missing object rather than reading the agent's page.
    const verify = runCli(['verify', '--fresh', 'tasks/add-task.json'], p.root, p.env);
    expect(verify.code, verify.stdout + verify.stderr).not.toBe(0);
    expect(verify.stdout).not.toMatch(/\bVERIFIED\b.*add-task/);
  }, 120_000);
});
