// The files that put shares on engines people already run (docs/scale.md): the agents workflow of
// `init --ci github --agents` and the Kubernetes Indexed Job, join Job and Dockerfile of `init --k8s`, tested
// as files: their structure, the pinned Elenchos in every job, and that no skipped or failed share can pass.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderAgentsWorkflow } from '../../src/core/init/github-agents-workflow.js';
import { PINNED_BIN, renderDockerfile, renderJoinJob, renderSharesJob, type K8sOptions } from '../../src/core/init/k8s-job.js';
import type { PinnedElenchos } from '../../src/core/init/pinned-elenchos.js';
import { jobSchemaProblems } from '../helpers/k8s-schema.js';
import { tempDir, tempRepo } from '../helpers/temp.js';
import type { Step } from '../helpers/workflow.js';

const GIT_PIN: PinnedElenchos = { kind: 'git', spec: `git+https://github.com/example/elenchos.git#${'a'.repeat(40)}` };
const TARBALL_PIN: PinnedElenchos = { kind: 'tarball', path: 'vendor/elenchos-0.1.0.tgz', sha256: 'b'.repeat(64) };

const workflow = (pin: PinnedElenchos = GIT_PIN) =>
  parse(renderAgentsWorkflow({ verifier: 'kane', agent: 'claude', install: 'npm ci', pin, shares: 3 })) as any;
const steps = (w: any, job: string): Step[] => w.jobs[job].steps;
const stepNamed = (w: any, job: string, name: RegExp): Step => steps(w, job).find((s) => name.test(s.name ?? ''))!;

describe('the agents workflow (init --ci github --agents)', () => {
  it('is started by hand with a task input, runs a matrix of shares, joins them, and publishes after the join', () => {
    const w = workflow();
    expect(Object.keys(w.on)).toEqual(['workflow_dispatch']);
    expect(w.on.workflow_dispatch.inputs.task).toMatchObject({ required: false, default: '' });
    expect(w.permissions).toEqual({ contents: 'read' });
    expect(Object.keys(w.jobs)).toEqual(['share', 'join', 'publish']);
    expect(w.jobs.share.strategy).toEqual({ 'fail-fast': false, matrix: { share: [1, 2, 3] } });
    const run = stepNamed(w, 'share', /^Run share/).run!;
    expect(run).toContain(
      'elenchos run "${tasks[@]}" --best-of "$BEST_OF" --shard ${{ matrix.share }}/${{ strategy.job-total }} --export "$out"',
    );
    expect(stepNamed(w, 'share', /^Keep this share's export/).with).toMatchObject({ 'if-no-files-found': 'error' });
    expect(w.jobs.join.needs).toBe('share');
    // Downloaded outside the checkout: the join refuses a working tree with untracked files, as a run does.
    expect(steps(w, 'join').find((s) => s.uses === 'actions/download-artifact@v4')!.with).toMatchObject({
      path: '${{ runner.temp }}/shares',
    });
    expect(stepNamed(w, 'join', /^Join/).run).toBe(
      'elenchos join "$RUNNER_TEMP"/shares/*/elenchos-share-*.tar.gz --json > "$RUNNER_TEMP/elenchos-join.json"',
    );
    expect(w.jobs.publish.needs).toBe('join');
  });

  it("every job runs the Elenchos pinned at init, installed before its first elenchos call, never the commit's own", () => {
    for (const pin of [GIT_PIN, TARBALL_PIN]) {
      const w = workflow(pin);
      expect(w.env.ELENCHOS_PIN).toBe(pin.kind === 'git' ? pin.spec : 'vendor/elenchos-0.1.0.tgz');
      for (const job of ['share', 'join', 'publish']) {
        const all = steps(w, job);
        const pinned = all.findIndex((s) => s.name === 'Install Elenchos from its pin (not from the commit under test)');
        const firstCall = all.findIndex((s) => /(^|\s)elenchos /m.test(s.run ?? ''));
        expect(pinned, job).toBeGreaterThan(-1);
        expect(firstCall, job).toBeGreaterThan(pinned);
        for (const s of all.filter((_, i) => i !== pinned))
          expect(s.run ?? '', `${job}: ${s.name}`).not.toMatch(
            /npx elenchos|node_modules\/\.bin\/elenchos|npm (i|install) [^\n]*elenchos(?!-)/,
          );
      }
    }
  });

  it('no step lets a skipped or failed share pass: no continue-on-error, the join always runs and fails on a share job that did not succeed, publish only after it', () => {
    const text = renderAgentsWorkflow({ verifier: 'playwright', agent: 'codex', install: 'npm ci', pin: GIT_PIN, shares: 2 });
    expect(text).not.toContain('continue-on-error');
    const w = parse(text) as any;
    expect(w.jobs.join.if).toBe('always()');
    const gate = stepNamed(w, 'join', /^Every share job succeeded/);
    expect(gate.if).toBe("always() && needs.share.result != 'success'");
    expect(gate.run).toContain('exit 1');
    expect(w.jobs.publish.if).toBe("needs.join.result == 'success'");
    // Write access only where no code of the commit is installed or run.
    expect(w.jobs.publish.permissions).toEqual({ contents: 'write' });
    expect(steps(w, 'publish').some((s) => /npm ci|install dependencies/i.test(`${s.name} ${s.run ?? ''}`))).toBe(false);
    expect(w.jobs.share.permissions).toBeUndefined();
    // The agent's key reaches the share step alone; the join verifies without it.
    expect(JSON.stringify(w.jobs.join)).not.toContain('OPENAI_API_KEY');
    expect(stepNamed(w, 'share', /^Run share/).env).toMatchObject({ OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}' });
  });

  it("the inputs reach the share's script through its environment, and the script fails the job unless the share exported (exit 0-2)", () => {
    const w = workflow();
    const share = stepNamed(w, 'share', /^Run share/);
    expect(share.run).not.toContain('${{ inputs.');
    expect(share.env).toMatchObject({ TASK: '${{ inputs.task }}', BEST_OF: '${{ inputs.best-of }}' });
    const script = share.run!.replaceAll('${{ matrix.share }}', '1').replaceAll('${{ strategy.job-total }}', '3');
    const bin = tempDir('elenchos-fake-bin-');
    // A stand-in for the pinned elenchos: records its arguments, writes the export or not, exits as told.
    writeFileSync(
      path.join(bin, 'elenchos'),
      '#!/bin/bash\nprintf "%s\\n" "$@" > args.txt\nif [ "$WRITE" = yes ]; then for a in "$@"; do last=$a; done; touch "$last"; fi\nexit "$CODE"\n',
    );
    chmodSync(path.join(bin, 'elenchos'), 0o755);
    const outcome = (code: number, write: boolean, task = '') => {
      const cwd = tempDir('elenchos-share-job-');
      try {
        execFileSync('bash', ['-e', '-c', script], {
          cwd,
          env: {
            ...process.env,
            PATH: `${bin}:${process.env.PATH}`,
            CODE: String(code),
            WRITE: write ? 'yes' : 'no',
            TASK: task,
            BEST_OF: '2',
          },
        });
        return { exit: 0, exported: existsSync(path.join(cwd, 'elenchos-share-1.tar.gz')), cwd };
      } catch (error) {
        return { exit: (error as { status: number }).status, exported: false, cwd };
      }
    };
    expect(outcome(0, true).exit).toBe(0);
    expect(outcome(1, true).exit).toBe(0); // FAILED candidates: the share ran; the join weighs it
    expect(outcome(2, true).exit).toBe(0);
    expect(outcome(3, false).exit).toBe(1);
    expect(outcome(130, true).exit).toBe(1);
    expect(outcome(0, false).exit).toBe(1); // no export, whatever it said
    const tasks = outcome(0, true, 'tasks/a b.json');
    expect(
      execFileSync('cat', [path.join(tasks.cwd, 'args.txt')], { encoding: 'utf8' })
        .split('\n')
        .slice(0, 2),
    ).toEqual(['run', 'tasks/a b.json']);
  });
});

const K8S: K8sOptions = {
  verifier: 'kane',
  agent: 'claude',
  install: 'npm ci',
  pin: GIT_PIN,
  shares: 4,
  stopAtFirst: false,
  task: 'tasks/example.json',
};

describe('the Kubernetes files (init --k8s)', () => {
  it('the shares Job is valid against the Kubernetes API schema (kubernetes-models), and the schema check catches a wrong field', async () => {
    const job = () => parse(renderSharesJob(K8S));
    const edited = (edit: (j: any) => void) => {
      const j = job();
      edit(j);
      return j;
    };
    const [plain, stopping, join, misspelt, unknownInPod, wrongType, wrongEnum] = await jobSchemaProblems([
      job(),
      parse(renderSharesJob({ ...K8S, stopAtFirst: true })),
      parse(renderJoinJob(K8S)),
      // The check can fail: a misspelt field, a wrong type, a bad enum value, each alone.
      edited((j) => (j.spec.completionsMode = 'Indexed')),
      edited((j) => (j.spec.template.spec.containers[0].volumeMount = [])),
      edited((j) => (j.spec.backoffLimitPerIndex = 'once')),
      edited((j) => (j.spec.completionMode = 'Sharded')),
    ]);
    expect([plain, stopping, join]).toEqual([[], [], []]);
    expect(misspelt!.join('\n')).toMatch(/completionsMode.*does not exist in type 'IJobSpec'/);
    expect(unknownInPod!.join('\n')).toMatch(/volumeMount\b.*does not exist in type/);
    expect(wrongType!.join('\n')).toMatch(/backoffLimitPerIndex must be integer/);
    expect(wrongEnum!.join('\n')).toMatch(/completionMode must be equal to one of the allowed values/);
  });

  it('one index per share, each retried on its own, a success policy only for --stop-at-first, the pinned Elenchos by its path', () => {
    const job = parse(renderSharesJob(K8S));
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimitPerIndex: 1 });
    expect(job.spec.successPolicy).toBeUndefined();
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never'); // what backoffLimitPerIndex and podFailurePolicy require
    const [container] = pod.containers;
    expect(job.spec.podFailurePolicy.rules[0]).toMatchObject({ action: 'FailIndex', onExitCodes: { containerName: container.name } });
    const script = container.args[0] as string;
    expect(script).toContain(`${PINNED_BIN} run "$TASK" --best-of "$BEST_OF" --shard auto/4 --export "$out"`);
    expect(script).toContain('out="/exports/$JOB_NAME/share-$JOB_COMPLETION_INDEX.tar.gz"');
    expect(script).not.toMatch(/npx elenchos|(^|\s)elenchos /m);
    expect(container.volumeMounts).toContainEqual({ name: 'exports', mountPath: '/exports' });
    expect(pod.volumes).toContainEqual({ name: 'exports', persistentVolumeClaim: { claimName: 'elenchos-exports' } });
    const stop = parse(renderSharesJob({ ...K8S, stopAtFirst: true }));
    expect(stop.spec.successPolicy).toEqual({ rules: [{ succeededCount: 1 }] });
    // With --stop-at-first an index succeeds only on its own exit 0 (VERIFIED); without, a share that exported is done.
    expect(stop.spec.template.spec.containers[0].args[0]).toMatch(/\|\| code=\$\?\n\s*exit "\$code"/);
    expect(script).toContain('if [ "$code" -le 2 ] && [ -f "$out" ]; then exit 0; fi; exit "$code"');
  });

  it("the join Job reads the shares Job's exports from the same volume, with the pinned Elenchos", () => {
    const shares = parse(renderSharesJob(K8S));
    const join = parse(renderJoinJob(K8S));
    const container = join.spec.template.spec.containers[0];
    expect(container.env).toContainEqual({ name: 'SHARES_JOB', value: shares.metadata.name });
    expect(container.args[0]).toContain(`${PINNED_BIN} join /exports/"$SHARES_JOB"/share-*.tar.gz --json`);
    expect(join.spec.template.spec.volumes).toEqual(shares.spec.template.spec.volumes);
    expect(join.spec.backoffLimit).toBe(0);
  });

  it('the Dockerfile: Node 20, git, Chromium, bubblewrap, the agent and Kane CLIs, Elenchos pinned outside the repository', () => {
    const git = renderDockerfile(K8S);
    expect(git).toMatch(/^FROM node:20-/m);
    expect(git).toMatch(/apt-get install -y --no-install-recommends git ca-certificates chromium bubblewrap/);
    expect(git).toContain('RUN npm install -g @anthropic-ai/claude-code @testmuai/kane-cli');
    expect(git).toContain(
      `cd /opt/elenchos && npm install --no-save --no-package-lock --no-audit --no-fund "${(GIT_PIN as { spec: string }).spec}"`,
    );
    const tarball = renderDockerfile({ ...K8S, pin: TARBALL_PIN });
    expect(tarball).toContain(`echo "${'b'.repeat(64)}  /tmp/elenchos.tgz" | sha256sum --check --strict -`);
    expect(renderDockerfile({ ...K8S, pin: { kind: 'none' } })).toMatch(/no pinned Elenchos.*exit 1/);
    expect(git.trimEnd().split('\n').at(-1)).toBe('USER node');
  });
});

describe('init writes them', () => {
  it('--ci github --agents --k8s plans the agents workflow beside the verify workflow, and the three Kubernetes files', async () => {
    const { planInit } = await import('../../src/core/init/init-project.js');
    const root = tempRepo({ 'package.json': '{"name":"p","scripts":{"dev":"node app.js"}}\n' });
    const plan = await planInit({ cwd: root, env: { PATH: '' }, ci: 'github', agents: true, k8s: true, shares: 3, stopAtFirst: true });
    const files = Object.fromEntries(plan.files.map((f) => [f.path, f]));
    for (const file of [
      '.github/workflows/elenchos.yml',
      '.github/workflows/elenchos-agents.yml',
      'k8s/elenchos-agents-job.yaml',
      'k8s/elenchos-join-job.yaml',
      'k8s/Dockerfile',
    ])
      expect(files[file]?.action, file).toBe('create');
    expect(parse(files['k8s/elenchos-agents-job.yaml']!.content).spec).toMatchObject({
      completions: 3,
      successPolicy: { rules: [{ succeededCount: 1 }] },
    });
    expect(parse(files['.github/workflows/elenchos-agents.yml']!.content).jobs.share.strategy.matrix.share).toEqual([1, 2, 3]);
    // No pin found here: the next steps say so, as for the verify workflow.
    expect(plan.next.join('\n')).toMatch(/set ELENCHOS_PIN/);
  });
});
