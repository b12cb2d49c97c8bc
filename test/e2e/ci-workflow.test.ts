// `elenchos init --ci github`: the workflow it writes is the one docs/ci.md shows, parses, and its
// commands, run here shard by shard with the artifacts passed by hand, give one merged result.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ATTEST_MARKER } from '../../src/core/init/github-workflow.js';
import { runMain } from '../helpers/cli.js';
import { processesInside } from '../helpers/project.js';
import { tempDir, tempRepo } from '../helpers/temp.js';
import { runs, WORKFLOW, type Step } from '../helpers/workflow.js';

const DOCS = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

/** What `npm install -D git+https://…/elenchos.git` records: the URL and the commit it resolved. */
const PINNED_GIT = 'git+https://git.example.com/you/elenchos.git#0123456789abcdef0123456789abcdef01234567';
const LOCKFILE = `${JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/elenchos': { version: '0.1.0', resolved: PINNED_GIT, dev: true } } }, null, 2)}\n`;

/** The pinned install step, as every job of a git-pinned workflow runs it. */
const PINNED_INSTALL = [
  'mkdir -p "$RUNNER_TEMP/elenchos" && cd "$RUNNER_TEMP/elenchos"',
  'npm install --no-save --no-package-lock --no-audit --no-fund "$ELENCHOS_PIN"',
  'echo "$RUNNER_TEMP/elenchos/node_modules/.bin" >> "$GITHUB_PATH"',
].join('\n');

/** The sandbox's step: bubblewrap, and user namespaces allowed where Ubuntu restricts them. */
const SANDBOX_STEP = [
  'sudo apt-get update -q && sudo apt-get install -y -q bubblewrap',
  '# Ubuntu 24.04 keeps user namespaces from programs without an AppArmor profile: bubblewrap needs one.',
  'if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; fi',
].join('\n');

/** The verify step's script: --lock-base on pull requests, the output signed, and moved into place only when verify ended by itself. */
const VERIFY_RUN = [
  '# On a pull request, a test lock changed without its contract is refused (docs/lock.md). The target',
  '# branch is read from the environment, never spliced into this script.',
  'lock_base=()',
  'if [ "$GITHUB_EVENT_NAME" = pull_request ]; then lock_base=(--lock-base "origin/$GITHUB_BASE_REF"); fi',
  'out=elenchos-shard-${{ matrix.shard }}.json',
  'code=0',
  "# Signed with a key this verify makes and never writes down; its public half goes to the job's outputs.",
  "# --require sandbox: the commit's app and setup run in bubblewrap (installed above), or no task is VERIFIED.",
  'elenchos verify --shard ${{ matrix.shard }}/${{ strategy.job-total }} "${lock_base[@]}" --json \\',
  '  --require sandbox --sign-shard "$out.sig" --shard-key-to "$GITHUB_OUTPUT" > "$out.partial" || code=$?',
  '# Kept only when verify ended by itself (exit 0-3): a cancelled or killed one leaves no output, never a cut-off one.',
  'if [ "$code" -le 3 ]; then mv "$out.partial" "$out"; fi',
  'exit "$code"',
].join('\n');

/** The workflow `elenchos init --yes --ci github` writes (in-process: what it writes is the question). */
async function writtenWorkflow(verifier: 'kane' | 'playwright'): Promise<string> {
  const root = tempRepo({ 'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" } }\n', 'package-lock.json': LOCKFILE });
  const result = await runMain(['init', '--yes', '--ci', 'github', '--verifier', verifier], root);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/wrote +\.github\/workflows\/elenchos\.yml +the CI workflow/);
  return readFileSync(path.join(root, WORKFLOW), 'utf8');
}

describe('elenchos init --ci github', () => {
  it('writes the workflow docs/ci.md shows, and it parses into a sharded verify and a merge', async () => {
    const text = await writtenWorkflow('kane');
    const blocks = [...readFileSync(DOCS, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.filter((b) => b.startsWith('# Written by `elenchos init --ci github`'))).toEqual([text]);
    const workflow = parse(text);
    const verify = workflow.jobs.verify;
    expect(verify.strategy).toEqual({ 'fail-fast': false, matrix: { shard: [1, 2, 3] } });
    // Every job runs the Elenchos pinned at init, never the one the commit under test installs.
    expect(workflow.env).toEqual({ ELENCHOS_PIN: PINNED_GIT });
    expect(runs(workflow, 'verify')).toEqual([
      PINNED_INSTALL,
      SANDBOX_STEP,
      // The commit's install scripts would run outside the sandbox here (setup.command runs them inside it).
      'npm ci --ignore-scripts',
      'npm install -g @testmuai/kane-cli && kane-cli --version',
      VERIFY_RUN,
    ]);
    // Each shard's key is a job output, one per shard of the matrix.
    expect(verify.outputs).toEqual({
      'shard-key-1': '${{ steps.verify.outputs.shard-key-1 }}',
      'shard-key-2': '${{ steps.verify.outputs.shard-key-2 }}',
      'shard-key-3': '${{ steps.verify.outputs.shard-key-3 }}',
    });
    const steps = verify.steps as Step[];
    // --lock-base needs the target branch and the commits since it.
    expect(steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
    expect(text).not.toContain('${{ github.base_ref }}');
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
    expect(String(upload.with!.path).trim().split('\n')).toEqual([
      'elenchos-shard-${{ matrix.shard }}.json',
      'elenchos-shard-${{ matrix.shard }}.json.sig',
      '.elenchos/runs/',
    ]);
    // The required check: never skipped (a skipped job counts as passed), and failed by a failed shard even
    // when the merged verdict is VERIFIED: the guard step runs only after merge succeeded (no status function).
    expect(workflow.jobs.merge).toMatchObject({ name: 'elenchos result', needs: 'verify', if: 'always()' });
    const mergeSteps = workflow.jobs.merge.steps as Step[];
    // The job that holds the key runs no code of the commit: no install of the project, the pinned Elenchos only.
    expect(runs(workflow, 'merge').slice(0, 2)).toEqual([
      PINNED_INSTALL,
      'elenchos merge shards/*/elenchos-shard-*.json --shard-keys "$SHARD_KEYS" --junit elenchos-junit.xml',
    ]);
    // The keys come from the jobs' outputs through the environment, never spliced into a script.
    for (const step of mergeSteps.filter((s) => s.run?.includes('elenchos merge')))
      expect(step.env?.SHARD_KEYS).toBe('${{ toJSON(needs.verify.outputs) }}');
    expect(text.match(/\$\{\{ toJSON\(needs\.verify\.outputs\) \}\}/g)).toHaveLength(2);
    expect(runs(workflow, 'merge').filter((r) => /npm ci|npx|pnpm|yarn|corepack/.test(r))).toEqual([]);
    const guard = mergeSteps.findIndex((s) => s.if === "needs.verify.result != 'success'");
    expect(guard).toBeGreaterThan(mergeSteps.findIndex((s) => s.run?.includes('elenchos merge')));
    expect(mergeSteps[guard]!.run).toMatch(/exit 1\s*$/);
    // Signed only after the guard: a PASSED attestation is never uploaded while the required check fails.
    expect(mergeSteps.findIndex((s) => s.name === 'Sign the merged verdict')).toBeGreaterThan(guard);
    expect(mergeSteps.findIndex((s) => s.name === 'Is there a signing key')).toBeGreaterThan(guard);
    expect(mergeSteps.filter((s) => s.if !== undefined).map((s) => s.if)).toEqual([
      "needs.verify.result != 'success'",
      "steps.attest.outputs.sign == 'yes'",
      "steps.attest.outputs.sign == 'yes'",
      'always()',
    ]);
    expect(text).toContain(`      ${ATTEST_MARKER}\n`);
    // The key reaches the signing step alone, and a repository without the secret still gets its verdict.
    expect(text).toMatch(
      /- name: Sign the merged verdict\n {8}if: steps\.attest\.outputs\.sign == 'yes'\n {8}env:\n {10}ELENCHOS_ATTEST_KEY: \$\{\{ secrets\.ELENCHOS_ATTEST_KEY \}\}\n {10}SHARD_KEYS: [^\n]*\n {8}run: >-\n {10}elenchos merge [^\n]*--shard-keys "\$SHARD_KEYS" --json\n {10}--attest elenchos\.att\.json --attest-key env:ELENCHOS_ATTEST_KEY/,
    );
    expect(text.match(/secrets\.ELENCHOS_ATTEST_KEY/g)).toHaveLength(2);
    expect((workflow.jobs.merge.steps as Step[]).find((s) => s.uses === 'actions/download-artifact@v4')?.with).toEqual({
      pattern: 'elenchos-shard-*',
      path: 'shards',
    });
  });

  it('a pnpm project installs through corepack in the shards, and not at all in the job that signs', async () => {
    const root = tempRepo({
      'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" } }\n',
      'pnpm-lock.yaml': 'lockfileVersion: 9\n',
    });
    expect((await runMain(['init', '--yes', '--ci', 'github'], root)).code).toBe(0);
    const workflow = parse(readFileSync(path.join(root, WORKFLOW), 'utf8'));
    expect(runs(workflow, 'verify')[2]).toBe('corepack enable && pnpm install --frozen-lockfile --ignore-scripts');
    expect(runs(workflow, 'merge').filter((r) => r.includes('pnpm'))).toEqual([]);
  });

  it('the Playwright variant swaps the Kane steps for the one docs/ci.md shows', async () => {
    const workflow = parse(await writtenWorkflow('playwright'));
    expect(runs(workflow, 'verify')).toEqual([
      PINNED_INSTALL,
      SANDBOX_STEP,
      'npm ci --ignore-scripts',
      'npx playwright install --with-deps chromium',
      VERIFY_RUN,
    ]);
    expect((workflow.jobs.verify.steps as Step[]).some((s) => s.env)).toBe(false);
    expect(readFileSync(DOCS, 'utf8')).toContain(
      '      - name: Install Chromium for Playwright\n        run: npx playwright install --with-deps chromium\n',
    );
  });

  it('a shard cancelled while verify writes leaves no output at all, so merge names it missing, never half a file', async () => {
    const workflow = parse(await writtenWorkflow('kane'));
    const verifyRun = (workflow.jobs.verify.steps as Step[]).find((s) => s.run?.includes('elenchos verify'))!.run!;
    const root = tempDir();
    // Stands in for an elenchos verify that the runner kills (cancel, timeout) after it printed half its JSON.
    const killed = tempDir();
    writeFileSync(path.join(killed, 'elenchos'), `#!/bin/sh\nprintf '{ "metadata": { "formatVersion": 1,'\nkill -KILL $$\n`, {
      mode: 0o755,
    });
    const run = spawnSync(
      'bash',
      ['-eo', 'pipefail', '-c', verifyRun.replaceAll('${{ matrix.shard }}', '2').replaceAll('${{ strategy.job-total }}', '3')],
      {
        cwd: root,
        env: { ...process.env, PATH: `${killed}${path.delimiter}${process.env.PATH}`, GITHUB_EVENT_NAME: 'push' },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(137);
    expect(existsSync(path.join(root, 'elenchos-shard-2.json'))).toBe(false);
    expect(readFileSync(path.join(root, 'elenchos-shard-2.json.partial'), 'utf8')).toBe('{ "metadata": { "formatVersion": 1,');
  });

  it('with no pinned source to be found, the install step fails closed and init says to set ELENCHOS_PIN', async () => {
    const root = tempRepo({
      'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" }, "devDependencies": { "elenchos": "^0.1.0" } }\n',
    });
    const init = await runMain(['init', '--yes', '--ci', 'github'], root);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('set ELENCHOS_PIN in .github/workflows/elenchos.yml to the Elenchos CI runs');
    const workflow = parse(readFileSync(path.join(root, WORKFLOW), 'utf8'));
    expect(workflow.env).toEqual({ ELENCHOS_PIN: '' });
    const run = spawnSync('bash', ['-eo', 'pipefail', '-c', runs(workflow, 'merge')[0]!], {
      cwd: root,
      env: { ...process.env, ...workflow.env, RUNNER_TEMP: tempDir(), GITHUB_PATH: path.join(tempDir(), 'p') },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^::error::ELENCHOS_PIN is empty: /);
  });
});
