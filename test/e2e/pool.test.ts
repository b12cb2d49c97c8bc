// The warm worktree pool through the CLI: a second run reuses the first one's worktree and sees
// nothing of what its agent left; --fresh and gc --pool.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { allRuns } from '../helpers/live-cli.js';
import { FIXTURES, makeProject, processesInside } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const POOL_AGENT = path.join(FIXTURES, 'agents/pool-agent.js');

function poolProject() {
  const modeFile = path.join(tempDir('elenchos-pool-mode-'), 'mode');
  const project = makeProject({
    config: { agent: { type: 'command', command: process.execPath, args: [POOL_AGENT, modeFile], timeoutSeconds: 30 } },
    files: { '.gitignore': '*.log\nbuild/\n', 'notes.md': 'committed notes\n' },
  });
  const run = (mode: 'plant' | 'inspect', ...flags: string[]) => {
    writeFileSync(modeFile, mode);
    const result = runCli(['run', 'tasks/add-task.json', ...flags], project.root, project.env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return result;
  };
  return { project, run };
}

/** What the inspecting agent of the latest run found. */
function inspected(root: string): { status: string; planted: string[]; notes: string; reflog: number } {
  const latest = allRuns(root)
    .sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt))
    .at(-1)!;
  return JSON.parse(readFileSync(path.join(latest.dir, 'attempts/01/prompt.md.inspect.json'), 'utf8'));
}

describe('warm worktree pool', () => {
  it("a second run reuses the first run's worktree and finds nothing its agent planted", async () => {
    const { project, run } = poolProject();
    const first = run('plant');
    expect(first.stdout).toContain('git worktree add --detach');
    expect(first.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    // The agent's background process was stopped with the run; nothing else holds the pooled worktree.
    expect(processesInside(path.join(project.root, '.elenchos'))).toEqual([]);
    expect(leakedWorktrees(project.root)).toEqual([]);

    const second = run('inspect');
    expect(second.stdout).toMatch(/warm worktree \.elenchos\/pool\/0 reset to [0-9a-f]{12}/);
    expect(inspected(project.root)).toEqual({ status: '', planted: [], notes: 'committed notes\n', reflog: 1 });
    expect(leakedWorktrees(project.root)).toEqual([]);
  }, 120_000);

  it('--fresh and worktreePool.enabled false bypass the pool; gc trims it, gc --pool empties it', async () => {
    const { project, run } = poolProject();
    const slot = path.join(project.root, '.elenchos/pool/0');
    run('plant');
    const fresh = run('inspect', '--fresh');
    expect(fresh.stdout).toContain('git worktree add --detach');
    expect(fresh.stdout).toContain('removing worktree');
    expect(inspected(project.root).planted).toEqual([]);
    // Within worktreePool.size an idle worktree is no garbage; --pool removes it too.
    expect(runCli(['gc'], project.root).stdout).toBe('nothing to clean\n');
    expect(runCli(['gc', '--pool', '--dry-run'], project.root).stdout).toBe(`would remove idle warm worktree ${slot}\n`);
    expect(runCli(['gc', '--help'], project.root).stdout).toContain('--pool');

    const config = JSON.parse(readFileSync(path.join(project.root, 'elenchos.config.json'), 'utf8'));
    writeFileSync(path.join(project.root, 'elenchos.config.json'), JSON.stringify({ ...config, worktreePool: { enabled: false } }));
    gitSync(project.root, 'commit', '-qam', 'pool off');
    const off = run('inspect');
    expect(off.stdout).toContain('git worktree add --detach');
    expect(off.stdout).not.toContain('warm worktree');
    expect(inspected(project.root).planted).toEqual([]);
    // With the pool off, every idle worktree is garbage.
    expect(runCli(['gc'], project.root).stdout).toBe(`removed idle warm worktree ${slot}\n`);
    expect(runCli(['gc', '--pool'], project.root).stdout).toBe('nothing to clean\n');
    expect(leakedWorktrees(project.root)).toEqual([]);
    expect(gitSync(project.root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 120_000);
});
