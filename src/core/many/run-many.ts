// `elenchos run <task…>`: several tasks in one command, each a full run (its own worktree, app, port, repair
// loop and evidence; best-of per task), at most `parallel` runs at once, the warm pool and the setup cache
// shared; or, with a shard, only this machine's share of the plan (docs/scale.md).
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../config/load-config.js';
import { PORT_PLACEHOLDER } from '../../config/port-placeholder.js';
import { DiskFullError, ElenchosError, InputError, PreflightError, describeError } from '../../errors.js';
import type { RunGroup } from '../../evidence/run-group.js';
import type { RunRecord } from '../../evidence/run-record.js';
import { newRunId } from '../../evidence/run-id.js';
import { findRepoRoot } from '../../git/git.js';
import { mapLimit } from '../../util/map-limit.js';
import type { FinalRunState } from '../../states.js';
import { openBestOf, planBestOf, type BestOfResult, type OpenBestOf, type PlannedBestOf } from '../best-of/run-best-of.js';
import type { RunReporter } from '../events.js';
import { worstExitCode } from '../run/decide.js';
import { preflight } from '../run/preflight.js';
import { runTask, type RunTaskOptions } from '../run/run-task.js';
import { selectTasks, type Shard } from '../select-tasks.js';
import { labelOf } from '../verify/shard-metadata.js';
import { buildPlan, shareOfPlan, type PlanEntry } from './plan.js';

export interface RunManyOptions extends Pick<RunTaskOptions, 'cwd' | 'configFile' | 'env' | 'overrides' | 'signal'> {
  /** Task files or globs; empty: the config's `tasks`. */
  tasks: string[];
  /** Best-of per task (docs/best-of.md). */
  agents?: string[];
  bestOf?: number;
  /** Runs at once over the whole command (a plain task's run or one candidate each; default: the cores). */
  parallel?: number;
  stopAtFirst?: boolean;
  /** Only this share of the plan (`--shard i/n`). */
  shard?: Shard;
  /** Progress of one task's run (candidate null) or of one of its candidates. */
  reporterFor: (task: string, candidate: string | null) => RunReporter;
  /** A line about the command itself (a candidate started, stopped…). */
  onLine?: (line: string) => void;
  /** Told as each task ends, in the order they end. */
  onTaskEnd?: (task: TaskOutcome) => void;
}

/** How one task of the command ended: its sealed record, or why it has none. */
export interface TaskOutcome {
  /** The task file, repository-relative. */
  task: string;
  record: RunRecord | null;
  runDir: string | null;
  exitCode: number;
  /** Why no run exists (refused after others had started, or never started: Ctrl-C came first). */
  notRun: string | null;
}

export interface RunManyResult {
  root: string;
  group: RunGroup;
  /** The whole plan, and this command's share of it (the whole plan without a shard). */
  plan: PlanEntry[];
  share: PlanEntry[];
  /** The best-of plan's candidate names (null: plain runs), as every share must agree on. */
  candidates: string[] | null;
  /** Every task of the plan, sorted (repository-relative). */
  allTasks: string[];
  /** The config file used (absolute), null for defaults. */
  configPath: string | null;
  head: string;
  /** The tasks of this share, in plan order. */
  tasks: TaskOutcome[];
  state: FinalRunState;
  exitCode: number;
}

interface PlannedTask {
  file: string;
  label: string;
  bestOf: PlannedBestOf | null;
  head: string;
}

/** Plans every task (refusing bad input before any run starts), then runs this share of the plan. */
export async function runMany(options: RunManyOptions): Promise<RunManyResult> {
  const root = await findRepoRoot(options.cwd);
  if (root === null)
    throw new PreflightError(
      'NOT_A_REPOSITORY',
      `${options.cwd} is not inside a git repository; run elenchos from your project's checkout`,
    );
  const { config, path: configPath } = await loadConfig({ root, file: options.configFile, env: options.env, overrides: options.overrides });
  const patterns = options.tasks.length > 0 ? options.tasks : config.tasks;
  const files = await selectTasks(patterns, options.tasks.length > 0 ? options.cwd : root);
  if (files.length === 0)
    throw new InputError(`no task contract matched ${patterns.join(', ')}; pass task files or set "tasks" in elenchos.config.json`);
  const parallel = options.parallel ?? availableParallelism();
  if (parallel > 1 && (config.app.port !== 0 || !config.app.url.includes(PORT_PLACEHOLDER)))
    throw new InputError(
      '--parallel needs a free port per run: set app.port to 0 and use {port} in app.url (and in app.command, or read PORT)',
    );
  const planned = await planTasks(options, files, root);
  const head = planned[0]!.head;
  const moved = planned.find((t) => t.head !== head);
  if (moved) throw new InputError(`HEAD moved while the tasks were checked (${moved.label}); start again`);
  const candidates = planned[0]!.bestOf ? planned[0]!.bestOf.plan.map((c) => c.name) : null;
  const plan = buildPlan(
    planned.map((t) => t.label),
    candidates,
  );
  const share = options.shard ? shareOfPlan(plan, options.shard) : plan;
  const inShare = planned.filter((t) => share.some((e) => e.task === t.label));
  const group: RunGroup = {
    id: newRunId(),
    kind: options.shard ? 'share' : 'tasks',
    tasks: inShare.length,
    ...(options.shard ? { share: { index: options.shard.index, total: options.shard.count } } : {}),
  };
  const outcomes = await runShare(options, { inShare, share, group, parallel });
  const exitCode = options.signal.aborted ? 130 : worstExitCode(outcomes.map((o) => o.exitCode));
  return {
    root,
    group,
    plan,
    share,
    candidates,
    allTasks: planned.map((t) => t.label),
    configPath,
    head,
    tasks: outcomes,
    state: overallState(outcomes),
    exitCode: outcomes.length === 0 ? 0 : exitCode,
  };
}

/** Each task checked as its run would check it (config, contract, agent, clean checkout), nothing written. */
async function planTasks(options: RunManyOptions, files: readonly string[], root: string): Promise<PlannedTask[]> {
  const bestOf = options.agents !== undefined || options.bestOf !== undefined;
  const planned: PlannedTask[] = [];
  for (const file of files) {
    const label = labelOf(root, file);
    const common = { cwd: options.cwd, taskFile: file, configFile: options.configFile, env: options.env, overrides: options.overrides };
    if (bestOf) {
      const p = await planBestOf({
        ...common,
        signal: options.signal,
        agents: options.agents,
        bestOf: options.bestOf,
        // Recorded in each task's run.json: the runs at once over the whole command.
        parallel: options.parallel,
        reporterFor: () => NO_REPORTER,
      });
      planned.push({ file, label, bestOf: p, head: p.pre.head });
    } else {
      const pre = await preflight({ ...common, needsAgent: true, costCap: true, requireClean: true, repoRoot: root });
      planned.push({ file, label, bestOf: null, head: pre.head });
    }
  }
  return planned;
}

const NO_REPORTER: RunReporter = { onEvent: () => undefined };

interface ShareRun {
  inShare: PlannedTask[];
  share: PlanEntry[];
  group: RunGroup;
  parallel: number;
}

/** Runs the share's entries `parallel` at a time; a task is finished (chosen, sealed, told) when its last entry ends. */
async function runShare(options: RunManyOptions, run: ShareRun): Promise<TaskOutcome[]> {
  const outcomes = new Map<string, TaskOutcome>();
  const opened = new Map<string, OpenBestOf>();
  const left = new Map<string, number>();
  for (const t of run.inShare) {
    const entries = run.share.filter((e) => e.task === t.label);
    left.set(t.label, entries.length);
    if (!t.bestOf) continue;
    const mine = t.bestOf.plan.filter((c) => entries.some((e) => e.candidate === c.name));
    opened.set(t.label, await openBestOf(bestOfOptions(options, t, run.group), t.bestOf, mine));
  }
  const byLabel = new Map(run.inShare.map((t) => [t.label, t]));
  const ended = (outcome: TaskOutcome) => {
    outcomes.set(outcome.task, outcome);
    options.onTaskEnd?.(outcome);
  };
  await mapLimit(run.share, Math.max(1, run.parallel), async (entry) => {
    const task = byLabel.get(entry.task)!;
    const open = opened.get(entry.task);
    if (open) {
      await open.runCandidate(open.plan.find((c) => c.name === entry.candidate)!);
      left.set(entry.task, left.get(entry.task)! - 1);
      if (left.get(entry.task) === 0) ended(fromBestOf(entry.task, await open.finish()));
      return;
    }
    ended(await runPlain(options, task, run.group));
  });
  return run.inShare.map((t) => outcomes.get(t.label)!);
}

function bestOfOptions(options: RunManyOptions, t: PlannedTask, group: RunGroup) {
  return {
    cwd: options.cwd,
    taskFile: t.file,
    configFile: options.configFile,
    env: options.env,
    overrides: options.overrides,
    signal: options.signal,
    agents: options.agents,
    bestOf: options.bestOf,
    stopAtFirst: options.stopAtFirst,
    group,
    reporterFor: (name: string) => options.reporterFor(t.label, name),
    onLine: (line: string) => options.onLine?.(`${t.label}: ${line}`),
  };
}

/** One plain run; a task whose turn comes after Ctrl-C is not started, and one refused now is told, not thrown. */
async function runPlain(options: RunManyOptions, t: PlannedTask, group: RunGroup): Promise<TaskOutcome> {
  if (options.signal.aborted)
    return { task: t.label, record: null, runDir: null, exitCode: 130, notRun: 'not started: interrupted (Ctrl-C)' };
  try {
    const result = await runTask({
      cwd: options.cwd,
      taskFile: t.file,
      configFile: options.configFile,
      env: options.env,
      overrides: options.overrides,
      signal: options.signal,
      reporter: options.reporterFor(t.label, null),
      group,
    });
    return { task: t.label, record: result.record, runDir: result.runDir, exitCode: result.exitCode, notRun: null };
  } catch (error) {
    // Checked before anything started, so only what changed since (HEAD moved, the checkout got dirty) lands here.
    if (!(error instanceof ElenchosError) || error instanceof DiskFullError) throw error;
    return { task: t.label, record: null, runDir: null, exitCode: error.exitCode, notRun: describeError(error) };
  }
}

function fromBestOf(task: string, result: BestOfResult): TaskOutcome {
  return { task, record: result.record, runDir: result.runDir, exitCode: result.exitCode, notRun: null };
}

/** VERIFIED only when every task is; else the worst state of any (a task with no run counts as ERROR). */
function overallState(outcomes: readonly TaskOutcome[]): FinalRunState {
  const states = outcomes.map((o) => (o.record && o.record.state !== 'RUNNING' ? o.record.state : 'ERROR'));
  if (states.includes('ERROR')) return 'ERROR';
  if (states.includes('FAILED')) return 'FAILED';
  return 'VERIFIED';
}
