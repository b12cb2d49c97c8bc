// @module-tag slow
import { describe, expect, it } from 'vitest';
import { linkNodeModules } from '../fixtures/playwright/verify-context.js';
import { runMain, spawnCli } from '../helpers/cli.js';
import { kaneTest, taskJson, tempRepo } from '../helpers/temp.js';

// The built bin/elenchos.js in a child process: what a user's shell sees.
describe.concurrent('elenchos (built CLI)', { timeout: 180_000 }, () => {
  it('prints --version and --help with exit 0', async () => {
    const dir = tempRepo({ 'a.txt': 'x' });
    expect(await spawnCli(['--version'], dir)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    const help = await spawnCli(['--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('check [options] [tasks...]');
  });

  it("exits 3 with commander's message for unknown commands and flags, never a stack", async () => {
    const dir = tempRepo({ 'a.txt': 'x' });
    const unknown = await spawnCli(['frobnicate'], dir);
    expect(unknown).toMatchObject({ code: 3, stdout: '' });
    expect(unknown.stderr).toBe("error: unknown command 'frobnicate'\n");
    const flag = await spawnCli(['check', '--colour', 'x.json'], dir);
    expect(flag.code).toBe(3);
    expect(flag.stderr).toBe("error: unknown option '--colour'\n");
    // `run` takes several tasks now (docs/scale.md): none at all is refused by Elenchos's own one line, still exit 3.
    expect(await spawnCli(['run'], dir)).toMatchObject({
      code: 3,
      stderr: 'elenchos: name a task contract (or several, or a glob), or --all for the config\'s "tasks"\n',
    });
  });
});

describe.concurrent('elenchos check', { timeout: 180_000 }, () => {
  const good = { 'tasks/add-task.json': taskJson(), 'tests/add-task_test.md': kaneTest(2) };

  it('prints a clear report and exits 0 when everything maps', async () => {
    const dir = tempRepo(good);
    const run = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        '✓ tasks/add-task.json  add-task: Add a task',
        '  verifier kane, test tests/add-task_test.md, 2 step(s)',
        '  AC-001  step 1        criterion 1',
        '  AC-002  step 2        criterion 2',
        'all 1 task(s) OK',
        '',
      ].join('\n'),
    );
  });

  it('reports unmapped criteria and unknown @verifies ids, exit 3', async () => {
    const dir = tempRepo({
      'tasks/add-task.json': taskJson({}, 3),
      'tests/add-task_test.md': `${kaneTest(2)}\n## Step 3 — extra @verifies AC-3, AC-9\nx\n`,
    });
    const run = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('  AC-003  NO STEP       criterion 3');
    expect(run.stdout).toContain(
      '  ✗ tasks/add-task.json: criterion AC-003 is verified by no step; add "@verifies AC-003" to the step that checks it in tests/add-task_test.md',
    );
    expect(run.stdout).toContain(
      '  ✗ tasks/add-task.json: tests/add-task_test.md: step 3 ("Step 3 — extra @verifies AC-3, AC-9") says @verifies AC-3, which is not a criterion of this task; did you mean AC-003?',
    );
    expect(run.stdout).toContain(
      'says @verifies AC-9, which is not a criterion of this task; add the criterion to the contract or fix the id',
    );
  });

  it('checks several tasks, reporting each bad input with exit 3', async () => {
    const dir = tempRepo({
      ...good,
      'tasks/broken.json': '{ "id": "x", }',
      'tasks/escape.json': taskJson({ verification: { testFile: '../../etc/passwd_test.md' } }),
      'tasks/wrong-name.json': taskJson({ verification: { testFile: 'tests/add-task.md' } }),
    });
    const run = await runMain(
      ['check', 'tasks/add-task.json', 'tasks/broken.json', 'tasks/escape.json', 'tasks/wrong-name.json', 'tasks/none.json'],
      dir,
    );
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('✓ tasks/add-task.json');
    expect(run.stdout).toContain('  tasks/broken.json:1:14: invalid JSON: Expected double-quoted property name');
    expect(run.stdout).toContain('  tasks/escape.json: verification.testFile: must not contain ".." (it must stay inside the repository)');
    expect(run.stdout).toContain(
      '  tasks/wrong-name.json: verification.testFile: "tests/add-task.md" must end in _test.md (Kane runs only _test.md files)',
    );
    expect(run.stdout).toContain('  tasks/none.json: cannot read (no such file); check the path');
    expect(run.stdout).toContain('4 input(s) with problems');
    expect(run.stderr).toBe('');
  });

  it('warns, without failing, about a Playwright test that names no criterion', async () => {
    const spec = "import { test } from '@playwright/test';\ntest('heading @AC-001', async () => {});\ntest('footer', async () => {});\n";
    const dir = tempRepo({
      'tasks/add-task.json': taskJson({
        acceptanceCriteria: [{ id: 'AC-001', description: 'criterion 1' }],
        verification: { testFile: 'tests/add-task.spec.ts' },
      }),
      'tests/add-task.spec.ts': spec,
      'elenchos.config.json': '{ "verifier": { "type": "playwright" } }\n',
      '.gitignore': 'node_modules\n',
    });
    linkNodeModules(dir); // check asks Playwright itself for the tests
    const run = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(
      '  ! warning: tasks/add-task.json: tests/add-task.spec.ts: test 2 ("footer") names no criterion: it never decides a criterion, and if it fails the attempt is INCONCLUSIVE, never PASS\n',
    );
    expect(run.stdout).toContain('all 1 task(s) OK');
  });

  it('refuses verifier.args that weaken the verify, in check, run, verify and verify --verifier-only (exit 3, one line)', async () => {
    // The attack: the spec is locked, so make Playwright skip it instead (rerun only what failed, never compare snapshots).
    const spec = "import { test } from '@playwright/test';\ntest('heading @AC-001', async () => {});\n";
    const project = (args: string[]) => {
      const dir = tempRepo({
        'tasks/add-task.json': taskJson({
          acceptanceCriteria: [{ id: 'AC-001', description: 'criterion 1' }],
          verification: { testFile: 'tests/add-task.spec.ts' },
        }),
        'tests/add-task.spec.ts': spec,
        'elenchos.config.json': `${JSON.stringify({ agent: { type: 'command', command: 'true' }, app: { command: 'node app.js --port {port}' }, verifier: { type: 'playwright', args } })}\n`,
        '.gitignore': 'node_modules\n.elenchos\n',
      });
      linkNodeModules(dir);
      return dir;
    };
    const dir = project(['--retries=0', '--last-failed']);
    const line =
      'elenchos.config.json: verifier.args "--last-failed" is refused: it runs only the tests that failed last time, so the rest are never verified; remove it (the verdict runs every test of the spec as written)';
    const check = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(check.code, check.stdout + check.stderr).toBe(3);
    expect(check.stdout).toContain(`  ✗ ${line}\n`);
    for (const args of [
      ['run', 'tasks/add-task.json'],
      ['verify', 'tasks/add-task.json'],
      ['verify', 'tasks/add-task.json', '--verifier-only', '--url', 'http://127.0.0.1:9/'],
    ]) {
      const refused = await runMain(args, dir);
      expect(refused.code, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`).toBe(3);
      expect(refused.stdout + refused.stderr).toContain(line); // verify of many tasks says it in its summary
    }
    const snapshots = await runMain(['check', 'tasks/add-task.json'], project(['-u']));
    expect(snapshots.code).toBe(3);
    expect(snapshots.stdout).toContain('verifier.args "-u" is refused: it writes the snapshot baselines');
    // --grep and --update-snapshots=none (the generated config's own setting) stay allowed.
    const allowed = await runMain(['check', 'tasks/add-task.json'], project(['--grep', 'heading', '--update-snapshots=none']));
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
  }, 240_000); // seven CLI processes, most of them asking Playwright for the listing

  it('validates the config too', async () => {
    const dir = tempRepo({ ...good, 'elenchos.config.json': '{"maxRepairAttempts": "two"}' });
    const run = await runMain(['check', 'tasks/add-task.json'], dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('✗ config elenchos.config.json');
    expect(run.stdout).toContain('  elenchos.config.json: maxRepairAttempts: Invalid input: expected number, received string');
  });

  it('checks named agents and their model: passed to claude, codex and the rest; refused for a command agent (exit 3, one line)', async () => {
    const config = (agents: Record<string, unknown>) => ({
      ...good,
      'elenchos.config.json': JSON.stringify({ agent: { type: 'claude', model: 'claude-opus-4-5' }, agents }),
    });
    const ok = await runMain(
      ['check', '--json', 'tasks/add-task.json'],
      tempRepo(config({ fast: { type: 'codex', model: 'gpt-5-codex' } })),
    );
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).config).toMatchObject({ ok: true, problems: [] });
    const refused = await runMain(
      ['check', 'tasks/add-task.json'],
      tempRepo(config({ fast: { type: 'codex', model: 'gpt-5-codex' }, mine: { command: 'node', model: 'opus' } })),
    );
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain(
      '  elenchos.config.json: agents.mine.model: the command agent takes no model: Elenchos cannot know its flag; put it in args (e.g. ["--model", "opus"]) or remove model',
    );
  });

  it('prints JSON with --json', async () => {
    const dir = tempRepo(good);
    const run = await runMain(['check', '--json', 'tasks/add-task.json'], dir);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      ok: true,
      tasks: [
        {
          id: 'add-task',
          verifier: 'kane',
          criteria: [
            { id: 'AC-001', steps: [1] },
            { id: 'AC-002', steps: [2] },
          ],
        },
      ],
    });
  });
});
