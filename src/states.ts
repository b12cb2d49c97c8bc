// Every state, status, reason and kind a run, an attempt or a criterion can have: the one list the run
// loop, the events, the exit code, the records, the reporters and the JSON schemas (via zod) all use.

/** A run's final state: what `exitCodeFor` maps to 0, 1 or 2. */
export const FINAL_RUN_STATES = ['VERIFIED', 'FAILED', 'ERROR'] as const;
export type FinalRunState = (typeof FINAL_RUN_STATES)[number];

/** How a run ends (RUNNING while it goes on). */
export const RUN_STATES = ['RUNNING', ...FINAL_RUN_STATES] as const;
export type RunState = (typeof RUN_STATES)[number];

/** Why a run that is not VERIFIED ended: one stable code (docs/exit-codes.md). */
export const RUN_REASONS = [
  'CONTRACT_CHANGED',
  'UNSTABLE_WORKSPACE',
  'APP_URL_IN_USE',
  'APP_BROKEN_ON_BASE',
  'VERIFIER_ERROR',
  'INCONCLUSIVE',
  'AGENT_FAILED',
  'AGENT_TIMEOUT',
  'REPAIR_UNCHANGED',
  'PRODUCT_FAILURE',
  'INTERRUPTED',
  'ABANDONED',
  'SETUP_FAILED',
  'DISK_FULL',
  'INTERNAL_ERROR',
  'BUDGET_EXCEEDED',
  // A best-of candidate's own record only (docs/best-of.md): ended by --stop-at-first once another was VERIFIED.
  'STOPPED',
  // A guard the verdict needed did not stand (docs/verification.md#what-stood-behind-a-verdict): never VERIFIED.
  'GUARD_MISSING',
  // A joined run (docs/scale.md#join): no candidate of the task came from a share the join could use.
  'SHARES_REJECTED',
] as const;
export type RunReason = (typeof RUN_REASONS)[number];

/** What a verifier says about one look at the app. */
export const VERDICT_STATUSES = ['PASS', 'FAIL', 'VERIFIER_ERROR', 'INCONCLUSIVE'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

/** A verdict that is the verifier's trouble, not the product's: re-verified, never repaired. */
export type TroubleStatus = Extract<VerdictStatus, 'VERIFIER_ERROR' | 'INCONCLUSIVE'>;

/** Why a run ends on a verdict the loop cannot repair or re-verify any more (null when VERIFIED). */
export type VerdictEndReason = Extract<RunReason, 'PRODUCT_FAILURE' | TroubleStatus>;

/**
 * How an attempt ended, as the run loop records it: a verdict, NOT_VERIFIED when it ended before one,
 * APP_FAILED when the app is broken on the base commit too.
 */
export const ATTEMPT_OUTCOMES = [...VERDICT_STATUSES, 'NOT_VERIFIED', 'APP_FAILED'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** An attempt's status as stored in run.json (older records used the reason codes too). */
export const ATTEMPT_STATUSES = [
  'RUNNING',
  'NOT_VERIFIED',
  'PASS',
  'FAIL',
  'VERIFIER_ERROR',
  'INCONCLUSIVE',
  'APP_FAILED',
  'APP_URL_IN_USE',
  'SETUP_FAILED',
  'AGENT_FAILED',
  'AGENT_TIMEOUT',
  'REPAIR_UNCHANGED',
  'CONTRACT_CHANGED',
  'UNSTABLE_WORKSPACE',
  'INTERRUPTED',
  'ERROR',
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** `agent`: the agent worked, then the verifier ran; `reverify`: verification only, no repair charged; `verify`: CI. */
export const ATTEMPT_KINDS = ['agent', 'reverify', 'verify'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];

export const CRITERION_STATUSES = ['PASS', 'FAIL', 'UNVERIFIED'] as const;
export type CriterionStatus = (typeof CRITERION_STATUSES)[number];

/** How one step (a Kane step, a Playwright test, a command verifier's step) ended, as far as criteria are concerned. */
export const STEP_VERDICTS = ['passed', 'product_failure', 'failed_other', 'skipped'] as const;
export type StepVerdict = (typeof STEP_VERDICTS)[number];

/** How Elenchos classifies one thing a verifier found wrong. */
export const FINDING_KINDS = ['product_failure', 'verifier_error', 'unattributed_failure', 'inconsistency'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Why an agent's turn gave no work to verify. */
export type AgentFailureReason = Extract<RunReason, 'AGENT_FAILED' | 'AGENT_TIMEOUT' | 'INTERRUPTED'>;

/** Why the app did not come up (APP_URL_IN_USE: something else already answered at its URL). */
export const APP_START_FAILURES = ['APP_URL_IN_USE', 'APP_EXITED', 'APP_NOT_READY', 'APP_START_FAILED', 'INTERRUPTED'] as const;
export type AppStartFailure = (typeof APP_START_FAILURES)[number];

/** A best-of candidate (docs/best-of.md); STOPPED: ended by --stop-at-first (or never started) once another was VERIFIED. */
export const CANDIDATE_STATES = ['PENDING', 'RUNNING', ...FINAL_RUN_STATES, 'STOPPED'] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];

/** `run` repairs with an agent; `verify` looks at the committed code as it is. */
export const RUN_MODES = ['run', 'verify'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** How one Playwright test ended, by cause (verifiers/playwright/classify-test.ts). */
export const TEST_OUTCOME_KINDS = ['passed', 'product_failure', 'verifier_error', 'flaky', 'unattributed_failure', 'skipped'] as const;
export type TestOutcomeKind = (typeof TEST_OUTCOME_KINDS)[number];

/** How a step ended as the verifier reports it live (the terminal's ✓ and ✗). */
export const STEP_END_STATUSES = ['passed', 'failed'] as const;
export type StepEndStatus = (typeof STEP_END_STATUSES)[number];

/**
 * Why an agent's turn stopped, in words shared by every adapter (attempt.json `agent.ending`, `show`):
 * - `finished`: the agent says it is done (proves nothing: the verifier decides);
 * - `limit-reached`: a turn, budget, context or output limit of the agent's own stopped it, work may be done;
 * - `transient-api-error`: its model API failed in a way a second try may not (429, 5xx, overloaded);
 * - `refused`: the model declined, or a hook or the permission system stopped the turn;
 * - `crashed`: no usable end (non-zero exit without an explained result, no result at all, a dead turn);
 * - `timed-out`: Elenchos killed it at `agent.timeoutSeconds` (AGENT_TIMEOUT), whatever it had said;
 * - `interrupted`: an interrupt (Ctrl-C, a best-of candidate stopped) ended it (INTERRUPTED).
 */
export const AGENT_ENDINGS = [
  'finished',
  'limit-reached',
  'transient-api-error',
  'refused',
  'crashed',
  'timed-out',
  'interrupted',
] as const;
export type AgentEndingKind = (typeof AGENT_ENDINGS)[number];

/** Kane's sweep after a PASS: `bug` a confirmed product finding (the attempt becomes FAIL), `clean`, `note` an unconfirmed finding, `error` no usable result. */
export const SWEEP_OUTCOMES = ['clean', 'bug', 'note', 'error'] as const;
export type SweepOutcome = (typeof SWEEP_OUTCOMES)[number];

/** A task whose runs caught tampering or failed too often in a row: no agent runs it until a person acknowledges it. */
export const NEEDS_HUMAN = 'NEEDS_HUMAN';

/** A Kane step as stored (`verifier.details.steps`): `unfinished` started and never ended, `skipped` no events at all. */
export const KANE_STEP_STATUSES = ['passed', 'failed', 'unfinished', 'skipped'] as const;
export type KaneStepStatus = (typeof KANE_STEP_STATUSES)[number];

/** A command verifier's step as its protocol reports it (docs/command-verifier.md), and whose fault a failure is. */
export const COMMAND_STEP_STATUSES = ['passed', 'failed', 'skipped'] as const;
export type CommandStepStatus = (typeof COMMAND_STEP_STATUSES)[number];
export const COMMAND_FAILURE_KINDS = ['product', 'verifier', 'unknown'] as const;
export type CommandFailureKind = (typeof COMMAND_FAILURE_KINDS)[number];

/**
 * The guards a verdict can stand on (docs/verification.md#what-stood-behind-a-verdict), by their stable names:
 * `sandbox` the agent, the app and setup in bubblewrap; `processScan` escaped processes looked for in a
 * process table that sees them; `windowWatch` the filesystem watch over the verifier window; `objectStore`
 * git's object store audited or quarantined; `inputsPinned` every verifier input locked by hash and checked.
 */
export const GUARD_NAMES = ['sandbox', 'processScan', 'windowWatch', 'objectStore', 'inputsPinned'] as const;
export type GuardName = (typeof GUARD_NAMES)[number];

/** How a child (agent, app, setup.command) actually ran: in bubblewrap, or as the user. */
export const SANDBOX_MODES = ['bwrap', 'none'] as const;

/** Where the process table came from: Linux's /proc, `ps` (as on macOS), or nowhere that lists our own process. */
export const PROCESS_TABLE_SOURCES = ['proc', 'ps', 'unavailable'] as const;
export type ProcessTableSource = (typeof PROCESS_TABLE_SOURCES)[number];

/** What a process table may fail to see beyond the list itself: the environment (our tags) or held directories. */
export const PROCESS_TABLE_BLIND_SPOTS = ['environment', 'directories'] as const;
export type ProcessTableBlindSpot = (typeof PROCESS_TABLE_BLIND_SPOTS)[number];
