// Best of N, safety per candidate: a sandboxed candidate cannot see its rival's worktree or git admin
// folder (with sandbox "none" it can: docs/security.md says so, and this test proves the probe works).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';

const PROBE = path.join(FIXTURES, 'agents/rival-probe.js');

function rivals(sandbox: 'none' | 'bwrap') {
  const p = makeProject({ files: { 'rival-probe.js': readFileSync(PROBE, 'utf8') } });
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  const agent = { type: 'command', command: process.execPath, args: ['rival-probe.js'], timeoutSeconds: 30, sandbox };
  settings.agents = { a: agent, b: agent };
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `rivals ${sandbox}`);
  // One at a time, worktrees kept: b runs while a's worktree and admin folder still exist, with a's file staged.
  const run = spawnSync(process.execPath, [BIN, 'run', 'tasks/add-task.json', '--agents', 'a,b', '--parallel', '1', '--keep'], {
    cwd: p.root,
    encoding: 'utf8',
    env: { ...process.env, ...p.env },
    timeout: 280_000,
  });
  const { dir } = onlyRun(p.root);
  const log = readFileSync(path.join(dir, 'candidates/b/attempts/01/agent.log'), 'utf8');
  const line = /PROBE (\{.*\})/.exec(log)?.[1];
  expect(line, run.stdout + run.stderr).toBeDefined();
  expect(processesInside(p.root)).toEqual([]);
  return { run, probe: JSON.parse(line!) as Record<string, unknown> };
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))('best of N: one candidate cannot see another', { timeout: 300_000 }, () => {
  it("without a sandbox, candidate b reads a's kept worktree and sees its admin folder (documented, docs/security.md)", () => {
    const { probe } = rivals('none');
    expect(probe).toMatchObject({ rivalDirGuessed: true, readRivalWorktree: true });
    expect(probe.otherAdmins).toBeGreaterThan(0);
  });

  it("with bwrap, candidate b sees neither a's worktree nor any other worktree's git admin folder, and still does its work", () => {
    const { run, probe } = rivals('bwrap');
    expect(probe).toEqual({ rivalDirGuessed: true, readRivalWorktree: false, otherAdmins: 0 });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});
