// What one run shares across its attempts (RunContext), put together once its preflight passed and its
// place is chosen: the contract locked (once per best-of run: its candidates share it), the guards planned.
import { agentAdapter } from '../../agents/registry.js';
import { appWriteGlobs, verifierReadGlobs } from '../../config/app-writes.js';
import type { Redactor } from '../../evidence/redact.js';
import type { GuardName, RunMode } from '../../states.js';
import type { RunReporter } from '../events.js';
import { lockContract } from '../lock/contract-lock.js';
import { BudgetTracker } from './budget.js';
import { planGuards } from './guards-stood.js';
import type { Preflight } from './preflight.js';
import type { ReplaySource, RunContext } from './run-context.js';
import type { RunGuard } from './run-guard.js';

/** Where a run lives: its id, folder and workspace, and the guard that watches it. */
export interface RunPlace {
  runId: string;
  dir: string;
  workspace: string;
  mode: RunMode;
  inPlace: boolean;
  guard: RunGuard;
}

/** What the caller gave the run that its context carries (a best-of candidate brings its locked contract and budget). */
export interface ContextSources {
  env: NodeJS.ProcessEnv;
  requireGuards?: readonly GuardName[];
  replay?: ReplaySource;
  /** The contract as a best-of run locked it once for all its candidates. */
  locked?: Awaited<ReturnType<typeof lockContract>>;
  /** The best-of run's caps, shared by its candidates. */
  budget?: BudgetTracker;
}

/** What the run shares across its attempts, the contract locked (once per best-of run: its candidates share it). */
export async function buildRunContext(
  options: ContextSources,
  pre: Preflight,
  place: RunPlace,
  out: { reporter: RunReporter; redactor: Redactor },
): Promise<RunContext> {
  const { root, config, resolved } = pre;
  const locked =
    options.locked ?? (await lockContract({ root, taskLabel: resolved.label, testLabel: resolved.testFileLabel, extra: pre.extraInputs }));
  return {
    runId: place.runId,
    mode: place.mode,
    root,
    workspace: place.workspace,
    base: pre.head,
    runDir: place.dir,
    config,
    sandbox: pre.sandbox,
    resolved,
    agent: agentAdapter(config.agent.type),
    locked,
    excluded: await resolved.verifier.outputPaths(root, resolved.testFileLabel),
    appWrites: appWriteGlobs(config.app.writes, verifierReadGlobs(locked.map((file) => file.path))),
    env: options.env,
    redactor: out.redactor,
    signal: place.guard.signal,
    reporter: out.reporter,
    startedAt: Date.now(),
    budget: options.budget ?? new BudgetTracker(config.budget, Date.now()),
    attemptSeals: [],
    guardPlan: planGuards(config, place.mode, options.requireGuards, { mode: pre.sandbox.mode, why: pre.sandbox.why }),
    ...(options.replay ? { replay: options.replay } : {}),
  };
}
