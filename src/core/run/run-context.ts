// Everything one run shares across its attempts.
import type { ReplayInfo } from '../../evidence/run-group.js';
import type { Preflight } from './preflight.js';
import type { SandboxResolution } from '../../agents/sandbox-mode.js';
import type { Config } from '../../config/config-schema.js';
import type { WindowReport } from '../../git/window-watch.js';
import type { CriterionResult } from '../../contract/criteria-map.js';
import type { AttemptKind, AttemptOutcome, FinalRunState, RunMode, RunReason } from '../../states.js';
import type { Finding } from '../../verifiers/types.js';
import type { AgentOutcome } from '../../agents/types.js';
import type { AppRecord, VerifierRecord } from '../../evidence/attempt-record.js';
import type { WorkspaceSnapshot } from '../../git/snapshot.js';
import type { GitState } from '../../git/git-state.js';
import type { TrustedIndex } from '../../git/worktree-reset.js';
import type { PoolWatch } from '../workspace/pool-guard.js';
import type { SweepResult } from '../../verifiers/kane/sweep.js';
import type { AttemptCost, BudgetTracker } from './budget.js';
import type { LockedFile } from '../lock/contract-lock.js';
import type { RunReporter } from '../events.js';
import type { ResolvedTask } from '../resolve-task.js';
import type { AttemptSeal } from '../../evidence/seal-attempt.js';
import type { AttemptGuards } from '../../evidence/guards-record.js';
import type { GuardPlan } from './guard-plan.js';
import type { Redactor } from '../../evidence/redact.js';
import type { AgentAdapter } from '../../agents/types.js';

export interface RunContext {
  runId: string;
  mode: RunMode;
  /** The main checkout's root. */
  root: string;
  /** Where the agent works and the verifier looks (a worktree, or the checkout with --in-place). */
  workspace: string;
  /** The commit the workspace started from. */
  base: string;
  runDir: string;
  /** `agent.sandbox` resolved: "bwrap" or "none" (src/agents/sandbox-mode.ts). */
  config: Config;
  /** The sandbox the agent, the app and setup.command run in, and why (what each attempt records). */
  sandbox: SandboxResolution;
  resolved: ResolvedTask;
  /** The adapter of `config.agent.type`, picked once (as `resolved.verifier` is the verifier's). */
  agent: AgentAdapter;
  locked: LockedFile[];
  /** Verifier output paths (repo-relative prefixes) left out of every snapshot. */
  excluded: string[];
  /** Globs the app writes by design (built-in and `app.writes`): put back to the base, left out of every snapshot. */
  appWrites: string[];
  env: NodeJS.ProcessEnv;
  /** The run's secrets (run-secrets.ts), gathered once at its start: every printed line, archive and seal goes through it. */
  redactor: Redactor;
  signal: AbortSignal;
  reporter: RunReporter;
  startedAt: number;
  /** Totals and caps: each step asks it first (BUDGET_EXCEEDED), and reports what it spent. */
  budget: BudgetTracker;
  /**
   * The attempts sealed when they ended, in order: one array the run and its attempt context (a copy with the
   * baselines) share, so the final manifest lists what each attempt left (core/run/attempt-seals.ts).
   */
  readonly attemptSeals: AttemptSeal[];
  /** Which guards the verdict needs and how the children run sandboxed. */
  guardPlan: GuardPlan;
  /** A join's re-verification: the agent's turn replays this stored change instead (core/run/phases/replay-turn.ts). */
  replay?: ReplaySource;
}

/** A stored change (a folder with base.txt, diff.patch, untracked.tar.gz) a run applies in place of an agent's turn. */
export interface ReplaySource {
  workspaceDir: string;
  info: ReplayInfo;
  /**
   * The task's preflight as the join made it (no agent, clean checkout), when it made one: the replay's worktree
   * is of its HEAD, whatever HEAD is now.
   */
  checked?: Preflight;
}

/**
 * What the attempts are measured against, read once after setup, before the first agent turn, and never
 * changed after: the verifier's toolchain, the files hidden from git, git's own settings, the worktree's
 * index and the pool's trusted indexes.
 */
export interface Baselines {
  /** The verifier's toolchain fingerprint. */
  readonly toolchain: readonly string[];
  /** Files hidden from `git status` (a sparse checkout's own); only new ones count. */
  readonly hiddenFiles: ReadonlySet<string>;
  /** Git's own settings (common config, info/, hooks, replace refs, global config). */
  readonly gitState?: GitState;
  /** The worktree's index: what a rewritten index entry is checked against (none with --in-place). */
  readonly indexBefore?: TrustedIndex;
  /** The pool's trusted indexes: one changed while the agent or its app ran is dropped. */
  readonly pool?: PoolWatch;
}

/** A run once its baselines are taken: what every attempt runs in. */
export interface AttemptContext extends RunContext {
  readonly baselines: Baselines;
}

/** How a run ends: its state, one stable reason code (null when VERIFIED) and a message for people. */
export type Terminal = {
  state: FinalRunState;
  reason: RunReason | null;
  message: string | null;
  /**
   * Set when the run caught what only an agent does (a changed contract, git settings changed in its
   * turn, a forged index, processes of its that could not be stopped): the task needs a human at once.
   */
  tampering?: boolean;
};

/** A process found alive after the agent's turn or after verification, outside the group we gave it, and killed. */
export type StoppedProcess = {
  after: 'agent' | 'verification';
  pid: number;
  command: string;
  /** How it was found: `marker`, `cwd`, `root`, `exe`, `open-file`. */
  found: string[];
};

/** How one attempt ended. */
export interface AttemptRecord {
  number: number;
  kind: AttemptKind;
  /** PASS | FAIL | VERIFIER_ERROR | INCONCLUSIVE; NOT_VERIFIED when the attempt ended before a verdict, APP_FAILED when the app is broken on the base too. */
  status: AttemptOutcome;
  summary: string;
  criteria: CriterionResult[];
  findings: Finding[];
  startedAt: string;
  durationMs: number;
  /** The agent's turn (null when this attempt ran no agent). */
  agent: AgentOutcome | null;
  app: AppRecord | null;
  verifier: VerifierRecord | null;
  snapshots: { before: WorkspaceSnapshot | null; after: WorkspaceSnapshot | null };
  /** Set when this attempt ends the run. */
  terminal: Terminal | null;
  /** Set when the app did not come up (a repairable product failure). */
  appFailure: string | null;
  /** What this attempt spent (agent dollars, tokens, turns; Kane credits). */
  cost: AttemptCost;
  /** The exploratory sweep after a PASS, when `verifier.sweep` is set. */
  sweep?: SweepResult;
  /** What the filesystem watcher saw in the verifier window (null when the attempt ended before it). */
  window?: WindowReport;
  /** Escaped processes (setsid, nohup) killed after the agent's turn or after verification. */
  stoppedProcesses: StoppedProcess[];
  /** The guards this attempt ran and how, filled in by the phases as they look (guards-stood.ts). */
  guards: AttemptGuards;
}
