// `elenchos run --agents a,b` / `--best-of N`: several candidates on one locked contract, each a full
// run (runTask) in its own worktree with its own app and repair loop; the verifier's verdicts choose.
import { mkdir } from 'node:fs/promises';
import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { ExitCode, describeError } from '../../errors.js';
import { runDir as runDirOf, runJsonPath, workspacesDir } from '../../evidence/layout.js';
import { newRunId } from '../../evidence/run-id.js';
import { sealRun } from '../../evidence/seal.js';
import type { CandidateSummary, RunReason, RunRecord } from '../../evidence/run-record.js';
import { writeJsonAtomic } from '../../evidence/write-json.js';
import { ensureExcluded } from '../../git/worktree.js';
import { elenchosVersion } from '../../version.js';
import { sha256 } from '../../util/sha256.js';
import { BudgetTracker } from '../run/budget.js';
import { canonicalJson, lockContract } from '../lock/contract-lock.js';
import type { RunReporter } from '../events.js';
import { exitCodeFor } from '../run/outcome.js';
import { preflight } from '../run/preflight.js';
import { runSecretValues } from '../run/run-secrets.js';
import { runTask } from '../run/run-task.js';
import { git } from '../../git/git.js';
import { readProcStat } from '../../process/proc-stat.js';
import { measureChange } from './change-size.js';
import { chooseWinner } from './choose.js';
import { planCandidates, type CandidatePlan } from './plan.js';
import { CandidateBudget } from './shared-budget.js';

export interface BestOfOptions {
  cwd: string;
  taskFile: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  signal: AbortSignal;
  agents?: string[];
  bestOf?: number;
  /** How many candidates run at once (default: the number of cores, at most the candidates). */
  parallel?: number;
  /** End the others (STOPPED) as soon as one is VERIFIED. */
  stopAtFirst?: boolean;
  /** Progress of one candidate (its run-end is the best-of run's to report). */
  reporterFor: (name: string) => RunReporter;
  /** A line about the best-of run itself (a candidate started, ended, was stopped). */
  onLine?: (line: string) => void;
}

export interface BestOfResult {
  record: RunRecord;
  runDir: string;
  exitCode: number;
}

/** Folder of candidate `name` inside the best-of run's folder. */
export function candidateDir(runDir: string, name: string): string {
  return path.join(runDir, 'candidates', name);
}

/** Runs every candidate, chooses, and seals one run folder holding them all. Throws only before the run exists (bad input, preflight). */
export async function runBestOf(options: BestOfOptions): Promise<BestOfResult> {
  // The config first (the plan needs it); the default agent is checked only when a candidate uses it.
  const pre = await preflight({ ...options, needsAgent: false, requireClean: true });
  const { root, config, resolved } = pre;
  const plan = planCandidates(config, pre.loaded.label, { agents: options.agents, bestOf: options.bestOf });
  // Each agent of the plan must be runnable (executable, sandbox, an enforceable cost cap; the task not NEEDS_HUMAN) before any starts.
  const checked = new Set<string>();
  for (const c of plan) {
    if (checked.has(c.agentName)) continue;
    checked.add(c.agentName);
    await preflight({ ...options, overrides: { ...options.overrides, agent: c.agent }, needsAgent: true, requireClean: true });
  }
  const parallel = Math.max(1, Math.min(options.parallel ?? availableParallelism(), plan.length));
  const runId = newRunId();
  const dir = runDirOf(root, runId);
  await ensureExcluded(root);
  await mkdir(dir, { recursive: true });
  // The contract is locked once: every candidate is checked against the same hashes, whenever it starts.
  const locked = await lockContract({ root, taskLabel: resolved.label, testLabel: resolved.testFileLabel, extra: pre.extraInputs });
  const startedAt = Date.now();
  const whole = new BudgetTracker(config.budget, startedAt);
  const entries: CandidateSummary[] = plan.map((c) => ({
    name: c.name,
    agent: c.agentName,
    agentType: c.agent.type,
    index: c.index,
    runId: `${runId}-${c.name}`,
    dir: path.join('candidates', c.name),
    state: 'PENDING',
    reason: null,
    message: null,
    attempts: 0,
    verifications: 0,
    cost: null,
    change: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    criteria: [],
  }));
  const draft: RunRecord = {
    schemaVersion: 1,
    runId,
    mode: 'run',
    task: { id: resolved.task.id, file: resolved.label, title: resolved.task.title },
    state: 'RUNNING',
    reason: null,
    message: null,
    tools: {
      elenchos: elenchosVersion(),
      node: process.version,
      git: await git(['--version'], { cwd: root }).then(
        (out) => out.trim().replace(/^git version /, ''),
        () => 'unknown',
      ),
      verifier: null,
      agent: [...new Set(plan.map((c) => c.agent.type))].join(','),
    },
    contract: { files: locked.map((f) => ({ path: f.path, sha256: f.sha256, role: f.role })) },
    configFingerprint: sha256(canonicalJson(config)),
    configFile: pre.loaded.path ? path.relative(root, pre.loaded.path) : null,
    verifier: { type: resolved.verifierType, testFile: resolved.testFileLabel },
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: null,
    durationMs: null,
    pid: process.pid,
    pidStartTime: readProcStat(process.pid)?.startTime ?? null,
    host: hostname(),
    workspace: { path: path.relative(root, workspacesDir(root)), base: pre.head, kept: config.retainWorkspace },
    attempts: [],
    bestOf: { parallel, stopAtFirst: options.stopAtFirst === true },
    candidates: entries,
    winner: null,
  };
  // Candidates end concurrently: one write at a time keeps run.json whole.
  let writing = Promise.resolve();
  const save = () => (writing = writing.then(() => writeJsonAtomic(runJsonPath(dir), draft)));
  await save();

  const say = options.onLine ?? (() => undefined);
  const stopping = new Set<string>();
  const controllers = new Map<string, AbortController>();
  let stopReason: string | null = null;
  const stopOthers = (winner: string) => {
    stopReason = `stopped: ${winner} was VERIFIED first (--stop-at-first)`;
    for (const [name, controller] of controllers) {
      if (name === winner) continue;
      stopping.add(name);
      controller.abort();
    }
  };

  const runOne = async (c: CandidatePlan, entry: CandidateSummary) => {
    if (stopReason || options.signal.aborted) {
      entry.state = 'STOPPED';
      entry.message = stopReason ?? 'interrupted before it started';
      return;
    }
    const controller = new AbortController();
    controllers.set(c.name, controller);
    const onAbort = () => controller.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    entry.state = 'RUNNING';
    entry.startedAt = new Date().toISOString();
    await save();
    say(`candidate ${c.name} (agent ${c.agentName}, ${c.agent.type}) started`);
    const cdir = candidateDir(dir, c.name);
    try {
      const base = reporterOf(options.reporterFor(c.name));
      const result = await runTask({
        cwd: options.cwd,
        taskFile: options.taskFile,
        configFile: options.configFile,
        env: options.env,
        overrides: {
          ...options.overrides,
          // The agent learns which candidate it is (a seeded agent, a log line); nothing else differs.
          agent: { ...c.agent, env: { ...c.agent.env, ELENCHOS_CANDIDATE: c.name, ELENCHOS_CANDIDATE_INDEX: String(c.index) } },
        },
        signal: controller.signal,
        reporter: base,
        candidate: { runId: entry.runId, dir: cdir, base: pre.head, locked, budget: new CandidateBudget(whole, Date.now()) },
      });
      const r = result.record;
      draft.tools.verifier ??= r.tools.verifier;
      const stopped = stopping.has(c.name) && !options.signal.aborted && r.state !== 'VERIFIED';
      entry.state = stopped ? 'STOPPED' : (r.state as CandidateSummary['state']);
      entry.reason = stopped ? null : r.reason;
      entry.message = stopped ? stopReason : r.message;
      if (r.tampering) entry.tampering = true;
      entry.attempts = r.attempts.filter((a) => a.kind === 'agent').length;
      entry.verifications = r.attempts.length;
      entry.cost = r.cost ?? null;
      entry.change = await measureChange(cdir, r.attempts).catch(() => null);
      entry.finishedAt = r.finishedAt;
      entry.durationMs = r.durationMs;
      entry.criteria = (r.attempts.at(-1)?.criteria ?? []).map((k) => ({ id: k.id, status: k.status }));
    } catch (error) {
      // Before its run existed (HEAD moved, the checkout got dirty meanwhile…) or a full disk.
      entry.state = 'ERROR';
      entry.reason = 'INTERNAL_ERROR';
      entry.message = describeError(error);
      entry.finishedAt = new Date().toISOString();
    } finally {
      options.signal.removeEventListener('abort', onAbort);
      controllers.delete(c.name);
    }
    say(
      `candidate ${c.name}: ${entry.state}${entry.reason ? ` (${entry.reason})` : ''}, ${entry.attempts} attempt(s)${entry.change ? `, change ${entry.change.size}` : ''}`,
    );
    if (entry.state === 'VERIFIED' && options.stopAtFirst && !stopReason) stopOthers(c.name);
    await save();
  };

  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < plan.length) {
        const i = next++;
        await runOne(plan[i]!, entries[i]!);
      }
    }),
  );
  await writing;

  const choice = chooseWinner(
    entries.map((e) => ({
      name: e.name,
      state: e.state,
      attempts: e.attempts,
      changeSize: e.change?.size ?? null,
      costUsd: e.cost?.agentUsd ?? 0,
      kaneCredits: e.cost?.kaneCredits ?? 0,
      finishedAt: e.finishedAt ? Date.parse(e.finishedAt) : Number.MAX_SAFE_INTEGER,
    })),
  );
  draft.winner = choice;
  draft.cost = whole.totals();
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
    { values: runSecretValues(config, resolved.task, options.env), signingKey: options.env.ELENCHOS_SIGNING_KEY || undefined },
  );
  const exitCode = options.signal.aborted ? ExitCode.INTERRUPTED : exitCodeFor(sealed.state, sealed.reason);
  return { record: sealed, runDir: dir, exitCode };
}

/** A candidate's progress without its own run-end (its run id is not one `apply` takes: the best-of run's is). */
function reporterOf(reporter: RunReporter): RunReporter {
  return { onEvent: (event) => (event.type === 'run-end' ? undefined : reporter.onEvent(event)) };
}

/** The best-of run's outcome: VERIFIED with a winner; else FAILED when a candidate failed on the product, else ERROR. */
function decide(
  entries: readonly CandidateSummary[],
  choice: { name: string; reason: string } | null,
  interrupted: boolean,
): { state: 'VERIFIED' | 'FAILED' | 'ERROR'; reason: RunReason | null; message: string | null } {
  if (choice) return { state: 'VERIFIED', reason: null, message: `winner ${choice.name}: ${choice.reason}` };
  const how = entries.map((e) => `${e.name} ${e.state}${e.reason ? ` (${e.reason})` : ''}`).join(', ');
  if (interrupted)
    return { state: 'ERROR', reason: 'INTERRUPTED', message: `interrupted (Ctrl-C): children stopped, evidence kept; ${how}` };
  const failed = entries.find((e) => e.state === 'FAILED');
  if (failed) return { state: 'FAILED', reason: failed.reason, message: `no candidate VERIFIED: ${how}` };
  const errored = entries.find((e) => e.state === 'ERROR');
  return { state: 'ERROR', reason: errored?.reason ?? 'INTERNAL_ERROR', message: `no candidate VERIFIED: ${how}` };
}
