// `elenchos run --agents a,b` / `--best-of N`: several candidates on one locked contract, each a full
// run (runTask) in its own worktree with its own app and repair loop; the verifier's verdicts choose.
import { mkdir } from 'node:fs/promises';
import { mapLimit } from '../../util/map-limit.js';
import { availableParallelism } from 'node:os';
import { costCapCoverage } from '../../agents/cost-cap.js';
import { ExitCode, PreflightError } from '../../errors.js';
import { candidateDir, runDir as runDirOf, runJsonPath } from '../../evidence/layout.js';
import { newRunId } from '../../evidence/run-id.js';
import { sealRun } from '../../evidence/seal.js';
import { Redactor } from '../../evidence/redact.js';
import type { RunRecord } from '../../evidence/run-record.js';
import { writeJsonAtomic } from '../../evidence/write-json.js';
import { ensureExcluded } from '../../git/worktree.js';
import { releaseHeldObjects } from '../../git/object-quarantine.js';
import { lockContract } from '../lock/contract-lock.js';
import { exitCodeFor } from '../run/decide.js';
import { preflight } from '../run/preflight.js';
import { runSecretValues } from '../run/run-secrets.js';
import { decide, draftBestOfRecord } from './best-of-record.js';
import { CandidateRunner, type BestOfOptions, type BestOfShared } from './candidates.js';
import { chooseWinner } from './choose.js';
import { planCandidates, type CandidatePlan } from './plan.js';
import { WholeRunBudget } from './shared-budget.js';
import { signingKeyFor } from '../../util/signing-key.js';

export type { BestOfOptions };

export interface BestOfResult {
  record: RunRecord;
  runDir: string;
  exitCode: number;
}

/** Runs every candidate, chooses, and seals one run folder holding them all. Throws only before the run exists (bad input, preflight). */
export async function runBestOf(options: BestOfOptions): Promise<BestOfResult> {
  const planned = await planBestOf(options);
  const open = await openBestOf(options, planned, planned.plan);
  await mapLimit(open.plan, planned.parallel, (c) => open.runCandidate(c));
  return open.finish();
}

/** A best-of run checked and planned, nothing written yet (`run <task…>` plans every task before any starts). */
export interface PlannedBestOf {
  pre: Preflight;
  /** Every candidate of the plan, in order. */
  plan: CandidatePlan[];
  parallel: number;
}

/** A best-of run whose folder and draft record exist: run its candidates (any order, any concurrency), then finish it once. */
export interface OpenBestOf {
  runId: string;
  dir: string;
  /** The candidates this run holds (the whole plan, or a share's part of it). */
  plan: CandidatePlan[];
  runCandidate: (c: CandidatePlan) => Promise<void>;
  /** Chooses and seals, once every candidate has ended. */
  finish: () => Promise<BestOfResult>;
}

/** Opens the run: its folder, the contract locked once, the draft record with `candidates` PENDING. */
export async function openBestOf(
  options: BestOfOptions,
  planned: PlannedBestOf,
  candidates: readonly CandidatePlan[],
): Promise<OpenBestOf> {
  const { pre } = planned;
  const runId = newRunId();
  const dir = runDirOf(pre.root, runId);
  await ensureExcluded(pre.root);
  await mkdir(dir, { recursive: true });
  // The contract is locked once: every candidate is checked against the same hashes, whenever it starts.
  const locked = await lockContract({
    root: pre.root,
    taskLabel: pre.resolved.label,
    testLabel: pre.resolved.testFileLabel,
    extra: pre.extraInputs,
  });
  const startedAt = Date.now();
  const plan = [...candidates];
  const draft = await draftBestOfRecord({
    runId,
    pre,
    plan,
    locked,
    startedAt,
    parallel: planned.parallel,
    stopAtFirst: options.stopAtFirst === true,
    group: options.group,
  });
  // Candidates end concurrently: one write at a time keeps run.json whole.
  let writing = Promise.resolve();
  const save = () => (writing = writing.then(() => writeJsonAtomic(runJsonPath(dir), draft)));
  await save();
  const shared: BestOfShared = {
    dir,
    base: pre.head,
    locked,
    whole: new WholeRunBudget(pre.config.budget, startedAt),
    draft,
    save,
    candidateDir: (name) => candidateDir(dir, name),
  };
  const runner = new CandidateRunner(options, shared);
  return {
    runId,
    dir,
    plan,
    runCandidate: (c) => runner.runOne(c, draft.candidates![plan.indexOf(c)]!),
    finish: async () => {
      // Every candidate has ended: what each committed joins the store only now, out of its rivals' sight until then.
      for (const entry of draft.candidates!) await releaseHeldObjects(pre.root, entry.runId);
      await writing;
      return chooseAndSeal(options, pre, shared, startedAt);
    },
  };
}

type Preflight = Awaited<ReturnType<typeof preflight>>;

/** The config, the plan, and every agent of the plan checked runnable before any candidate starts; writes nothing. */
export async function planBestOf(options: BestOfOptions): Promise<PlannedBestOf> {
  // The config first (the plan needs it); the default agent is checked only when a candidate uses it.
  const pre = await preflight({ ...options, needsAgent: false, requireClean: true });
  const plan = planCandidates(pre.config, pre.loaded.label, { agents: options.agents, bestOf: options.bestOf });
  // A dollar cap over every candidate's agent at once: it can fire as soon as one of them reports dollars,
  // so it is refused only when none does; the others are named in the run's first line.
  const agents = plan.map((c) => ({ name: c.agentName, type: c.agent.type }));
  const coverage = costCapCoverage(agents, pre.config.budget.maxCostUsd, pre.loaded.label);
  if (coverage.refusal) throw new PreflightError('COST_CAP_UNENFORCEABLE', coverage.refusal);
  if (coverage.note) options.onLine?.(coverage.note);
  // Each agent must be runnable (executable, sandbox, an enforceable cost cap; the task not NEEDS_HUMAN).
  const checked = new Set<string>();
  for (const c of plan) {
    if (checked.has(c.agentName)) continue;
    checked.add(c.agentName);
    await preflight({ ...options, overrides: { ...options.overrides, agent: c.agent }, needsAgent: true, requireClean: true });
  }
  const parallel = Math.max(1, Math.min(options.parallel ?? availableParallelism(), plan.length));
  return { pre, plan, parallel };
}

/** Once every candidate has ended: the winner by the rule, the outcome, and one seal over the whole folder. */
async function chooseAndSeal(options: BestOfOptions, pre: Preflight, shared: BestOfShared, startedAt: number): Promise<BestOfResult> {
  const { draft, dir } = shared;
  const entries = draft.candidates!;
  const choice = chooseWinner(
    entries.map((e) => ({
      name: e.name,
      state: e.state,
      attempts: e.attempts,
      changeSize: e.change?.size ?? null,
      costUsd: e.cost?.agentUsd ?? null,
      kaneCredits: e.cost?.kaneCredits ?? 0,
      finishedAt: e.finishedAt ? Date.parse(e.finishedAt) : Number.MAX_SAFE_INTEGER,
    })),
  );
  draft.winner = choice;
  // What stood behind the best-of verdict is what stood behind the winner's (its own run.json has the same).
  const won = choice ? entries.find((e) => e.name === choice.name)?.guards : undefined;
  if (won) draft.guards = won;
  draft.cost = shared.whole.totals();
  const outcome = decide(entries, choice, options.signal.aborted);
  const finishedAt = new Date();
  const tampering = entries.some((e) => e.tampering);
  const sealed = await sealRun(
    dir,
    () => ({
      ...draft,
      ...outcome,
      ...(tampering ? { tampering: true } : outcome.state === 'ERROR' ? { tampering: false } : {}),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt,
    }),
    {
      redactor: new Redactor({ values: runSecretValues(pre.config, pre.resolved.task, options.env) }),
      signingKey: signingKeyFor(options.env),
    },
  );
  const exitCode = options.signal.aborted ? ExitCode.INTERRUPTED : exitCodeFor(sealed.state, sealed.reason);
  return { record: sealed, runDir: dir, exitCode };
}
