// Runs a best-of run's candidates, at most `parallel` at once, each a full run (runTask) in its own
// worktree; keeps each one's row in `candidates[]` current; and with --stop-at-first stops the rest.
import { describeError } from '../../errors.js';
import type { CandidateSummary, RunRecord } from '../../evidence/run-record.js';
import type { RunReporter } from '../events.js';
import type { BudgetTracker } from '../run/budget.js';
import type { lockContract } from '../lock/contract-lock.js';
import { runTask, type RunTaskResult } from '../run/run-task.js';
import { measureChange } from './change-size.js';
import type { CandidatePlan } from './plan.js';
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

/** What every candidate shares: the run's folder, record and budget, and the contract locked once. */
export interface BestOfShared {
  dir: string;
  /** The commit every candidate starts from. */
  base: string;
  locked: Awaited<ReturnType<typeof lockContract>>;
  whole: BudgetTracker;
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

  /** Runs every candidate of `plan` (its rows are `entries`, in the same order), `parallel` at a time. */
  async runAll(plan: readonly CandidatePlan[], entries: CandidateSummary[], parallel: number): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < plan.length) {
          const i = next++;
          await this.runOne(plan[i]!, entries[i]!);
        }
      }),
    );
  }

  private async runOne(c: CandidatePlan, entry: CandidateSummary): Promise<void> {
    const { options } = this;
    if (this.stopReason || options.signal.aborted) {
      entry.state = 'STOPPED';
      entry.message = this.stopReason ?? 'interrupted before it started';
      return;
    }
    const controller = new AbortController();
    this.controllers.set(c.name, controller);
    const onAbort = () => controller.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    entry.state = 'RUNNING';
    entry.startedAt = new Date().toISOString();
    await this.shared.save();
    this.say(`candidate ${c.name} (agent ${c.agentName}, ${c.agent.type}) started`);
    try {
      const result = await this.start(c, entry, controller.signal);
      await this.record(c, entry, result);
    } catch (error) {
      // Before its run existed (HEAD moved, the checkout got dirty meanwhile…) or a full disk.
      entry.state = 'ERROR';
      entry.reason = 'INTERNAL_ERROR';
      entry.message = describeError(error);
      entry.finishedAt = new Date().toISOString();
    } finally {
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

  /** The candidate's run: the task as a plain run would do it, in the slot the best-of run made for it. */
  private start(c: CandidatePlan, entry: CandidateSummary, signal: AbortSignal): Promise<RunTaskResult> {
    const { options, shared } = this;
    return runTask({
      cwd: options.cwd,
      taskFile: options.taskFile,
      configFile: options.configFile,
      env: options.env,
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
        budget: new CandidateBudget(shared.whole, Date.now()),
      },
    });
  }

  /** Its row from its sealed record: state, attempts, cost, the change `apply` would take, how far it got. */
  private async record(c: CandidatePlan, entry: CandidateSummary, result: RunTaskResult): Promise<void> {
    const r = result.record;
    this.shared.draft.tools.verifier ??= r.tools.verifier;
    const stopped = this.stopping.has(c.name) && !this.options.signal.aborted && r.state !== 'VERIFIED';
    entry.state = stopped ? 'STOPPED' : (r.state as CandidateSummary['state']);
    entry.reason = stopped ? null : r.reason;
    entry.message = stopped ? this.stopReason : r.message;
    if (r.tampering) entry.tampering = true;
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
