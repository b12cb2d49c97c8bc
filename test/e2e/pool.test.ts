// The warm worktree pool through the CLI: a second run reuses the first one's worktree and sees
// nothing of what its agent left; --fresh and gc --pool.
// @module-tag slow
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { allRuns, startCli } from '../helpers/live-cli.js';
import { FIXTURES, makeProject, processesInside } from '../helpers/project.js';
import { filesHolding } from '../helpers/secret-leak.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const POOL_AGENT = path.join(FIXTURES, 'agents/pool-agent.js');

// The key the agent is given (agent.passEnv) and writes to an untracked `.env.local`; `redact` names it.
const SECRET = 'sk-live-51Hq7PoolSecret9d3e1c5b0f';

function poolProject() {
  const modeFile = path.join(tempDir('elenchos-pool-mode-'), 'mode');
  const made = makeProject({
    config: {
      agent: {
        type: 'command',
        command: process.execPath,
        args: [POOL_AGENT, modeFile],
        timeoutSeconds: 30,
        passEnv: ['STRIPE_SECRET_KEY'],
      },
      redact: ['STRIPE_SECRET_KEY'],
    },
    files: { '.gitignore': '*.log\nbuild/\n', 'notes.md': 'committed notes\n' },
  });
  const project = { ...made, env: { ...made.env, STRIPE_SECRET_KEY: SECRET } };
  const setMode = (mode: string) => writeFileSync(modeFile, mode);
  const run = async (mode: string, ...flags: string[]) => {
    setMode(mode);
    const result = await runMain(['run', 'tasks/add-task.json', ...flags], project.root, project.env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return result;
  };
  return { project, run, setMode };
}

/** What the inspecting agent of the latest run found. */
function inspected(root: string): { status: string; planted: string[]; notes: string; reflog: number } {
  const latest = allRuns(root)
    .sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt))
    .at(-1)!;
  return JSON.parse(readFileSync(path.join(latest.dir, 'attempts/01/prompt.md.inspect.json'), 'utf8'));
}

describe.concurrent('warm worktree pool', { timeout: 180_000 }, () => {
  it("a second run reuses the first run's worktree and finds nothing its agent planted", async () => {
    const { project, run } = poolProject();
    const first = await run('plant');
    expect(first.stdout).toContain('git worktree add --detach');
    expect(first.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    // The agent's background process was stopped with the run; nothing else holds the pooled worktree.
    expect(processesInside(path.join(project.root, '.elenchos'))).toEqual([]);
    expect(leakedWorktrees(project.root)).toEqual([]);

    const second = await run('inspect');
    expect(second.stdout).toMatch(/warm worktree \.elenchos\/pool\/0 reset to [0-9a-f]{12}/);
    expect(inspected(project.root)).toEqual({ status: '', planted: [], notes: 'committed notes\n', reflog: 1 });
    expect(leakedWorktrees(project.root)).toEqual([]);
  }, 120_000);

  it('--fresh and worktreePool.enabled false bypass the pool; gc trims it, gc --pool empties it', async () => {
    const { project, run } = poolProject();
    const slot = path.join(project.root, '.elenchos/pool/0');
    await run('plant');
    const fresh = await run('inspect', '--fresh');
    expect(fresh.stdout).toContain('git worktree add --detach');
    expect(fresh.stdout).toContain('removing worktree');
    expect(inspected(project.root).planted).toEqual([]);
    // Within worktreePool.size an idle worktree is no garbage; --pool removes it too.
    expect((await runMain(['gc'], project.root)).stdout).toBe('nothing to clean\n');
    expect((await runMain(['gc', '--pool', '--dry-run'], project.root)).stdout).toBe(`would remove idle warm worktree ${slot}\n`);
    expect((await runMain(['gc', '--help'], project.root)).stdout).toContain('--pool');

    const config = JSON.parse(readFileSync(path.join(project.root, 'elenchos.config.json'), 'utf8'));
    writeFileSync(path.join(project.root, 'elenchos.config.json'), JSON.stringify({ ...config, worktreePool: { enabled: false } }));
    gitSync(project.root, 'commit', '-qam', 'pool off');
    const off = await run('inspect');
    expect(off.stdout).toContain('git worktree add --detach');
    expect(off.stdout).not.toContain('warm worktree');
    expect(inspected(project.root).planted).toEqual([]);
    // With the pool off, every idle worktree is garbage.
    expect((await runMain(['gc'], project.root)).stdout).toBe(`removed idle warm worktree ${slot}\n`);
    expect((await runMain(['gc', '--pool'], project.root)).stdout).toBe('nothing to clean\n');
    expect(leakedWorktrees(project.root)).toEqual([]);
    expect(gitSync(project.root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 120_000);

  it("an agent's untracked secret is gone from the pool as soon as the run exits: VERIFIED, FAILED, ERROR, interrupted", async () => {
    const { project, run, setMode } = poolProject();
    const pool = path.join(project.root, '.elenchos/pool');
    const nothingLeft = (after: string) => {
      // Pooled (so the check is not passed by a removed worktree), yet holding nothing of the agent's.
      expect(existsSync(path.join(pool, '0')), after).toBe(true);
      expect(filesHolding(pool, SECRET), after).toEqual([]);
      // Nor anywhere else Elenchos keeps things: the evidence is redacted, the workspaces are gone.
      expect(filesHolding(path.join(project.root, '.elenchos'), SECRET), after).toEqual([]);
      expect(processesInside(path.join(project.root, '.elenchos')), after).toEqual([]);
    };
    const verified = await run('secret-implement');
    expect(verified.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    nothingLeft('VERIFIED');

    setMode('secret-nothing');
    const failed = await runMain(['run', 'tasks/add-task.json', '--max-repairs', '0'], project.root, project.env);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/warm worktree \.elenchos\/pool\/0 reset/);
    expect(failed.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    nothingLeft('FAILED');

    setMode('secret-crash');
    const crashed = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(crashed.code, crashed.stdout + crashed.stderr).toBe(2);
    expect(crashed.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    nothingLeft('ERROR');

    setMode('secret-hang');
    const cli = startCli(['run', 'tasks/add-task.json'], project.root, project.env);
    await cli.waitFor('thinking forever');
    expect(filesHolding(path.join(project.root, '.elenchos/workspaces'), SECRET)).toHaveLength(1); // it was there
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(cli.output().stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    nothingLeft('interrupted');

    // The slot reset on return is still taken (and proven clean again) by an honest next run.
    const honest = await run('inspect');
    expect(honest.stdout).toMatch(/warm worktree \.elenchos\/pool\/0 reset to [0-9a-f]{12}/);
    expect(inspected(project.root)).toEqual({ status: '', planted: [], notes: 'committed notes\n', reflog: 1 });
    const states = allRuns(project.root).map((r) => `${r.record.state} ${r.record.reason ?? ''}`.trim());
    expect(states.sort()).toEqual(['ERROR AGENT_FAILED', 'ERROR INTERRUPTED', 'FAILED PRODUCT_FAILURE', 'VERIFIED', 'VERIFIED']);
  }, 180_000);
  it('a secret the agent writes under node_modules/ (a setup.cache path the reset keeps) is gone from the pool after the run', async () => {
    // setup.command makes node_modules/x/index.js; the cache saves it while the agent works. The agent
    // then hides the key it was given in node_modules/, which the reset leaves to the setup cache.
    const install = `const fs = require('fs');\nfs.mkdirSync('node_modules/x', { recursive: true });\nfs.writeFileSync('node_modules/x/index.js', 'module.exports = 1;\\n');\n`;
    const agent = `printf '%s' '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>' > page.html; mkdir -p node_modules/.cache; echo "STRIPE_SECRET_KEY=$STRIPE_SECRET_KEY" > node_modules/.cache/env`;
    const made = makeProject({
      config: {
        agent: { type: 'command', command: '/bin/sh', args: ['-c', agent], timeoutSeconds: 30, passEnv: ['STRIPE_SECRET_KEY'] },
        redact: ['STRIPE_SECRET_KEY'],
        setup: { command: 'node install.js', cache: { key: ['package-lock.json'], paths: ['node_modules'] } },
      },
      files: { 'install.js': install, 'package-lock.json': '{}\n', '.gitignore': 'node_modules\n' },
    });
    const env = { ...made.env, STRIPE_SECRET_KEY: SECRET };
    const first = await runMain(['run', 'tasks/add-task.json'], made.root, env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/returned to \.elenchos\/pool\/0/);
    expect(first.stdout).toContain("dropped from the kept setup.cache paths: node_modules/.cache (not in the setup cache's entry)");
    const slot = path.join(made.root, '.elenchos/pool/0');
    expect(filesHolding(path.join(made.root, '.elenchos'), SECRET)).toEqual([]);
    // What setup made stays, and the next run keeps it as verified instead of restoring it.
    expect(readFileSync(path.join(slot, 'node_modules/x/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    const second = await runMain(['run', 'tasks/add-task.json'], made.root, env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/setup cache hit: kept node_modules verified/);
    expect(filesHolding(path.join(made.root, '.elenchos'), SECRET)).toEqual([]);
  }, 120_000);
});
