// The workflow `elenchos init --ci github` writes, run here: its verify and merge commands shard by shard
// with the artifacts passed by hand give one merged result, never run the commit's own elenchos, on a
// pull request refuse a test lock the agent rewrote (--lock-base), and its pinned install refuses a
// swapped tarball. Many CLI runs and real npm installs: in the slow suite.
// @module-tag slow
import { spawn, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BIN, runCli } from '../helpers/cli.js';
import { FIXTURES, FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject, processesInside, TITLE_TASK } from '../helpers/project.js';
import { waitForFile } from '../helpers/live-cli.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';
import { runs, WORKFLOW, type Step } from '../helpers/workflow.js';

// The workflow's verify says --require sandbox: its projects run their app and setup in bubblewrap, as the
// workflow's runner does (bubblewrap installed by its own step), from /var/tmp (a sandbox has its own /tmp).
const HAS_BWRAP = existsSync('/usr/bin/bwrap');
// "auto", as init writes it: resolved to bubblewrap where it holds, which --require sandbox then finds standing.
const SANDBOXED_AGENT = { type: 'command', command: 'true', sandbox: 'auto' };
function sandboxedProject(options: Parameters<typeof makeProject>[0]): ReturnType<typeof makeProject> {
  const p = makeProject({ ...options, parent: '/var/tmp', config: { agent: SANDBOXED_AGENT, ...options?.config } });
  p.env.XDG_STATE_HOME = tempDir('elenchos-state-', '/var/tmp');
  return p;
}

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

describe('the workflow of elenchos init --ci github, run here', () => {
  it.skipIf(!HAS_BWRAP)(
    'its verify and merge commands, run shard by shard here, give one summary, one JUnit file and one exit code',
    () => {
      const p = sandboxedProject({
        config: { verifier: KANE_CHECK_PAGE },
        files: {
          ...FORM_PAGE,
          ...FORM_TASK,
          ...TITLE_TASK,
          '.gitignore': 'node_modules/\n',
        },
      });
      roots.push(p.root);
      expect(runCli(['init', '--yes', '--ci', 'github'], p.root, p.env).code).toBe(0);
      gitSync(p.root, 'add', '-A');
      gitSync(p.root, 'commit', '-qm', 'elenchos workflow');
      // What the pinned install step leaves: this Elenchos first on PATH. The commit's own install holds a
      // hostile `elenchos` (an agent's package.json pointing elsewhere) that no step may run.
      const pinned = pinnedBin();
      const hostile = path.join(p.root, 'hostile-ran');
      mkdirSync(path.join(p.root, 'node_modules/.bin'), { recursive: true });
      writeFileSync(path.join(p.root, 'node_modules/.bin/elenchos'), `#!/bin/sh\ntouch ${hostile}\nexit 0\n`, { mode: 0o755 });
      const workflow = parse(readFileSync(path.join(p.root, WORKFLOW), 'utf8'));
      const shards: number[] = workflow.jobs.verify.strategy.matrix.shard;
      const verifySteps = workflow.jobs.verify.steps as Step[];
      const verifyRun = verifySteps.find((s) => s.run?.includes('elenchos verify'))!.run!;
      const upload = verifySteps.find((s) => s.uses === 'actions/upload-artifact@v4')!.with!;
      const download = (workflow.jobs.merge.steps as Step[]).find((s) => s.uses === 'actions/download-artifact@v4')!.with!;
      const mergeRun = (workflow.jobs.merge.steps as Step[]).find((s) => s.run?.includes('elenchos merge'))!.run!;
      // Each job has a job summary of its own.
      const summaries = tempDir();
      const env = {
        ...process.env,
        ...p.env,
        PATH: `${pinned}${path.delimiter}${process.env.PATH}`,
        npm_config_offline: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'push',
      };
      const shell = (command: string, job: string, more: NodeJS.ProcessEnv = {}) =>
        spawnSync('bash', ['-eo', 'pipefail', '-c', command], {
          cwd: p.root,
          env: {
            ...env,
            GITHUB_STEP_SUMMARY: path.join(summaries, `${job}.md`),
            GITHUB_OUTPUT: path.join(summaries, `${job}.out`),
            ...more,
          },
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
      expect(existsSync(hostile), "the commit's own elenchos ran").toBe(false);
      expect(readdirSync(p.root).filter((f) => f.endsWith('.partial'))).toEqual([]);
      // The runner's part: each shard job's outputs (the keys its verify published), handed to merge as the workflow says.
      const keys = {
        SHARD_KEYS: jobOutputs(
          workflow,
          shards.map((shard) => path.join(summaries, `shard-${shard}.out`)),
        ),
      };
      expect(Object.keys(JSON.parse(keys.SHARD_KEYS)).sort()).toEqual(['shard-key-1', 'shard-key-2', 'shard-key-3']);
      const merged = shell(mergeRun, 'merge', keys);
      expect(merged.status, merged.stderr).toBe(1);
      expect(merged.stdout).toMatch(
        /FAILED PRODUCT_FAILURE +add-task[\s\S]*VERIFIED +example[\s\S]*VERIFIED +form[\s\S]*VERIFIED +title[\s\S]*3\/4 VERIFIED/,
      );
      expect(merged.stdout.match(/^::error /gm)).toHaveLength(1);
      expect(readFileSync(path.join(p.root, 'elenchos-junit.xml'), 'utf8').match(/<testsuite /g)).toHaveLength(4);
      expect(readFileSync(path.join(summaries, 'merge.md'), 'utf8').match(/^\| (add-task|example|form|title) \|/gm)).toHaveLength(4);
      // A shard whose job died before writing its output (its artifact absent): the required check fails, naming it.
      rmSync(path.join(p.root, String(download.path), expand(String(upload.name), 2)), { recursive: true });
      const partial = shell(mergeRun, 'merge-partial', keys);
      expect(partial.status).toBe(4);
      expect(partial.stderr).toBe(
        'elenchos: merge refused: shard 2/3 missing: its output was not given (did that job fail before writing it?)\n',
      );
      expect(existsSync(hostile), "the commit's own elenchos ran").toBe(false);
    },
  );

  it.skipIf(!HAS_BWRAP)(
    "a shard output rewritten after verify wrote it (metadata and times kept), by a process the commit's install script left, is refused by merge and never signed",
    async () => {
      const p = sandboxedProject({
        config: { verifier: KANE_CHECK_PAGE, tasks: ['tasks/add-task.json'] },
        files: {
          '.gitignore': 'node_modules/\n',
          // The commit's install script: it says it ran (where it could also leave rewrite-shard.js running).
          'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', scripts: { postinstall: "node -e \"require('fs').writeFileSync('install-scripts-ran', 'yes')\"" } })}\n`,
          'package-lock.json': `${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0' } } })}\n`,
        },
      });
      roots.push(p.root);
      expect(runCli(['init', '--yes', '--ci', 'github'], p.root, p.env).code).toBe(0);
      gitSync(p.root, 'add', '-A');
      gitSync(p.root, 'commit', '-qm', 'elenchos workflow');
      const workflow = parse(readFileSync(path.join(p.root, WORKFLOW), 'utf8'));
      const verifySteps = workflow.jobs.verify.steps as Step[];
      const mergeSteps = workflow.jobs.merge.steps as Step[];
      const install = verifySteps.find((s) => s.name?.startsWith('Install dependencies'))!.run!;
      const verifyRun = verifySteps.find((s) => s.run?.includes('elenchos verify'))!.run!;
      const mergeRun = mergeSteps.find((s) => s.run?.includes('elenchos merge'))!.run!;
      const signRun = mergeSteps.find((s) => s.name === 'Sign the merged verdict')!.run!;
      const job = tempDir();
      const env = {
        ...process.env,
        ...p.env,
        PATH: `${pinnedBin()}${path.delimiter}${process.env.PATH}`,
        npm_config_offline: 'true',
        GITHUB_EVENT_NAME: 'push',
        GITHUB_OUTPUT: path.join(job, 'verify.out'),
      };
      const shell = (command: string, more: NodeJS.ProcessEnv = {}) =>
        spawnSync('bash', ['-eo', 'pipefail', '-c', command], {
          cwd: p.root,
          env: { ...env, ...more },
          encoding: 'utf8',
          timeout: 120_000,
        });

      // The shard job's install runs none of the commit's install scripts (before: npm ci ran its postinstall).
      const installed = shell(install);
      expect(installed.status, installed.stderr).toBe(0);
      expect(existsSync(path.join(p.root, 'install-scripts-ran'))).toBe(false);

      // What such a script leaves where a project still runs them (or did before): a process that rewrites the output.
      const marker = path.join(job, 'rewrote');
      const daemon = spawn(process.execPath, [path.join(FIXTURES, 'ci/rewrite-shard.js'), 'elenchos-shard-1.json', marker], {
        cwd: p.root,
        detached: true,
        stdio: 'ignore',
      });
      daemon.unref();
      const verified = shell(verifyRun.replaceAll('${{ matrix.shard }}', '1').replaceAll('${{ strategy.job-total }}', '1'));
      expect(verified.status, verified.stderr).toBe(1); // add-task FAILED: its page lacks the milk
      await waitForFile(marker);
      const rewritten = JSON.parse(readFileSync(path.join(p.root, 'elenchos-shard-1.json'), 'utf8'));
      expect(rewritten.runs.map((r: { state: string }) => r.state)).toEqual(['VERIFIED']);
      expect(rewritten.metadata.shard).toEqual({ index: 1, total: 1 });

      // The artifact as the merge job downloads it.
      const artifact = path.join(p.root, 'shards/elenchos-shard-1');
      mkdirSync(artifact, { recursive: true });
      for (const file of ['elenchos-shard-1.json', 'elenchos-shard-1.json.sig'])
        copyFileSync(path.join(p.root, file), path.join(artifact, file));
      // Before: merge took the file as it found it, and the job signed PASSED.
      const unchecked = runCli(['merge', 'shards/elenchos-shard-1/elenchos-shard-1.json'], p.root, p.env);
      expect(unchecked.code, unchecked.stdout + unchecked.stderr).toBe(0);
      const keys = { SHARD_KEYS: jobOutputs(workflow, [env.GITHUB_OUTPUT]) };
      expect(Object.keys(JSON.parse(keys.SHARD_KEYS))).toEqual(['shard-key-1']);
      const merged = shell(mergeRun, keys);
      expect(merged.status).toBe(4);
      expect(merged.stderr).toBe(
        "elenchos: merge refused: shard 1/1 (shards/elenchos-shard-1/elenchos-shard-1.json): the file is not what its job's verify printed and signed (changed after verify wrote it, or signed by another key)\n",
      );
      const { privateKey } = generateKeyPairSync('ed25519');
      const signed = shell(signRun, { ...keys, ELENCHOS_ATTEST_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
      expect(signed.status).toBe(4);
      expect(existsSync(path.join(p.root, 'elenchos.att.json'))).toBe(false);

      // Its own output back (what verify printed), the same merge takes it: the refusal was the rewrite, not the key.
      const honest = readFileSync(`${marker}.original`);
      writeFileSync(path.join(artifact, 'elenchos-shard-1.json'), honest);
      const again = shell(mergeRun, keys);
      expect(again.status, again.stderr).toBe(1);
      expect(again.stdout).toMatch(/FAILED PRODUCT_FAILURE +add-task/);
    },
    180_000,
  );

  it.skipIf(!HAS_BWRAP)(
    'on a pull request the shards pass --lock-base origin/<target>: an agent commit that ran lock --update is refused',
    () => {
      const p = sandboxedProject({
        config: { verifier: KANE_CHECK_PAGE, tasks: ['tasks/form.json'] },
        files: {
          ...FORM_PAGE,
          ...FORM_TASK,
          '.gitignore': 'node_modules/\n',
        },
      });
      roots.push(p.root);
      const env = {
        ...p.env,
        PATH: `${pinnedBin()}${path.delimiter}${process.env.PATH}`,
        GITHUB_OUTPUT: path.join(tempDir(), 'verify.out'),
      };
      expect(runCli(['lock', 'tasks/form.json'], p.root, p.env).code).toBe(0);
      expect(runCli(['init', '--yes', '--ci', 'github'], p.root, p.env).code).toBe(0);
      gitSync(p.root, 'add', '-A');
      gitSync(p.root, 'commit', '-qm', 'locked tests, elenchos workflow');
      // The target branch as `actions/checkout` with fetch-depth 0 leaves it.
      gitSync(p.root, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
      // The agent's pull request: a weaker test, its lock rewritten to match, the contract untouched.
      writeFileSync(path.join(p.root, 'tests/form_test.md'), '## Step 1 @verifies AC-001\nVerify "New".\n');
      expect(runCli(['lock', '--update', 'tasks/form.json'], p.root, p.env).code).toBe(0);
      gitSync(p.root, 'commit', '-qam', 'agent: update the lock too');
      const workflow = parse(readFileSync(path.join(p.root, WORKFLOW), 'utf8'));
      const verifyRun = (workflow.jobs.verify.steps as Step[]).find((s) => s.run?.includes('elenchos verify'))!.run!;
      const shard = (event: Record<string, string>) => {
        rmSync(path.join(p.root, 'elenchos-shard-1.json'), { force: true });
        const run = spawnSync(
          'bash',
          ['-eo', 'pipefail', '-c', verifyRun.replaceAll('${{ matrix.shard }}', '1').replaceAll('${{ strategy.job-total }}', '1')],
          {
            cwd: p.root,
            env: { ...process.env, ...env, ...event },
            encoding: 'utf8',
            timeout: 120_000,
          },
        );
        const output = JSON.parse(readFileSync(path.join(p.root, 'elenchos-shard-1.json'), 'utf8'));
        const form = output.runs.find((r: { file?: string; task?: { file: string } }) => (r.file ?? r.task?.file) === 'tasks/form.json');
        return { code: run.status, form };
      };
      // A push (no target branch) checks the tree against its own lock, which agrees with itself.
      const push = shard({ GITHUB_EVENT_NAME: 'push' });
      expect(push.form.state).toBe('VERIFIED');
      const pr = shard({ GITHUB_EVENT_NAME: 'pull_request', GITHUB_BASE_REF: 'main' });
      expect(pr.code).toBe(3);
      expect(pr.form.refused).toMatch(
        /tasks\/form\.lock\.json: changed in commit [0-9a-f]+ "agent: update the lock too" without a change of tasks\/form\.json/,
      );
    },
  );

  it('a tarball in the repository is pinned by its sha256: the install step refuses a tarball the commit replaced', () => {
    // A packed package named elenchos whose bin says which copy ran (npm installs it offline: no dependencies).
    const source = tempDir();
    const pack = (says: string) => {
      writeFileSync(path.join(source, 'package.json'), JSON.stringify({ name: 'elenchos', version: '0.1.0', bin: { elenchos: 'cli.js' } }));
      writeFileSync(path.join(source, 'cli.js'), `#!/usr/bin/env node\nconsole.log(${JSON.stringify(says)});\n`, { mode: 0o755 });
      const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', source], { cwd: source, encoding: 'utf8' });
      expect(packed.status, packed.stderr).toBe(0);
      return readFileSync(path.join(source, packed.stdout.trim()));
    };
    const root = tempRepo({ 'package.json': '{ "name": "my-app", "scripts": { "dev": "vite" } }\n' });
    mkdirSync(path.join(root, 'vendor'));
    writeFileSync(path.join(root, 'vendor/elenchos-0.1.0.tgz'), pack('the pinned elenchos'));
    const lock = {
      lockfileVersion: 3,
      packages: { 'node_modules/elenchos': { version: '0.1.0', resolved: 'file:vendor/elenchos-0.1.0.tgz' } },
    };
    writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
    expect(runCli(['init', '--yes', '--ci', 'github'], root).code).toBe(0);
    const workflow = parse(readFileSync(path.join(root, WORKFLOW), 'utf8'));
    const sha256 = createHash('sha256')
      .update(readFileSync(path.join(root, 'vendor/elenchos-0.1.0.tgz')))
      .digest('hex');
    expect(workflow.env).toEqual({ ELENCHOS_PIN: 'vendor/elenchos-0.1.0.tgz', ELENCHOS_PIN_SHA256: sha256 });
    const install = runs(workflow, 'merge')[0]!;
    expect(runs(workflow, 'verify')[0]).toBe(install);
    expect(install).toContain('npm install --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "$RUNNER_TEMP/elenchos.tgz"');
    const step = () => {
      const runnerTemp = tempDir();
      const githubPath = path.join(runnerTemp, 'github-path');
      const run = spawnSync('bash', ['-eo', 'pipefail', '-c', install], {
        cwd: root,
        env: { ...process.env, ...workflow.env, RUNNER_TEMP: runnerTemp, GITHUB_PATH: githubPath, npm_config_offline: 'true' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      const bin = path.join(runnerTemp, 'elenchos/node_modules/.bin/elenchos');
      return { run, said: existsSync(bin) ? spawnSync(bin, { encoding: 'utf8' }).stdout : null, githubPath };
    };
    const good = step();
    expect(good.run.status, good.run.stderr).toBe(0);
    expect(good.said).toBe('the pinned elenchos\n');
    expect(readFileSync(good.githubPath, 'utf8')).toMatch(/\/elenchos\/node_modules\/\.bin\n$/);
    // The agent's commit swaps the tarball for one of its own: the step fails before installing it.
    writeFileSync(path.join(root, 'vendor/elenchos-0.1.0.tgz'), pack('an elenchos that signs anything'));
    const swapped = step();
    expect(swapped.run.status).not.toBe(0);
    expect(swapped.run.stdout + swapped.run.stderr).toMatch(/FAILED/);
    expect(swapped.said).toBeNull();
  });
});

/**
 * `toJSON(needs.verify.outputs)` as the runner makes it: each output the verify job declares, from the step
 * outputs (`name=value` lines of each matrix job's $GITHUB_OUTPUT) of whichever job set it.
 */
function jobOutputs(workflow: any, outputFiles: string[]): string {
  const set = new Map<string, string>();
  for (const file of outputFiles)
    for (const line of (existsSync(file) ? readFileSync(file, 'utf8') : '').split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) set.set(line.slice(0, at), line.slice(at + 1));
    }
  const outputs: Record<string, string> = {};
  for (const [name, expression] of Object.entries(workflow.jobs.verify.outputs as Record<string, string>)) {
    const step = /^\$\{\{ steps\.verify\.outputs\.([\w-]+) \}\}$/.exec(expression)?.[1];
    const value = step === undefined ? undefined : set.get(step);
    if (value) outputs[name] = value;
  }
  return JSON.stringify(outputs);
}

/** A folder holding `elenchos` (this build), as the pinned install step leaves $RUNNER_TEMP/elenchos/node_modules/.bin. */
function pinnedBin(): string {
  const dir = tempDir();
  symlinkSync(BIN, path.join(dir, 'elenchos'));
  return dir;
}
