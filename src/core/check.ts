// `elenchos check`: validate tasks, config, test files and the criteria ↔ steps mapping, all at once.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { costCapProblem } from '../agents/cost-cap.js';
import { appPortProblems } from '../config/app-port-rule.js';
import { loadConfig, type LoadedConfig } from '../config/load-config.js';
import { checkSetupCopy } from '../config/setup-copy.js';
import type { MappedStep } from '../contract/criteria-map.js';
import { loadTask } from '../contract/load-task.js';
import { ElenchosError, describeError } from '../errors.js';
import { repoRootOrCwd, withGitEnvironment } from '../git/git.js';
import { checkJsonInputs } from './json-inputs.js';
import { howToVerify } from './lock/mapping-hint.js';
import { resolveTask, type ResolvedTask } from './resolve-task.js';
import { selectTasks } from './select-tasks.js';
import { findVerifierInputs } from './lock/verifier-inputs.js';
import { checkTestLock } from './lock/test-lock-check.js';
import { trackedSetupCopies } from './workspace/setup-copy-tracked.js';
import { lockedTasksLeftOut } from './lock/locked-task-set.js';
import { resolveCommit } from '../git/commit-files.js';
import { dirtyPaths } from '../git/status.js';
import { verifierInvocation } from './run/verify-context.js';
import { weakeningArgProblem } from '../verifiers/playwright/weakening-args.js';

export interface CheckOptions {
  cwd: string;
  /** Task files; none means the config's `tasks` globs (what `elenchos verify` would check). */
  files: string[];
  configFile?: string;
  /** The caller's environment: the config's variables, a listing verifier's child, git. */
  env: NodeJS.ProcessEnv;
  /** `--lock-base <ref>`: also refuse a test lock changed since then without its contract. */
  lockBase?: string;
  /** Each task's result as soon as it is checked (doctor prints a line per task as it goes). */
  onTask?: (task: TaskCheck) => void;
  /** The repository root (else cwd), when the caller already asked git for it (the check command does, first). */
  root?: Promise<string>;
}

export interface TaskCheck {
  file: string;
  ok: boolean;
  id: string | null;
  title: string | null;
  verifier: string | null;
  testFile: string | null;
  steps: MappedStep[];
  criteria: { id: string; description: string; steps: number[] }[];
  problems: string[];
  /** The task's test lock (`<task>.lock.json`), or null when it has none. */
  lock: string | null;
  /** What a reviewer may want to know but breaks nothing (a test changed with its assertions kept). */
  notes: string[];
  /** Not errors (the task can run), but worth a look: a test that names no criterion. */
  warnings: string[];
}

export interface CheckReport {
  ok: boolean;
  root: string;
  config: { file: string; ok: boolean; problems: string[] };
  tasks: TaskCheck[];
}

/** Checks every task file and the config, collecting every problem instead of stopping at the first. */
export function checkTasks(options: CheckOptions): Promise<CheckReport> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => checkTasksInScope(options));
}

async function checkTasksInScope(options: CheckOptions): Promise<CheckReport> {
  const root = await (options.root ?? repoRootOrCwd(options.cwd));
  let loaded: LoadedConfig | null = null;
  const configProblems: string[] = [];
  try {
    loaded = await loadConfig({ root, file: options.configFile, env: options.env });
    configProblems.push(...appPortProblems(loaded.config.app, loaded.label));
    // A plain run uses `agent` alone: a cap it cannot report is refused. A named agent that reports no
    // dollars is no problem by itself: a best-of run refuses the cap only when none of its candidates'
    // agents reports dollars (run --agents decides which run, so that is checked when it starts).
    const costCap = costCapProblem(loaded.config, loaded.label);
    if (costCap) configProblems.push(costCap);
    configProblems.push(...(await checkSetupCopy(loaded.config.setup.copy, root, loaded.label)).problems);
    configProblems.push(...(await trackedSetupCopies(loaded.config.setup.copy, root, loaded.label)));
  } catch (error) {
    configProblems.push(...problemLines(error));
  }
  const tasks: TaskCheck[] = [];
  const files =
    options.files.length > 0 ? options.files.map((f) => path.resolve(options.cwd, f)) : await configuredTasks(root, loaded, configProblems);
  for (const file of files) {
    const task = await checkOne(file, root, loaded, options.lockBase, options.env);
    tasks.push(task);
    options.onTask?.(task);
  }
  // The config's own selection (not files named on the command line) may not drop a locked task.
  if (options.files.length === 0 && loaded && (await resolveCommit(root, 'HEAD'))) {
    const selected = files.map((f) => path.relative(root, f).split(path.sep).join('/'));
    configProblems.push(...(await lockedTasksLeftOut(root, 'HEAD', selected, { configLabel: loaded.label, base: options.lockBase })));
  }
  const ok = configProblems.length === 0 && tasks.every((t) => t.ok);
  return {
    ok,
    root,
    config: {
      file: loaded?.label ?? options.configFile ?? 'elenchos.config.json',
      ok: configProblems.length === 0,
      problems: configProblems,
    },
    tasks,
  };
}

async function checkOne(
  file: string,
  root: string,
  loaded: LoadedConfig | null,
  lockBase: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TaskCheck> {
  const shown = path.relative(root, file).startsWith('..') ? file : path.relative(root, file).split(path.sep).join('/');
  const result: TaskCheck = {
    file: shown,
    ok: false,
    id: null,
    title: null,
    verifier: null,
    testFile: null,
    steps: [],
    criteria: [],
    problems: [],
    lock: null,
    notes: [],
    warnings: [],
  };
  if (!loaded) {
    // The contract's own problems do not wait for the config's to be fixed.
    const own = await loadTask(file, { root }).then(
      () => [],
      (error: unknown) => problemLines(error),
    );
    result.problems.push(...own, 'not checked further (its test and mapping): the configuration is invalid');
    return result;
  }
  try {
    const resolved = await resolveTask(file, root, loaded.config, env);
    const { task, map } = resolved;
    Object.assign(result, {
      id: task.id,
      title: task.title,
      verifier: resolved.verifierType,
      testFile: resolved.testFileLabel,
      steps: map.steps,
      criteria: task.acceptanceCriteria.map((c) => ({ id: c.id, description: c.description, steps: map.byCriterion.get(c.id) ?? [] })),
    });
    const where = `${resolved.label}: ${resolved.testFileLabel}`;
    const invocation = verifierInvocation(loaded.config, resolved);
    const weakening =
      resolved.verifierType === 'playwright' ? weakeningArgProblem(invocation.args, loaded.label, invocation.command) : null;
    if (weakening) result.problems.push(weakening);
    const inputs = await findVerifierInputs(root, resolved, loaded.config);
    result.problems.push(...inputs.unresolved, ...(await checkJsonInputs(root, inputs.files)));
    if (map.steps.length === 0) result.problems.push(`${where}: has no steps (a step starts at a line beginning with "## ")`);
    for (const id of map.unmapped) {
      result.problems.push(
        `${resolved.label}: criterion ${id} is verified by no step; ${howToVerify(resolved.verifierType, id, resolved.testFileLabel)}`,
      );
    }
    // An untagged test decides nothing: its failure is never a FAIL (no criterion failed) but keeps the attempt from PASS.
    for (const step of map.steps.filter((s) => s.criteria.length === 0 && !map.unknown.some((u) => u.step === s.index))) {
      const what = resolved.verifierType === 'playwright' ? 'test' : 'step';
      result.warnings.push(
        `${where}: ${what} ${step.index} ("${step.heading}") names no criterion: it never decides a criterion, and if it fails the attempt is INCONCLUSIVE, never PASS`,
      );
    }
    for (const u of map.unknown) {
      const fix = u.suggestion ? `did you mean ${u.suggestion}?` : 'add the criterion to the contract or fix the id';
      result.problems.push(
        `${where}: step ${u.step} ("${u.heading}") says @verifies ${u.id}, which is not a criterion of this task; ${fix}`,
      );
    }
    if (resolved.verifierType === 'playwright') result.warnings.push(...(await fixedHostWarnings(resolved)));
    const lock = await checkTestLock(root, resolved, {
      base: lockBase,
      configFile: loaded.path ?? undefined,
      dirty: () => dirtyPaths(root),
    });
    result.lock = lock.file;
    result.problems.push(...lock.problems);
    result.notes.push(...lock.notes);
  } catch (error) {
    result.problems.push(...problemLines(error));
  }
  result.ok = result.problems.length === 0;
  return result;
}

/** A spec's `page.goto('http://localhost:5173')`: it runs, but against whatever listens there, never the app. */
async function fixedHostWarnings(resolved: ResolvedTask): Promise<string[]> {
  const source = await readFile(resolved.testFilePath, 'utf8').catch(() => null);
  if (source === null) return [];
  const { findFixedHostGotos, fixedHostWarning } = await import('../verifiers/playwright/fixed-host.js');
  return findFixedHostGotos(source, resolved.testFilePath).map((call) => fixedHostWarning(resolved.testFileLabel, call));
}

/** The config's `tasks` globs from the repository root; none found is a problem (nothing would be verified). */
async function configuredTasks(root: string, loaded: LoadedConfig | null, problems: string[]): Promise<string[]> {
  if (!loaded) return [];
  const files = await selectTasks(loaded.config.tasks, root);
  if (files.length === 0) {
    const where = loaded.path ? `${loaded.label}: tasks` : 'the default tasks (no elenchos.config.json)';
    problems.push(
      `no task contract matches ${where} (${loaded.config.tasks.join(', ')}); write one there, set "tasks", or name the files: elenchos check <task.json...>`,
    );
  }
  return files;
}

function problemLines(error: unknown): string[] {
  if (error instanceof ElenchosError) return error.details.length > 0 ? [...error.details] : [error.message];
  throw error instanceof Error ? error : new Error(describeError(error));
}
