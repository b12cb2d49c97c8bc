// `elenchos author`: Kane through kane-cli's assurance commands (the fake speaks them), Playwright a
// skeleton; the result passes check, is left uncommitted, and never overwrites a file.
// @module-tag slow
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { linkNodeModules } from '../fixtures/playwright/verify-context.js';
import { FAKE_KANE } from '../helpers/project.js';
import { gitSync, taskJson, tempRepo } from '../helpers/temp.js';

const kaneRepo = (env: Record<string, string> = {}) =>
  tempRepo({
    'elenchos.config.json': JSON.stringify({ verifier: { type: 'kane', command: FAKE_KANE, env }, app: { command: 'node app.js {port}' } }),
    'tasks/add-task.json': taskJson({}, 3),
  });

describe.concurrent('elenchos author (Kane, through kane-cli)', { timeout: 180_000 }, () => {
  it("designs one test, names each step with the contract's criteria, passes check, and leaves it uncommitted", async () => {
    const root = kaneRepo();
    const result = await runMain(['author', 'tasks/add-task.json'], root);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('wrote tests/add-task_test.md (kane, designed by kane-cli as .testmuai/tests/t-1_test.md)');
    expect(result.stdout).toContain('criteria: ac-11 → AC-001, ac-12 → AC-002, ac-13 → AC-003');
    const text = readFileSync(path.join(root, 'tests/add-task_test.md'), 'utf8');
    expect(text).toContain('## Step 2 — assert @verifies AC-001');
    expect(text).toContain('## Step 4 — assert @verifies AC-003');
    expect(text).not.toMatch(/@verifies ac-1\d/);
    expect((await runMain(['check', 'tasks/add-task.json'], root)).code).toBe(0);
    expect(gitSync(root, 'status', '--porcelain')).toBe('?? tests/\n'); // the store and logs went to .elenchos/author/
    expect(existsSync(path.join(root, '.testmuai'))).toBe(false);
    const scratch = path.join(root, '.elenchos/author');
    expect(readdirSync(path.join(scratch, readdirSync(scratch)[0]!))).toContain('contract-prd.md');
  });

  it.each([
    ['none', /kane-cli design tests saved 0 tests \(none\); authoring needs exactly one, so nothing was written/],
    ['several', /saved 2 tests \(\.testmuai\/tests\/t-1_test\.md, \.testmuai\/tests\/t-2_test\.md\); authoring needs exactly one/],
    ['refuse', /kane-cli design tests ended refused: design: uc-1 is unreviewed/],
    ['no-verifies', /heads no step with AC-001, AC-002, AC-003; nothing was written/],
  ])('refuses (exit 3, nothing written) when design gives %s', async (mode, message) => {
    const root = kaneRepo({ FAKE_KANE_DESIGN: mode });
    const result = await runMain(['author', 'tasks/add-task.json'], root);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split('\n').filter(Boolean).length).toBe(1);
    expect(existsSync(path.join(root, 'tests/add-task_test.md'))).toBe(false);
  });

  it('never overwrites an existing test', async () => {
    const root = kaneRepo();
    await runMain(['author', 'tasks/add-task.json'], root);
    const again = await runMain(['author', 'tasks/add-task.json'], root);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('tests/add-task_test.md already exists');
  });

  it('a missing kane-cli is one line naming the fix', async () => {
    const root = tempRepo({
      'elenchos.config.json': JSON.stringify({ verifier: { type: 'kane', command: '/nonexistent/kane-cli' } }),
      'tasks/add-task.json': taskJson(),
    });
    const result = await runMain(['author', 'tasks/add-task.json'], root);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/\/nonexistent\/kane-cli could not start \(ENOENT\); install kane-cli or set verifier.command/);
  });
});

describe.concurrent('elenchos author (Playwright)', { timeout: 180_000 }, () => {
  it('writes a skeleton with one tagged test per criterion that passes check', async () => {
    const root = tempRepo({
      '.gitignore': 'node_modules\n',
      'elenchos.config.json': JSON.stringify({ verifier: { type: 'playwright' }, app: { command: 'node app.js {port}' } }),
      'tasks/add-task.json': taskJson({ verification: { testFile: 'tests/add-task.spec.ts' } }, 2),
    });
    linkNodeModules(root); // check asks Playwright itself for the tests
    const result = await runMain(['author', 'tasks/add-task.json'], root);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('wrote tests/add-task.spec.ts (playwright, a skeleton: every test fails until you write it)');
    const spec = readFileSync(path.join(root, 'tests/add-task.spec.ts'), 'utf8');
    expect(spec).toContain("test('criterion 1', { tag: '@AC-001' }, async ({ page }) => {");
    expect(spec).toContain("throw new Error('not written yet: AC-002 (add-task);");
    const check = await runMain(['check', 'tasks/add-task.json'], root);
    expect(check.stdout).toContain('AC-001  step 1');
    expect(check.code).toBe(0);
  });
});
