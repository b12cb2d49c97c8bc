// Runs a best-of run's candidates, at most `parallel` at once, each a full run (runTask) in its own
// worktree; keeps each one's row in `candidates[]` current; and with --stop-at-first stops the rest.
import { withSigningKeyOf } from '../../util/signing-key.js';
import { describeError } from '../../errors.js';
import type { CandidateSummary, RunRecord } from '../../evidence/run-record.js';
import type { RunGroup } from '../../evidence/run-group.js';
import type { RunReporter } from '../events.js';
import type { lockContract } from '../lock/contract-lock.js';
import { runTask, type RunTaskOptions, type RunTaskResult } from '../run/run-task.js';
import { measureChange } from './change-size.js';
import type { CandidatePlan } from './plan.js';
import { CandidateBudget, type WholeRunBudget } from './shared-budget.js';

/** A plain run's inputs (each candidate is one), and how to pick and run the candidates. */
export interface BestOfOptions extends Pick<RunTaskOptions, 'cwd' | 'taskFile' | 'configFile' | 'env' | 'overrides' | 'signal'> {
  agents?: string[];
  bestOf?: number;
  /** How many candidates run at once (default: the number of cores, at most the candidates). */
  parallel?: number;
  /** End the others (STOPPED) as soon as one is VERIFIED. */
  stopAtFirst?: boolean;
  /** The command's group, when it runs several tasks or a share of a plan (docs/scale.md). */
  group?: RunGroup;
  /** Progress of one candidate (its run-end is the best-of run's to report). */
  reporterFor: (name: string) => RunReporter;
  /** A line about the best-of run itself (a candidate started, ended, was stopped). */
  onLine?: (line: string) => void;
}

/** What every candidate shares: the run's folder, record and budget, and the contract locked once. */
export interface BestOfShared {
  dir: string;
  /** The commit every candidate starts from. */
  base: string;
  locked: Awaited<ReturnType<typeof lockContract>>;
  whole: WholeRunBudget;
  draft: RunRecord;
  /** Writes the draft run.json (one write at a time). */
  save: () => Promise<void>;
  candidateDir: (name: string) => string;
}

export class CandidateRunner {
  private readonly stopping = new Set<string>();
  private readonly controllers = new Map<string, AbortController>();
  private stopReason: string | null = null;

  constructor(
    private readonly options: BestOfOptions,
    private readonly shared: BestOfShared,
  ) {}

  /** Runs candidate `c` (its row is `entry`), or records it STOPPED when its turn came after the run was decided. */
  async runOne(c: CandidatePlan, entry: CandidateSummary): Promise<void> {
    const { options } = this;
    if (this.notStarted(entry)) return;
    const controller = new AbortController();
    this.controllers.set(c.name, controller);
    const onAbort = () => controller.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    entry.state = 'RUNNING';
    entry.startedAt = new Date().toISOString();
    await this.shared.save();
    this.say(`candidate ${c.name} (agent ${c.agentName}, ${c.agent.type}) started`);
    const budget = new CandidateBudget(this.shared.whole, Date.now());
    try {
      const result = await this.start(c, entry, controller.signal, budget);
      await this.record(c, entry, result);
    } catch (error) {
      // Before its run existed (HEAD moved, the checkout got dirty meanwhile…) or a full disk.
      entry.state = 'ERROR';
      entry.reason = 'INTERNAL_ERROR';
      entry.message = describeError(error);
      entry.finishedAt = new Date().toISOString();
    } finally {
      budget.ended();
      options.signal.removeEventListener('abort', onAbort);
      this.controllers.delete(c.name);
    }
    await this.ended(c, entry);
  }

  /** Says how it ended, stops the others when it is the first VERIFIED under --stop-at-first, saves. */
  private async ended(c: CandidatePlan, entry: CandidateSummary): Promise<void> {
    this.say(
      `candidate ${c.name}: ${entry.state}${entry.reason ? ` (${entry.reason})` : ''}, ${entry.attempts} attempt(s)${entry.change ? `, change ${entry.change.size}` : ''}`,
    );
    if (entry.state === 'VERIFIED' && this.options.stopAtFirst && !this.stopReason) this.stopOthers(c.name);
    await this.shared.save();
  }

  /**
   * A candidate whose turn came after the run was decided is recorded STOPPED without starting: another
   * was VERIFIED first (--stop-at-first), Ctrl-C, or a whole-run cap already refuses its first agent step.
   */
  private notStarted(entry: CandidateSummary): boolean {
    let why = this.stopReason ?? (this.options.signal.aborted ? 'interrupted before it started' : null);
    if (why === null) {
      const overCap = this.shared.whole.gate('agent');
      if (overCap === null) return false;
      why = `not started: ${overCap}`;
      entry.reason = 'BUDGET_EXCEEDED';
    }
    entry.state = 'STOPPED';
    entry.message = why;
    return true;
  }

  /** The candidate's run: the task as a plain run would do it, in the slot the best-of run made for it. */
  private start(c: CandidatePlan, entry: CandidateSummary, signal: AbortSignal, budget: CandidateBudget): Promise<RunTaskResult> {
    const { options, shared } = this;
    return runTask({
      cwd: options.cwd,
      taskFile: options.taskFile,
      configFile: options.configFile,
      // Which candidate this run is, for a test pause point of one candidate (test-pause.ts); the agent gets its own below.
      env: withSigningKeyOf(options.env, { ELENCHOS_CANDIDATE: c.name }),
      overrides: {
        ...options.overrides,
        // The agent learns which candidate it is (a seeded agent, a log line); nothing else differs.
        agent: { ...c.agent, env: { ...c.agent.env, ELENCHOS_CANDIDATE: c.name, ELENCHOS_CANDIDATE_INDEX: String(c.index) } },
      },
      signal,
      reporter: reporterOf(options.reporterFor(c.name)),
      candidate: {
        runId: entry.runId,
        dir: shared.candidateDir(c.name),
        base: shared.base,
        locked: shared.locked,
        budget,
        // Its own record says STOPPED too (not INTERRUPTED): the stop was ours, not the user's Ctrl-C.
        stopReason: () => (this.stopping.has(c.name) && !options.signal.aborted ? this.stopReason : null),
      },
    });
  }

  /** Its row from its sealed record: state, attempts, cost, the change `apply` would take, how far it got. */
  private async record(c: CandidatePlan, entry: CandidateSummary, result: RunTaskResult): Promise<void> {
    const r = result.record;
    this.shared.draft.tools.verifier ??= r.tools.verifier;
    // Sealed ERROR STOPPED by its guard when the stop reached it before a VERIFIED verdict (run-guard.ts).
    const stopped = r.reason === 'STOPPED';
    entry.state = stopped ? 'STOPPED' : (r.state as CandidateSummary['state']);
    entry.reason = stopped ? null : r.reason;
    entry.message = r.message;
    if (r.tampering) entry.tampering = true;
    if (r.guards) entry.guards = r.guards;
    entry.attempts = r.attempts.filter((a) => a.kind === 'agent').length;
    entry.verifications = r.attempts.length;
    entry.cost = r.cost ?? null;
    entry.change = await measureChange(this.shared.candidateDir(c.name), r.attempts).catch(() => null);
    entry.finishedAt = r.finishedAt;
    entry.durationMs = r.durationMs;
    entry.criteria = (r.attempts.at(-1)?.criteria ?? []).map((k) => ({ id: k.id, status: k.status }));
  }

  private stopOthers(winner: string): void {
    this.stopReason = `stopped: ${winner} was VERIFIED first (--stop-at-first)`;
    for (const [name, controller] of this.controllers) {
      if (name === winner) continue;
      this.stopping.add(name);
      controller.abort();
    }
  }

  private say(line: string): void {
    this.options.onLine?.(line);
  }
}

/** A candidate's progress without its own run-end (its run id is not one `apply` takes: the best-of run's is). */
function reporterOf(reporter: RunReporter): RunReporter {
  return { onEvent: (event) => (event.type === 'run-end' ? undefined : reporter.onEvent(event)) };
}
