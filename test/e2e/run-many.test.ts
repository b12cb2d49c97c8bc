// `elenchos run <task…> --parallel K`: several tasks in one command, each a full run; one --json document,
// one exit code (the worst), one group id that `runs` and `show` know; Ctrl-C stops every run.
// @module-tag slow
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { allRuns, startCli } from '../helpers/live-cli.js';
import { commandAgent, FORM_TASK, makeProject, processesInside, TITLE_TASK } from '../helpers/project.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

const runLong = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runMain(args, cwd, env);

function project(agent = commandAgent('implement'), config: Record<string, unknown> = {}) {
  const made = makeProject({ config: { agent, tasks: ['tasks/*.json'], ...config }, files: { ...FORM_TASK, ...TITLE_TASK } });
  roots.push(made.root);
  return made;
}

describe('elenchos run <task…>', { timeout: 300_000 }, () => {
  it('two tasks with --parallel 2: both VERIFIED, one --json document, exit 0, one group that runs and show know', async () => {
    const p = project();
    const result = await runLong(['run', 'tasks/form.json', 'tasks/title.json', '--parallel', '2', '--json'], p.root, p.env);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.state).toBe('VERIFIED');
    expect(doc.runs.map((r: any) => [r.task.file, r.state])).toEqual([
      ['tasks/form.json', 'VERIFIED'],
      ['tasks/title.json', 'VERIFIED'],
    ]);
    expect(doc.group).toMatchObject({ kind: 'tasks', tasks: 2 });
    // Each is a whole run of its own (own worktree, own evidence), and each record names the group.
    const stored = allRuns(p.root);
    expect(stored).toHaveLength(2);
    for (const { record } of stored) expect(record.group).toEqual(doc.group);
    expect(new Set(stored.map((s) => s.record.workspace.path)).size).toBe(2);
    const listed = (await runMain(['runs'], p.root, p.env)).stdout;
    expect(listed.match(new RegExp(`group ${doc.group.id}`, 'g'))).toHaveLength(2);
    const shown = (await runMain(['show', doc.runs[0].runId], p.root, p.env)).stdout;
    expect(shown).toContain(`ran together with ${doc.runs[1].runId} (group ${doc.group.id}: 2 task(s))`);
    expect(leakedWorktrees(p.root)).toEqual([]);
  });

  it('--all, a glob, and the worst outcome decides the exit code: one task FAILED, one VERIFIED → exit 1, state FAILED', async () => {
    // The agent leaves the list empty: `title` passes, `add-task` (AC-002) fails after its repair.
    const p = project(commandAgent('never-fix'), { maxRepairAttempts: 0 });
    const human = await runLong(['run', '--all', '--parallel', '2'], p.root, p.env);
    expect(human.code, human.stdout + human.stderr).toBe(1);
    // One line per task as it ends, then one table.
    expect(human.stdout).toMatch(/elenchos: tasks\/add-task\.json: FAILED \(PRODUCT_FAILURE\) — run \S+/);
    expect(human.stdout).toMatch(/elenchos: tasks\/title\.json: VERIFIED — run \S+/);
    expect(human.stdout).toMatch(/FAILED — exit 1: 3 task\(s\), group \S+/);
    const glob = await runLong(['run', 'tasks/t*.json', '--json'], p.root, p.env);
    expect(glob.code, glob.stderr).toBe(0);
    expect(JSON.parse(glob.stdout).runs.map((r: any) => r.task.file)).toEqual(['tasks/title.json']);
  });

  it('one task keeps the single-run --json record; bad input in any task refuses the whole command before any run (exit 3)', async () => {
    const p = project();
    const one = await runLong(['run', 'tasks/form.json', '--json'], p.root, p.env);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).task.file).toBe('tasks/form.json');
    const before = allRuns(p.root).length;
    const bad = await runMain(['run', 'tasks/form.json', 'tasks/missing.json'], p.root, p.env);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('missing.json');
    expect(allRuns(p.root)).toHaveLength(before);
    const apply = await runMain(['run', 'tasks/form.json', 'tasks/title.json', '--apply'], p.root, p.env);
    expect(apply.code).toBe(3);
    expect(apply.stderr).toContain('apply each VERIFIED one with elenchos apply <run-id>');
  });

  it('Ctrl-C while two tasks run: both runs recorded INTERRUPTED, exit 130, nothing left running', async () => {
    const p = project(commandAgent('hang'));
    const live = startCli(['run', 'tasks/form.json', 'tasks/title.json', '--parallel', '2', '--json'], p.root, p.env);
    // Both agents are at work: each wrote what it saw beside its prompt.
    const runs = path.join(p.root, '.elenchos/runs');
    const seen = () =>
      existsSync(runs) ? readdirSync(runs).filter((id) => existsSync(path.join(runs, id, 'attempts/01/prompt.md.seen.json'))) : [];
    await waitUntil(() => seen().length === 2);
    live.child.kill('SIGINT');
    expect(await live.exited).toBe(130);
    const doc = JSON.parse(live.output().stdout);
    expect(doc.runs.map((r: any) => [r.state, r.reason])).toEqual([
      ['ERROR', 'INTERRUPTED'],
      ['ERROR', 'INTERRUPTED'],
    ]);
    for (const { record } of allRuns(p.root)) expect(record.reason).toBe('INTERRUPTED');
    expect(readFileSync(path.join(runs, doc.runs[0].runId, 'run.json'), 'utf8')).toContain('INTERRUPTED');
    expect(leakedWorktrees(p.root)).toEqual([]);
  });
});

async function waitUntil(condition: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
