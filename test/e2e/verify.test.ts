// `elenchos verify` end to end: every task against the committed code, no agent, in parallel, with CI outputs.
// @module-tag slow
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { checkoutFingerprint, FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject, TITLE_TASK } from '../helpers/project.js';
import { gitSync, taskJson, tempDir } from '../helpers/temp.js';

/** Three tasks against one app whose committed page has the form but not the list item. */
function project(watch: (root: string) => string) {
  const p = makeProject({
    config: { verifier: KANE_CHECK_PAGE },
    files: {
      ...FORM_PAGE,
      ...FORM_TASK,
      'tasks/milk.json': taskJson({ id: 'milk', verification: { testFile: 'tests/add-task_test.md' } }),
      ...TITLE_TASK,
    },
  });
  gitSync(p.root, 'rm', '-q', 'tasks/add-task.json');
  gitSync(p.root, 'commit', '-qm', 'only the three tasks');
  watch(p.root);
  return p;
}

describe.concurrent('elenchos verify', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('verifies every task of the config in parallel: JSON, JUnit, exit 1 on a product failure, checkout untouched', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    const before = checkoutFingerprint(p.root);
    const junit = path.join(tempDir(), 'junit.xml');
    const result = await runMain(['verify', '--workers', '3', '--json', '--junit', junit], p.root, p.env);
    expect(result.code, result.stderr).toBe(1);
    const { runs } = JSON.parse(result.stdout);
    expect(runs.map((r: any) => [r.task.id, r.mode, r.state, r.reason])).toEqual([
      ['form', 'verify', 'VERIFIED', null],
      ['milk', 'verify', 'FAILED', 'PRODUCT_FAILURE'],
      ['title', 'verify', 'VERIFIED', null],
    ]);
    expect(runs[1].attempts.map((a: any) => [a.kind, a.status])).toEqual([['verify', 'FAIL']]);
    expect(runs[1].tools.agent).toBeNull();
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="milk" tests="3" failures="2" errors="0"');
    expect(xml).toContain(
      '<testcase classname="milk" name="verdict" time="0"><failure message="FAILED PRODUCT_FAILURE: product failure at step 2',
    );
    expect(xml).toContain('<testcase classname="milk" name="AC-001: criterion 1" time="0"></testcase>');
    expect(xml).toMatch(
      /<testcase classname="milk" name="AC-002: criterion 2" time="0"><failure message="FAIL: product failure at step 2">/,
    );
    expect(checkoutFingerprint(p.root)).toEqual(before);
    expect(gitSync(p.root, 'status', '--porcelain')).toBe('');
  });

  it('--in-place verifies the clean checkout itself, task after task, without a worktree', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    const result = await runMain(['verify', '--in-place', '--json', 'tasks/form.json', 'tasks/title.json'], p.root, p.env);
    expect(result.code, result.stderr).toBe(0);
    const { runs } = JSON.parse(result.stdout);
    expect(runs.map((r: any) => [r.task.id, r.state, r.workspace.path])).toEqual([
      ['form', 'VERIFIED', '.'],
      ['title', 'VERIFIED', '.'],
    ]);
    expect(await runMain(['verify', '--in-place', '--workers', '2'], p.root, p.env)).toMatchObject({
      code: 3,
      stderr: 'elenchos: --in-place verifies in the checkout itself, one task at a time; drop --workers or --in-place\n',
    });
  });

  it('--workers refuses a fixed app port (parallel apps would answer for each other)', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = makeProject({ config: { app: { command: 'node app.js --port {port}', port: 4999 } } });
    watch(p.root);
    expect(await runMain(['verify', '--workers', '2'], p.root, p.env)).toMatchObject({
      code: 3,
      stderr:
        'elenchos: --workers needs a free port per task: set app.port to 0 and use {port} in app.url (and in app.command, or read PORT)\n',
    });
  });

  it('--shard i/n splits the task list deterministically, every task in exactly one shard', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    const dir = tempDir();
    const ids = async (shard: string, i: number) => {
      const { stdout } = await runMain(['verify', '--shard', shard, '--json'], p.root, p.env);
      writeFileSync(path.join(dir, `shard-${i}.json`), stdout);
      return JSON.parse(stdout).runs.map((r: any) => r.task.id);
    };
    const one = await ids('1/2', 1);
    const two = await ids('2/2', 2);
    expect([...one, ...two].sort()).toEqual(['form', 'milk', 'title']);
    expect(one).toEqual(['form', 'title']);
    // The shards' JSON outputs merge back into one result, JUnit and exit code.
    const merged = await runMain(
      ['merge', path.join(dir, 'shard-1.json'), path.join(dir, 'shard-2.json'), '--junit', path.join(dir, 'all.xml')],
      p.root,
    );
    expect(merged.code).toBe(1);
    expect(merged.stdout).toMatch(/VERIFIED +form[\s\S]*FAILED PRODUCT_FAILURE +milk[\s\S]*VERIFIED +title[\s\S]*2\/3 VERIFIED/);
    expect(readFileSync(path.join(dir, 'all.xml'), 'utf8').match(/<testsuite /g)).toHaveLength(3);
    writeFileSync(path.join(dir, 'junk.json'), '{"nope": 1}');
    expect(await runMain(['merge', path.join(dir, 'junk.json')], p.root)).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('not the output of elenchos verify --json'),
    });
    expect(await runMain(['verify', '--shard', '3/2'], p.root, p.env)).toMatchObject({
      code: 3,
      stderr: 'elenchos: --shard "3/2" must look like i/n with 1 ≤ i ≤ n (for example 2/4)\n',
    });
  });

  it('on GitHub Actions: an error annotation per task not VERIFIED and a job-summary table', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    const summary = path.join(tempDir(), 'summary.md');
    const result = await runMain(['verify', 'tasks/milk.json', 'tasks/form.json'], p.root, {
      ...p.env,
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^::error file=tasks\/milk\.json,title=Elenchos%3A milk FAILED \(PRODUCT_FAILURE\)::.*%0AFAIL AC-002: criterion 2$/m,
    );
    expect(result.stdout).not.toContain('file=tasks/form.json');
    const table = readFileSync(summary, 'utf8');
    expect(table).toContain('| task | state | criteria | run |');
    expect(table).toMatch(/\| milk \| FAILED \(PRODUCT_FAILURE\) \| ✅ AC-001 ❌ AC-002 \| \d{8}-/);
  });

  it('verifies HEAD in a worktree despite uncommitted changes, refuses them with --in-place, and refuses bad contracts with exit 3', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    writeFileSync(path.join(p.root, 'page.html'), '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n');
    const worktree = await runMain(['verify', 'tasks/milk.json', '--json'], p.root, p.env);
    expect(JSON.parse(worktree.stdout).runs[0].state).toBe('FAILED'); // HEAD has no milk: the uncommitted fix does not count
    const inPlace = await runMain(['verify', 'tasks/milk.json', '--in-place'], p.root, p.env);
    expect(inPlace.code).toBe(3);
    expect(inPlace.stderr).toBe(
      'elenchos: the working tree is not clean (page.html); commit or stash these changes first: verify --in-place checks the committed code\n',
    );
    writeFileSync(path.join(p.root, 'page.html'), '<h1>Tasks</h1><form>New task</form><ul></ul>\n');
    writeFileSync(path.join(p.root, 'tasks/broken.json'), '{ "id": ');
    gitSync(p.root, 'add', '-A');
    gitSync(p.root, 'commit', '-qm', 'a broken task');
    const refused = await runMain(['verify', 'tasks/broken.json', 'tasks/form.json'], p.root, p.env);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('REFUSED   tasks/broken.json: tasks/broken.json:1:9: invalid JSON: Unexpected end of JSON input');
    expect(refused.stdout).toMatch(/VERIFIED +form/);
  });
});
