// `elenchos run`: the isolated, contract-locked, self-repairing loop (docs/verification.md#the-loop).
import { withGitEnvironment } from '../../git/git.js';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { DiskFullError, ExitCode, InputError, describeError } from '../../errors.js';
import { childLogPath, runDir as runDirOf, workspacesDir } from '../../evidence/layout.js';
import { newRunId } from '../../evidence/run-id.js';
import { Redactor } from '../../evidence/redact.js';
import { isDiskFull, recordChild, withRunScope } from '../../process/run-scope.js';
import { ensureExcluded } from '../../git/worktree.js';
import { releaseHeldObjects } from '../../git/object-quarantine.js';
import { lockContract } from '../lock/contract-lock.js';
import type { RunReporter } from '../events.js';
import { finishRun, startRunRecord, type RunRecordDraft } from './run-record-writer.js';
import { exitCodeFor } from './decide.js';
import { preflight, type Preflight } from './preflight.js';
import { buildRunContext, type RunPlace } from './shared-context.js';
import { announceRun } from './run-start.js';
import { setUpAndAttempt } from './set-up-and-attempt.js';
import type { CheckoutState } from '../../git/status.js';
import { loadSigningKey, loadedSigningKey } from '../../util/signing-key.js';
import { redactValue, redactingReporter, runSecretValues } from './run-secrets.js';
import { ensureMachineCacheKey } from '../workspace/setup-cache-auth.js';
import { cacheKeyPath } from '../../util/secret-paths.js';
import type { AttemptRecord, ReplaySource, Terminal } from './run-context.js';
import type { RunGroup } from '../../evidence/run-group.js';
import type { GuardName, RunMode } from '../../states.js';
import { describeMissing, holdToPlan, summarizeGuards } from './guards-stood.js';
import { lookAtStart } from './guards-at-start.js';
import { RunGuard } from './run-guard.js';
import { Teardowns } from './teardown.js';
import { pauseForTest } from '../test-pause.js';
import { BudgetTracker } from './budget.js';

export interface RunTaskOptions {
  cwd: string;
  taskFile: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Flag values as a partial config (`maxRepairAttempts`, `retainWorkspace`, …). */
  overrides?: Record<string, unknown>;
  signal: AbortSignal;
  reporter: RunReporter;
  /** `verify`: no agent, no repair, the committed code as it is (docs/ci.md). Default `run`. */
  mode?: RunMode;
  /** verify only: use the checkout itself instead of a worktree (it must be clean). */
  inPlace?: boolean;
  /** The caller already checked that the checkout was clean (verify --in-place of several tasks). */
  cleanChecked?: boolean;
  /** `--lock-base <ref>`: refuse a test lock changed since then without its contract. */
  lockBase?: string;
  /** The repository's top level containing `cwd`, when the caller already found it (not asked again per task). */
  repoRoot?: string;
  /** `verify`: the checkout's HEAD and status, read once for every task (all verify the same commit). */
  checkout?: CheckoutState;
  /** `verify --require`: guards the verdict must stand on besides the config's (docs/verification.md#what-stood-behind-a-verdict). */
  requireGuards?: readonly GuardName[];
  /** Best-of (src/core/best-of/): this run is one candidate of a larger run, which chose its folder, locked the contract once and holds the shared budget. */
  candidate?: CandidateSlot;
  /** The command's group (several tasks, a share, a join), recorded in run.json (docs/scale.md). */
  group?: RunGroup;
  /** A join's re-verification: apply this stored change where the agent would work; no agent runs, no repair. */
  replay?: ReplaySource;
}

/** What a best-of run hands each of its candidates. */
export interface CandidateSlot {
  runId: string;
  /** The candidate's folder inside the best-of run's folder. */
  dir: string;
  /** The commit every candidate starts from (HEAD when the best-of run began). */
  base: string;
  /** The contract as locked once, before any candidate started. */
  locked: Awaited<ReturnType<typeof lockContract>>;
  /** Caps over the whole best-of run; its totals are this candidate's. */
  budget: BudgetTracker;
  /** Why the best-of run stopped this candidate (--stop-at-first), asked once its signal aborted; null for Ctrl-C. */
  stopReason?: () => string | null;
}

export interface RunTaskResult {
  record: RunRecordDraft;
  runDir: string;
  exitCode: number;
}

/** Runs a task from a clean repository to VERIFIED, FAILED or ERROR, with evidence. Throws only before a run exists, or when a full disk leaves nothing to seal it with. */
export function runTask(options: RunTaskOptions): Promise<RunTaskResult> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => runTaskInScope(options));
}

async function runTaskInScope(options: RunTaskOptions): Promise<RunTaskResult> {
  const mode = options.mode ?? 'run';
  // Read now (the CLI already did, before anything ran): a key file rewritten during the run signs nothing.
  signingKeyOrLoad(options.env, options.cwd);
  const inPlace = mode === 'verify' && options.inPlace === true;
  // A worktree of HEAD does not care about uncommitted changes in the checkout; an agent or --in-place does.
  // A join's replay was checked by the join a moment before, with these options: not asked of git twice.
  const pre =
    options.replay?.checked ??
    (await preflight({
      ...options,
      // A replay runs no agent: the joining machine need not have it.
      needsAgent: mode === 'run' && !options.replay,
      // A candidate's agent is one of several: its best-of run checked the cap over all of them.
      costCap: mode === 'run' && !options.candidate && !options.replay,
      requireClean: mode === 'run' || (inPlace && !options.cleanChecked),
    }));
  const { root } = pre;
  if (options.candidate && options.candidate.base !== pre.head)
    throw new InputError(`HEAD moved from ${options.candidate.base.slice(0, 12)} while the candidates ran; start the run again`);
  const runId = options.candidate?.runId ?? newRunId();
  const dir = options.candidate?.dir ?? runDirOf(root, runId);
  const workspace = inPlace ? root : path.join(workspacesDir(root), runId);
  try {
    await ensureExcluded(root);
    await mkdir(dir, { recursive: true });
    const guard = new RunGuard(options.signal, root, childLogPath(dir), options.candidate?.stopReason);
    try {
      return await withRunScope(guard.scope, () => runInScope(options, pre, { runId, dir, workspace, mode, inPlace, guard }));
    } finally {
      guard.dispose();
    }
  } catch (error) {
    if (isDiskFull(error))
      throw new DiskFullError(
        `the disk is full: the run record in ${path.relative(root, dir) || dir} could not be written or sealed (${describeError(error)}); free some space, then run elenchos gc`,
        { cause: error },
      );
    throw error;
  }
}

async function runInScope(options: RunTaskOptions, pre: Preflight, place: RunPlace): Promise<RunTaskResult> {
  const { config, resolved } = pre;
  const { runId, dir, mode, guard } = place;
  // The setup cache's key exists before any sandbox starts: a sandbox hides only paths that exist.
  if (config.setup.cache) ensureMachineCacheKey(cacheKeyPath(options.env));
  // Every line printed (the [agent] lines end up in CI logs) goes through the run's redaction.
  const redactor = new Redactor({ values: runSecretValues(config, resolved.task, options.env) });
  const reporter = redactingReporter(options.reporter, redactor);
  recordChild(process.pid, 'elenchos');
  const ctx = await buildRunContext(
    {
      env: options.env,
      requireGuards: options.requireGuards,
      replay: options.replay,
      locked: options.candidate?.locked,
      budget: options.candidate?.budget,
    },
    pre,
    place,
    { reporter, redactor },
  );
  const draft = await startRunRecord(ctx, {
    configFile: pre.loaded.path,
    host: hostname(),
    keep: config.retainWorkspace,
    group: options.group,
  });
  const plan = ctx.guardPlan;
  const atStart = lookAtStart(plan, !place.inPlace);
  announceRun(ctx, atStart.blind);
  const teardowns = new Teardowns();
  // Last of all: the agent's objects, held out of the store while the run lasted, join it. A best-of
  // candidate's wait for the best-of run's end, so that no rival sees them (best-of/run-best-of.ts).
  if (!options.candidate)
    teardowns.add("move the run's objects into the repository", async () => void (await releaseHeldObjects(ctx.root, runId)));
  const attempts: AttemptRecord[] = [];
  // A guard the verdict needs that cannot stand ends the run now: nothing it would do could be VERIFIED.
  const blocking = atStart.blind.filter((b) => b.required);
  const terminal: Terminal =
    blocking.length > 0
      ? { state: 'ERROR', reason: 'GUARD_MISSING', message: describeMissing(blocking) }
      : holdToPlan(
          await setUpAndAttempt(ctx, { signal: options.signal, inPlace: place.inPlace, guard, teardowns, attempts, draft }),
          plan,
          attempts.at(-1) ?? null,
        );
  draft.guards = summarizeGuards(plan, attempts.at(-1) ?? null, atStart.guards);
  await pauseForTest('teardown', options.env);
  const failures = await teardowns.runAll();
  if (failures.length > 0) draft.cleanupProblems = failures;
  const record = await finishRun(ctx, draft, attempts, () => guard.sealedOutcome(terminal));
  // A signal that came after the last look at it still never turns into exit 0.
  const exitCode = options.signal.aborted ? ExitCode.INTERRUPTED : exitCodeFor(record.state, record.reason);
  reporter.onEvent({
    type: 'run-end',
    runId,
    state: record.state,
    reason: record.reason,
    message: record.message,
    runDir: dir,
    exitCode,
    mode,
  });
  // The record goes on to --json, JUnit and GitHub annotations: redacted like the stored run.json.
  return { record: redactValue(record, redactor), runDir: dir, exitCode };
}

function signingKeyOrLoad(env: NodeJS.ProcessEnv, cwd: string): void {
  if (!loadedSigningKey(env)) loadSigningKey(env, undefined, cwd);
}
