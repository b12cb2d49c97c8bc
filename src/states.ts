// Every state, status, reason and kind a run, an attempt or a criterion can have: the one list the run
// loop, the events, the exit code, the records, the reporters and the JSON schemas (via zod) all use.

/** How a run ends (RUNNING while it goes on). */
export const RUN_STATES = ['RUNNING', 'VERIFIED', 'FAILED', 'ERROR'] as const;
export type RunState = (typeof RUN_STATES)[number];
/** A run's final state: what `exitCodeFor` maps to 0, 1 or 2. */
export type FinalRunState = Exclude<RunState, 'RUNNING'>;

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
] as const;
export type RunReason = (typeof RUN_REASONS)[number];

/** What a verifier says about one look at the app. */
export const VERDICT_STATUSES = ['PASS', 'FAIL', 'VERIFIER_ERROR', 'INCONCLUSIVE'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

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

/** `run` repairs with an agent; `verify` looks at the committed code as it is. */
export type RunMode = 'run' | 'verify';
