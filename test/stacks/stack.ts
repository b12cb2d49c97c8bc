// The real-stack suite's project: a git repository holding a real app from test/fixtures/stacks/<app>/
// (its package.json and committed package-lock.json, installed from the npm registry by the run's own
// `setup.command`), a task, a Playwright spec run in the system Chromium, and a command agent whose first
// attempt leaves AC-002 failing and whose repair fixes it. Only `node_modules` is ignored: whatever else
// the dev server writes lands in the tracked tree, as in a repository that never ignored it.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { FIXTURES, processesInside } from '../helpers/project.js';
import { gitSync, tempRepo } from '../helpers/temp.js';

export const STACKS = path.join(FIXTURES, 'stacks');
export const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

export interface StackOptions {
  /** Folder under test/fixtures/stacks/. */
  app: string;
  /** `app` section of the config (command, env, writes, …). */
  appConfig: Record<string, unknown>;
  /** The Playwright spec: one test tagged @AC-001, one @AC-002. */
  spec: string;
  criteria: [string, string];
  /** What the agent writes on attempt 1 (AC-002 still failing) and on the repair. */
  edits: { first: Record<string, string>; repair: Record<string, string> };
  /** More files for the first commit. */
  files?: Record<string, string>;
  /** Playwright's per-test timeout: a dev server that compiles a page on its first visit needs more. */
  testTimeoutMs?: number;
}

export interface Stack {
  root: string;
  /** The first commit: the base every run starts from. */
  base: string;
  gitignore: string;
}

/**
 * Kept between runs, in the sandbox's sight: the agent, the app and setup run in bubblewrap (agent.sandbox
 * "auto", the default), whose /tmp is its own, so what they read (the stack agent, its edits, the package
 * managers) can be neither under the test's temp folder nor in this checkout, which CI may clone under /tmp.
 */
export const STACKS_STATE = '/var/tmp/elenchos-stacks';

/** A file for the stack agent's edits, where the sandboxed agent can read it. */
export function agentEditsFile(name: string): string {
  mkdirSync(STACKS_STATE, { recursive: true });
  return path.join(STACKS_STATE, `edits-${name}-${process.pid}.json`);
}

/** The stack agent (test/fixtures/stacks/stack-agent.js, node built-ins only), copied where the sandboxed agent can run it. */
export function stackAgent(): string {
  mkdirSync(STACKS_STATE, { recursive: true });
  const copy = path.join(STACKS_STATE, `stack-agent-${process.pid}.js`);
  copyFileSync(path.join(STACKS, 'stack-agent.js'), copy);
  return copy;
}

export const TASK_FILE = 'tasks/feature.json';
const SPEC_FILE = 'tests/feature.spec.ts';
const GITIGNORE = 'node_modules\n';

/** Builds and commits the project; nothing is installed yet (the run's setup does it). */
export function makeStack(options: StackOptions): Stack {
  const editsFile = agentEditsFile(options.app);
  writeFileSync(editsFile, JSON.stringify(options.edits));
  const config = {
    agent: { type: 'command', command: process.execPath, args: [stackAgent(), editsFile], timeoutSeconds: 60 },
    app: { readyTimeoutSeconds: 180, ...options.appConfig },
    // What a user of the setup cache writes (docs/performance.md): `npm ci` once, node_modules kept.
    setup: {
      command: 'npm ci --prefer-offline --no-audit --no-fund',
      timeoutSeconds: 600,
      cache: { key: ['package-lock.json'], paths: ['node_modules'] },
    },
    verifier: { type: 'playwright', timeoutSeconds: 300, args: ['--retries=0', `--timeout=${options.testTimeoutMs ?? 30_000}`] },
    maxRepairAttempts: 2,
    maxVerifierRetries: 1,
  };
  const task = {
    id: 'feature',
    title: `A feature of the ${options.app} app`,
    description: 'What the spec checks.',
    acceptanceCriteria: options.criteria.map((description, i) => ({ id: `AC-00${i + 1}`, description })),
    verification: { testFile: SPEC_FILE },
  };
  const root = tempRepo({
    ...fixtureFiles(options.app),
    '.gitignore': GITIGNORE,
    [TASK_FILE]: `${JSON.stringify(task, null, 2)}\n`,
    [SPEC_FILE]: options.spec,
    'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
    ...options.files,
  });
  // The user's own checkout has its dependencies installed (Elenchos lists the spec with them there).
  const clock = lap();
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: root, stdio: 'pipe' });
  clock(`npm ci of the ${options.app} app in the checkout`);
  return { root, base: gitSync(root, 'rev-parse', 'HEAD').trim(), gitignore: GITIGNORE };
}

/** Every file of the fixture app, as text. */
function fixtureFiles(app: string): Record<string, string> {
  const dir = path.join(STACKS, app);
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else out[name] = readFileSync(path.join(dir, name), 'utf8');
    }
  };
  walk('');
  return out;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI without blocking the test (so it can act while the run waits at a pause point).
 * `during` runs alongside; the result comes once both are done.
 */
export async function elenchos(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  during?: (child: { exited: () => boolean }) => Promise<void>,
): Promise<CliResult> {
  // Not vitest's NODE_ENV=test: a user's shell has none, and `next dev` under NODE_ENV=test rewrites
  // tsconfig.json (a locked input) at every start (docs/verification.md#which-writes-are-whose).
  const { NODE_ENV: _vitest, ...caller } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...caller, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited = false;
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  try {
    await during?.({ exited: () => exited });
  } catch (error) {
    child.kill('SIGINT');
    await done;
    throw error;
  }
  return { code: await done, stdout, stderr };
}

/** The records of every stored run, oldest first. */
export function storedRuns(root: string): Record<string, any>[] {
  const dir = path.join(root, '.elenchos/runs');
  return readdirSync(dir)
    .sort()
    .map((id) => JSON.parse(readFileSync(path.join(dir, id, 'run.json'), 'utf8')));
}

/** Logs how long each step took (the suite's durations are reported in docs/testing.md); STACKS_VERBOSE=1 adds the CLI's output. */
export function lap(): (step: string, output?: string) => void {
  let last = Date.now();
  return (step, output) => {
    const now = Date.now();
    console.log(`${step}: ${((now - last) / 1000).toFixed(1)} s`);
    if (output && process.env.STACKS_VERBOSE) console.log(output);
    last = now;
  };
}

const byId = (attempt: any) => Object.fromEntries(attempt.criteria.map((c: any) => [c.id, c.status]));

/**
 * The whole loop on the stack: `run` (attempt 1 FAIL on AC-002, the repair PASS: VERIFIED), `apply
 * --commit`, `verify` of the committed change (VERIFIED), and afterwards: .gitignore as the base has it,
 * no task flagged NEEDS_HUMAN, no process left in the repository.
 */
export async function expectVerifiedLoop(stack: Stack, env: NodeJS.ProcessEnv = {}, during?: Parameters<typeof elenchos>[3]) {
  const { root } = stack;
  const clock = lap();
  try {
    const run = await elenchos(['run', TASK_FILE], root, env, during);
    clock('run', run.stdout);
    const [record] = existsSync(path.join(root, '.elenchos/runs')) ? storedRuns(root) : [];
    expect(record?.state, `${run.stdout}\n${run.stderr}\n${record?.message ?? ''}`).toBe('VERIFIED');
    expect(run.code).toBe(0);
    expect(record!.attempts.map((a: any) => a.status)).toEqual(['FAIL', 'PASS']);
    expect(byId(record!.attempts[0])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    expect(byId(record!.attempts[1])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS' });

    const applied = runCli(['apply', record!.runId, '--commit'], root);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const verify = await elenchos(['verify', TASK_FILE], root, env);
    clock('verify', verify.stdout);
    const verified = storedRuns(root).at(-1)!;
    expect(verified.mode).toBe('verify');
    expect(verified.state, `${verify.stdout}\n${verify.stderr}\n${verified.message ?? ''}`).toBe('VERIFIED');
    expect(verify.code).toBe(0);

    // Nothing had to be ignored, and nothing was flagged.
    expect(gitSync(root, 'diff', stack.base, 'HEAD', '--', '.gitignore')).toBe('');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe(stack.gitignore);
    expect(gitSync(root, 'status', '--porcelain')).toBe('');
    const runs = JSON.parse(runCli(['runs', '--json'], root).stdout);
    expect(runs.needsHuman).toEqual([]);
    return { record: record!, verified };
  } finally {
    expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  }
}
