// `elenchos doctor`: is this machine and this repository ready for `run` and `verify`? One line per finding.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from '../../config/load-config.js';
import type { VerifierType } from '../../contract/task-schema.js';
import { ElenchosError, InterruptedError, PreflightError } from '../../errors.js';
import { preflight } from '../run/preflight.js';
import { Redactor } from '../../evidence/redact.js';
import { collectSecretValues } from '../../evidence/secret-values.js';
import { findRepoRoot } from '../../git/git.js';
import { dirtyPaths, filesInHead } from '../../git/status.js';
import { freePort } from '../../process/free-port.js';
import { checkTasks, type TaskCheck } from '../check.js';
import { findVerifierInputs } from '../lock/verifier-inputs.js';
import { resolveTask } from '../resolve-task.js';
import { selectTasks } from '../select-tasks.js';
import { DOCTOR_DIR, probeApp } from './app-probe.js';
import { fail, ok, warn, type DoctorCheck } from './doctor-check.js';
import { checkLocalDependencies } from './local-dependencies.js';
import { checkSandbox } from './sandbox-check.js';
import { checkNextDevOrigin } from './next-dev-check.js';
import { signingKeyExposure } from '../key-exposure.js';
import { checkAgent, checkChromium, checkGit, checkNode, checkVerifier } from './tool-checks.js';

export interface DoctorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  configFile?: string;
  /** Skip the app probe (it starts the app, which may take a while). */
  skipApp?: boolean;
  signal: AbortSignal;
}

export interface DoctorReport {
  /** No check failed (warnings allowed). */
  ok: boolean;
  root: string;
  checks: DoctorCheck[];
}

/** Runs every check in order; never stops at the first problem, never throws for the user's mistakes. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { env } = options;
  const checks: DoctorCheck[] = [checkNode()];
  const git = await checkGit(options.cwd, env);
  checks.push(git);
  const root = git.status === 'ok' ? await findRepoRoot(options.cwd) : null;
  if (root === null) {
    if (git.status === 'ok')
      checks.push(
        fail(
          'repository',
          `${options.cwd} is not inside a git repository`,
          "run elenchos doctor in your project's checkout (git init and commit first)",
        ),
      );
    return report(options.cwd, checks);
  }
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({ root, file: options.configFile, env });
    checks.push(ok('config', loaded.path ? loaded.label : 'no elenchos.config.json: defaults only (elenchos init writes one)'));
  } catch (error) {
    checks.push(...problemChecks('config', error, 'fix the key named (docs/config.md lists every key)'));
    return report(root, checks);
  }
  // The sandbox first: doctor's app probe runs in it as a run's app would ("auto" resolved).
  const sandbox = await checkSandbox(loaded.config.agent.sandbox);
  const config = { ...loaded.config, agent: { ...loaded.config.agent, sandbox: sandbox.mode } };
  // With no verifier.type, each task's test file names its verifier (see inferVerifier): the tasks add them below.
  const verifiers = new Set<VerifierType>(config.verifier.type ? [config.verifier.type] : []);
  const files = await selectTasks(config.tasks, root);
  let locked: string[] = [];
  if (files.length === 0) {
    checks.push(
      fail(
        'tasks',
        `no task contract matches tasks ${JSON.stringify(config.tasks)}`,
        'write one (elenchos init scaffolds an example) or fix "tasks" in the config',
      ),
    );
  } else {
    const checked = await checkTasks({ cwd: root, files, configFile: options.configFile, env });
    for (const task of checked.tasks) {
      if (task.verifier) verifiers.add(task.verifier as VerifierType);
      if (task.ok) checks.push(ok('task', `${task.file}: ${task.criteria.length} criteria, each verified by a step of ${task.testFile}`));
      else
        for (const problem of task.problems) {
          // A problem of another file (a tsconfig the spec extends) carries its own fix, naming that file.
          const own = problem.lastIndexOf('; fix: ');
          if (own > 0) checks.push(fail('task', problem.slice(0, own), problem.slice(own + '; fix: '.length)));
          else checks.push(fail('task', problem, `edit ${task.file} or its test; elenchos check ${task.file} shows the mapping`));
        }
    }
    const contracts = checked.tasks
      .filter((t) => t.ok)
      .flatMap((t) => [t.file, t.testFile ?? ''])
      .filter(Boolean);
    locked = await lockedFiles(root, loaded, checked.tasks, env);
    // run's and verify's own preflight, for every valid task: doctor's "all well" means they will not refuse.
    // (What doctor has a line of its own for is left to that line: the verifier, the agent, and the app's {port} when it probes the app.)
    const own = new Set(['VERIFIER_NOT_FOUND', 'AGENT_NOT_FOUND', 'NO_AGENT_COMMAND', ...(options.skipApp ? [] : ['APP_PORT_MISMATCH'])]);
    const redactor = new Redactor({
      values: collectSecretValues({ env, redactEnv: loaded.config.redact, variables: loaded.config.verifier.variables }),
    });
    for (const task of checked.tasks.filter((t) => t.ok)) {
      const found = await preflightCheck(root, task.file, options, own);
      if (found) checks.push({ ...found, message: redactor.redactText(found.message), fix: found.fix && redactor.redactText(found.fix) });
    }
    const uncommitted = await uncommittedFiles(root, contracts);
    if (uncommitted.length > 0) {
      checks.push(
        warn(
          'committed',
          `not committed as they are: ${uncommitted.join(', ')}`,
          'git add and commit them before elenchos run or verify (a run locks the committed contract)',
        ),
      );
    }
  }
  for (const type of verifiers) {
    checks.push(...(await checkVerifier(type, config, root, env)));
    if (type !== 'command') checks.push(await checkChromium(type, config, root, env));
  }
  checks.push(await checkAgent(config, root, env));
  checks.push(sandbox.check);
  const exposed = signingKeyExposure(env, sandbox.mode);
  if (exposed) checks.push(warn('signing key', exposed.message, exposed.fix));
  checks.push(await checkPort(config.app.port));
  const nextDev = await checkNextDevOrigin(root, config.app);
  if (nextDev) checks.push(nextDev);
  // Before the probe: its setup would fail on such a dependency, and this says why.
  checks.push(...(await checkLocalDependencies(root, config.setup.command)));
  if (!options.skipApp) {
    const probe = await probeApp({ root, config, configLabel: loaded.label, env, signal: options.signal, locked });
    // The app's log may echo a secret (a .env it read): neither the terminal nor the kept log shows it.
    const redactor = new Redactor({ values: collectSecretValues({ env, redactEnv: config.redact, variables: config.verifier.variables }) });
    const logs = path.join(root, DOCTOR_DIR);
    if (existsSync(logs)) await redactor.redactTree(logs);
    for (const check of probe)
      checks.push({
        ...check,
        message: redactor.redactText(check.message),
        fix: check.fix === null ? null : redactor.redactText(check.fix),
        details: check.details.map((line) => redactor.redactText(line)),
      });
    if (options.signal.aborted) throw new InterruptedError('interrupted while the app was starting');
  }
  return report(root, checks);
}

/**
 * What `run` checks before its agent starts, for one task (the tree may be dirty: the `committed` line
 * says so): the committed verifier inputs, the test lock, the ports, the app's settings, the verifier.
 */
async function preflightCheck(
  root: string,
  taskFile: string,
  options: DoctorOptions,
  own: ReadonlySet<string>,
): Promise<DoctorCheck | null> {
  try {
    await preflight({
      cwd: root,
      repoRoot: root,
      taskFile,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      env: options.env,
      needsAgent: false,
      requireClean: false,
    });
    return ok('preflight', `${taskFile}: run and verify start (committed inputs, test lock, app settings, verifier)`);
  } catch (error) {
    if (!(error instanceof PreflightError)) throw error;
    if (own.has(error.reason)) return null;
    const cut = error.message.lastIndexOf('; ');
    const [message, fix] =
      cut > 0
        ? [error.message.slice(0, cut), error.message.slice(cut + 2)]
        : [error.message, `elenchos run ${taskFile} refuses until it is fixed`];
    return fail('preflight', `${taskFile}: ${message}`, fix, [...error.details]);
  }
}

/** What a run of each valid task locks (contract, test lock, what its verifier reads), repository-relative. */
async function lockedFiles(root: string, loaded: LoadedConfig, tasks: TaskCheck[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const files = new Set<string>();
  for (const task of tasks.filter((t) => t.ok)) {
    for (const file of [task.file, task.testFile, task.lock]) if (file) files.add(file);
    const resolved = await resolveTask(path.resolve(root, task.file), root, loaded.config, env).catch(() => null);
    if (resolved) for (const file of (await findVerifierInputs(root, resolved, loaded.config)).files) files.add(file);
  }
  return [...files].sort();
}

function report(root: string, checks: DoctorCheck[]): DoctorReport {
  return { ok: checks.every((c) => c.status !== 'fail'), root, checks };
}

function problemChecks(name: string, error: unknown, fix: string): DoctorCheck[] {
  if (!(error instanceof ElenchosError)) throw error;
  const lines = error.details.length > 0 ? error.details : [error.message];
  return lines.map((line) => fail(name, line, fix));
}

/** A fixed app.port must be free now; port 0 needs the kernel to hand out loopback ports. */
async function checkPort(port: number): Promise<DoctorCheck> {
  if (port === 0) {
    const sample = await freePort();
    return ok('port', `app.port 0: a free loopback port per run (e.g. ${sample})`);
  }
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  if (free) return ok('port', `app.port ${port} is free`);
  return fail(
    'port',
    `app.port ${port} is in use`,
    'stop what listens there, or set app.port to 0 (a free port per run; use {port} in app.command and app.url)',
  );
}

/** Contract files that a run would refuse: missing from HEAD, or changed since. */
async function uncommittedFiles(root: string, files: readonly string[]): Promise<string[]> {
  const inHead = await filesInHead(root, files);
  const dirty = new Set(await dirtyPaths(root));
  return [...new Set(files)].filter((file) => !inHead.has(file) || dirty.has(file));
}
