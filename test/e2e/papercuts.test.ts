// What a newcomer met on a first try, each fixed: pipes, bare commands, restore twice, check's
// defaults, Playwright without a config, the mapping hint, and the merge summary.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runMain } from '../helpers/cli.js';
import { linkNodeModules } from '../fixtures/playwright/verify-context.js';
import { makeProject } from '../helpers/project.js';
import { gitSync, kaneTest, taskJson, tempDir, tempRepo } from '../helpers/temp.js';

describe.concurrent('the command line', { timeout: 180_000 }, () => {
  it('`elenchos runs | head -1` ends quietly when the reader goes away (no EPIPE stack)', async () => {
    const dir = tempRepo({ 'a.txt': 'x' });
    // Enough output (unreadable run folders) to outlast the pipe's buffer after head has gone.
    for (let i = 0; i < 1500; i++)
      mkdirSync(
        path.join(dir, '.elenchos/runs', `20260101-000000-${String(i % 1000).padStart(3, '0')}-${i.toString(16).padStart(6, '0')}`),
        { recursive: true },
      );
    const result = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${BIN}" runs 2>"${dir}/err.txt" | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"; cat "${dir}/err.txt"`],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(result.stdout).toBe('0\n');
  });

  it('bare `elenchos` and `elenchos evidence` print the help as a usage error (exit 3); --help is exit 0', async () => {
    const dir = tempDir();
    for (const args of [[], ['evidence']]) {
      const result = await runMain(args, dir);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toMatch(/^Usage: elenchos/);
    }
    expect((await runMain(['evidence', '--help'], dir)).code).toBe(0);
    expect((await runMain(['help'], dir)).code).toBe(0);
  });

  it('`restore` twice names the existing worktree instead of a raw git error', async () => {
    const project = makeProject({ agent: 'implement' });
    expect((await runMain(['run', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const first = await runMain(['restore', 'latest'], project.root);
    expect(first.code, first.stderr).toBe(0);
    const second = await runMain(['restore', 'latest'], project.root);
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(
      /^elenchos: \S+\/\.elenchos\/restored\/\S+-01 already exists \(restored before\?\): use it as it is, remove it with git worktree remove --force \S+, or restore elsewhere with --to <dir>\n$/,
    );
    gitSync(project.root, 'worktree', 'remove', '--force', first.stdout.match(/ at (\S+) /)![1]!);
  });

  it('merge titles its own summary, and a summary alone starts at once (no blank line)', async () => {
    const project = makeProject({ files: { 'page.html': '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n' } });
    const verified = await runMain(['verify', '--json'], project.root, project.env);
    expect(verified.code, verified.stderr).toBe(0);
    const shard = path.join(project.root, '.elenchos', 'shard-1.json');
    writeFileSync(shard, verified.stdout);
    const merged = await runMain(['merge', shard], project.root);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(/^elenchos merge: 1 task\(s\)\n/);
  });
});

describe.concurrent('elenchos check', { timeout: 180_000 }, () => {
  it("with no arguments checks the config's tasks", async () => {
    const dir = tempRepo({
      'tasks/add-task.json': taskJson(),
      'tests/add-task_test.md': kaneTest(2),
      'elenchos.config.json': '{ "tasks": ["tasks/*.json"] }\n',
    });
    const result = await runMain(['check'], dir);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('✓ tasks/add-task.json  add-task: Add a task');
    const empty = await runMain(['check'], tempRepo({ 'a.txt': 'x' }));
    expect(empty.code).toBe(3);
    expect(empty.stdout).toContain(
      'no task contract matches the default tasks (no elenchos.config.json) (tasks/**/*.json); write one there, set "tasks", or name the files: elenchos check <task.json...>',
    );
  });

  it('with no config a .spec.ts test is taken as Playwright, and an untagged criterion is told to use a tag', async () => {
    const spec =
      "import { test } from '@playwright/test';\n\ntest('the form', { tag: '@AC-001' }, async ({ page }) => {\n  await page.goto('/');\n});\n";
    const dir = tempRepo({
      'tasks/add-task.json': taskJson({ verification: { testFile: 'tests/add-task.spec.ts' } }),
      'tests/add-task.spec.ts': spec,
    });
    // check asks the project's own Playwright which tests the spec has.
    linkNodeModules(dir);
    const result = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('  verifier playwright, test tests/add-task.spec.ts, 1 step(s)');
    expect(result.stdout).toContain(
      "criterion AC-002 is verified by no step; tag the test that checks it in tests/add-task.spec.ts: test('…', { tag: '@AC-002' }, async ({ page }) => { … })",
    );
    expect(result.stdout).not.toContain('_test.md');
  });
});
