// `elenchos init --ci github`: the workflow it writes is the one docs/ci.md shows, parses, and its
// commands, run here shard by shard with the artifacts passed by hand, give one merged result.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ATTEST_MARKER } from '../../src/core/init/github-workflow.js';
import { BIN, runCli } from '../helpers/cli.js';
import { FAKE_KANE, makeProject, processesInside } from '../helpers/project.js';
import { gitSync, taskJson, tempDir, tempRepo } from '../helpers/temp.js';

const DOCS = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));
const WORKFLOW = '.github/workflows/elenchos.yml';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  id?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

function writtenWorkflow(verifier: 'kane' | 'playwright'): string {
  const root = tempRepo({ 'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" } }\n', 'package-lock.json': '{}\n' });
  const result = runCli(['init', '--yes', '--ci', 'github', '--verifier', verifier], root);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/wrote +\.github\/workflows\/elenchos\.yml +the CI workflow/);
  return readFileSync(path.join(root, WORKFLOW), 'utf8');
}

/** Every `run:` command of a job, in order. */
const runs = (workflow: any, job: string): string[] => (workflow.jobs[job].steps as Step[]).filter((s) => s.run).map((s) => s.run!.trim());

describe('elenchos init --ci github', () => {
  it('writes the workflow docs/ci.md shows, and it parses into a sharded verify and a merge', () => {
    const text = writtenWorkflow('kane');
    const blocks = [...readFileSync(DOCS, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.filter((b) => b.startsWith('# Written by `elenchos init --ci github`'))).toEqual([text]);
    const workflow = parse(text);
    const verify = workflow.jobs.verify;
    expect(verify.strategy).toEqual({ 'fail-fast': false, matrix: { shard: [1, 2, 3] } });
    expect(runs(workflow, 'verify')).toEqual([
      'npm ci',
      'npm install -g @testmuai/kane-cli && kane-cli --version',
      'npx elenchos verify --shard ${{ matrix.shard }}/${{ strategy.job-total }} --json > elenchos-shard-${{ matrix.shard }}.json',
    ]);
    const steps = verify.steps as Step[];
    expect(steps.find((s) => s.id === 'chromium')).toMatchObject({
      uses: 'browser-actions/setup-chrome@v2',
      with: { 'install-dependencies': true },
    });
    expect(steps.find((s) => s.run?.includes('elenchos verify'))?.env).toEqual({
      LT_USERNAME: '${{ secrets.LT_USERNAME }}',
      LT_ACCESS_KEY: '${{ secrets.LT_ACCESS_KEY }}',
      KANE_CLI_CHROME_PATH: '${{ steps.chromium.outputs.chrome-path }}',
    });
    const upload = steps.find((s) => s.uses === 'actions/upload-artifact@v4')!;
    // A shard that wrote no output fails its own job, not just warns.
    expect(upload).toMatchObject({
      if: 'always()',
      with: { name: 'elenchos-shard-${{ matrix.shard }}', 'include-hidden-files': true, 'if-no-files-found': 'error' },
    });
    expect(String(upload.with!.path).trim().split('\n')).toEqual(['elenchos-shard-${{ matrix.shard }}.json', '.elenchos/runs/']);
    // The required check: never skipped (a skipped job counts as passed), and failed by a failed shard even
    // when the merged verdict is VERIFIED: the guard step runs only after merge succeeded (no status function).
    expect(workflow.jobs.merge).toMatchObject({ name: 'elenchos result', needs: 'verify', if: 'always()' });
    const mergeSteps = workflow.jobs.merge.steps as Step[];
    expect(runs(workflow, 'merge').slice(0, 2)).toEqual([
      'npm ci',
      'npx elenchos merge shards/*/elenchos-shard-*.json --junit elenchos-junit.xml',
    ]);
    const guard = mergeSteps.findIndex((s) => s.if === "needs.verify.result != 'success'");
    expect(guard).toBeGreaterThan(mergeSteps.findIndex((s) => s.run?.includes('elenchos merge')));
    expect(mergeSteps[guard]!.run).toMatch(/exit 1\s*$/);
    expect(mergeSteps.filter((s) => s.if !== undefined).map((s) => s.if)).toEqual([
      "steps.attest.outputs.sign == 'yes'",
      "steps.attest.outputs.sign == 'yes'",
      "needs.verify.result != 'success'",
      'always()',
    ]);
    expect(text).toContain(`      ${ATTEST_MARKER}\n`);
    // The key reaches the signing step alone, and a repository without the secret still gets its verdict.
    expect(text).toMatch(
      /- name: Sign the merged verdict\n {8}if: steps\.attest\.outputs\.sign == 'yes'\n {8}env:\n {10}ELENCHOS_ATTEST_KEY: \$\{\{ secrets\.ELENCHOS_ATTEST_KEY \}\}\n {8}run: npx elenchos merge [^\n]*--attest elenchos\.att\.json --attest-key env:ELENCHOS_ATTEST_KEY/,
    );
    expect(text.match(/secrets\.ELENCHOS_ATTEST_KEY/g)).toHaveLength(2);
    expect((workflow.jobs.merge.steps as Step[]).find((s) => s.uses === 'actions/download-artifact@v4')?.with).toEqual({
      pattern: 'elenchos-shard-*',
      path: 'shards',
    });
  });

  it('a pnpm project installs through corepack, in both jobs', () => {
    const root = tempRepo({
      'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" } }\n',
      'pnpm-lock.yaml': 'lockfileVersion: 9\n',
    });
    expect(runCli(['init', '--yes', '--ci', 'github'], root).code).toBe(0);
    const workflow = parse(readFileSync(path.join(root, WORKFLOW), 'utf8'));
    expect(runs(workflow, 'verify')[0]).toBe('corepack enable && pnpm install --frozen-lockfile');
    expect(runs(workflow, 'merge')[0]).toBe('corepack enable && pnpm install --frozen-lockfile');
  });

  it('the Playwright variant swaps the Kane steps for the one docs/ci.md shows', () => {
    const workflow = parse(writtenWorkflow('playwright'));
    expect(runs(workflow, 'verify')).toEqual([
      'npm ci',
      'npx playwright install --with-deps chromium',
      'npx elenchos verify --shard ${{ matrix.shard }}/${{ strategy.job-total }} --json > elenchos-shard-${{ matrix.shard }}.json',
    ]);
    expect((workflow.jobs.verify.steps as Step[]).some((s) => s.env)).toBe(false);
    expect(readFileSync(DOCS, 'utf8')).toContain(
      '      - name: Install Chromium for Playwright\n        run: npx playwright install --with-deps chromium\n',
    );
  });

  it('its verify and merge commands, run shard by shard here, give one summary, one JUnit file and one exit code', () => {
    const p = makeProject({
      config: { verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page' } } },
      files: {
        'page.html': '<h1>Tasks</h1><form>New task</form><ul></ul>\n',
        'tasks/form.json': taskJson({
          id: 'form',
          acceptanceCriteria: [{ id: 'AC-001', description: 'the form' }],
          verification: { testFile: 'tests/form_test.md' },
        }),
        'tests/form_test.md': '## Step 1 @verifies AC-001\nVerify "New task".\n',
        'tasks/title.json': taskJson({
          id: 'title',
          acceptanceCriteria: [{ id: 'AC-001', description: 'the title' }],
          verification: { testFile: 'tests/title_test.md' },
        }),
        'tests/title_test.md': '## Step 1 @verifies AC-001\nVerify "Tasks".\n',
        '.gitignore': 'node_modules/\n',
      },
    });
    roots.push(p.root);
    expect(runCli(['init', '--yes', '--ci', 'github'], p.root, p.env).code).toBe(0);
    gitSync(p.root, 'add', '-A');
    gitSync(p.root, 'commit', '-qm', 'elenchos workflow');
    // `npx elenchos` finds the project's own install, as after `npm ci` on the runner.
    mkdirSync(path.join(p.root, 'node_modules/.bin'), { recursive: true });
    symlinkSync(BIN, path.join(p.root, 'node_modules/.bin/elenchos'));
    const workflow = parse(readFileSync(path.join(p.root, WORKFLOW), 'utf8'));
    const shards: number[] = workflow.jobs.verify.strategy.matrix.shard;
    const verifySteps = workflow.jobs.verify.steps as Step[];
    const verifyRun = verifySteps.find((s) => s.run?.includes('elenchos verify'))!.run!;
    const upload = verifySteps.find((s) => s.uses === 'actions/upload-artifact@v4')!.with!;
    const download = (workflow.jobs.merge.steps as Step[]).find((s) => s.uses === 'actions/download-artifact@v4')!.with!;
    const mergeRun = (workflow.jobs.merge.steps as Step[]).find((s) => s.run?.includes('elenchos merge'))!.run!;
    // Each job has a job summary of its own.
    const summaries = tempDir();
    const env = { ...process.env, ...p.env, npm_config_offline: 'true', GITHUB_ACTIONS: 'true' };
    const shell = (command: string, job: string) =>
      spawnSync('bash', ['-eo', 'pipefail', '-c', command], {
        cwd: p.root,
        env: { ...env, GITHUB_STEP_SUMMARY: path.join(summaries, `${job}.md`) },
        encoding: 'utf8',
        timeout: 120_000,
      });
    const expand = (text: string, shard: number) =>
      text.replaceAll('${{ matrix.shard }}', String(shard)).replaceAll('${{ strategy.job-total }}', String(shards.length));
    const codes: number[] = [];
    for (const shard of shards) {
      const result = shell(expand(verifyRun, shard), `shard-${shard}`);
      codes.push(result.status!);
      // The artifact: what the upload step names, under <download path>/<artifact name>/.
      const artifact = path.join(p.root, String(download.path), expand(String(upload.name), shard));
      for (const item of expand(String(upload.path), shard).trim().split('\n')) {
        const from = path.join(p.root, item);
        if (!existsSync(from)) continue;
        mkdirSync(path.dirname(path.join(artifact, item)), { recursive: true });
        if (item.endsWith('/')) cpSync(from, path.join(artifact, item), { recursive: true });
        else copyFileSync(from, path.join(artifact, item));
      }
    }
    // add-task, example (init's), form and title over three shards; only add-task fails (its page lacks the milk).
    expect(codes.sort()).toEqual([0, 0, 1]);
    const merged = shell(mergeRun, 'merge');
    expect(merged.status, merged.stderr).toBe(1);
    expect(merged.stdout).toMatch(
      /FAILED PRODUCT_FAILURE +add-task[\s\S]*VERIFIED +example[\s\S]*VERIFIED +form[\s\S]*VERIFIED +title[\s\S]*3\/4 VERIFIED/,
    );
    expect(merged.stdout.match(/^::error /gm)).toHaveLength(1);
    expect(readFileSync(path.join(p.root, 'elenchos-junit.xml'), 'utf8').match(/<testsuite /g)).toHaveLength(4);
    expect(readFileSync(path.join(summaries, 'merge.md'), 'utf8').match(/^\| (add-task|example|form|title) \|/gm)).toHaveLength(4);
    // A shard whose job died before writing its output (its artifact absent): the required check fails, naming it.
    rmSync(path.join(p.root, String(download.path), expand(String(upload.name), 2)), { recursive: true });
    const partial = shell(mergeRun, 'merge-partial');
    expect(partial.status).toBe(4);
    expect(partial.stderr).toBe(
      'elenchos: merge refused: shard 2/3 missing: its output was not given (did that job fail before writing it?)\n',
    );
  });
});
