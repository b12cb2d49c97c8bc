// The interface every verifier (kane, playwright, command) implements, and what it returns.
import type { FindingKind, StepEndStatus, VerdictStatus } from '../states.js';
import type { VerifierDetails } from '../evidence/attempt-record.js';
import type { CriteriaMap, CriterionResult, DeclaredStep } from '../contract/criteria-map.js';
import type { TestPrint } from '../contract/step-print.js';
import type { Criterion, Variable, VerifierType } from '../contract/task-schema.js';

/** The verifier's triage of a failed step, kept side by side with the finding. */
export type Verdict = {
  confirmed: boolean | null;
  family: string | null;
  category: string | null;
  severity: string | null;
  confidence: number | null;
  bugTitle: string | null;
  oneLiner: string | null;
  /** Kane: `failed` or `broken` (the pack's word for "the automation broke"). */
  status?: string | null;
  /** Kane: why a verdict was downgraded from confirmed (citations could not be verified). */
  downgradeReason?: string | null;
};

/** One thing that went wrong, with everything a person (or the repair prompt) needs beside it. */
export type Finding = {
  step: number | null;
  heading: string | null;
  /** How Elenchos classifies this finding. */
  kind: FindingKind;
  /** One line: what went wrong. */
  reason: string | null;
  /**
   * The verifier's whole message(s) behind `reason`, line breaks kept (an assertion's diff, a call log,
   * every error of a test), capped in bytes; quoted as a block in the repair prompt and by `show`.
   */
  detail?: string | null;
  /** Repository-relative `file:line:column` in the test file where it failed. */
  location?: string | null;
  reasonCode: string | null;
  /** The same error again is certain (the test itself decides it: a fixed host): a re-verification is no use. */
  deterministic?: boolean;
  resultCode: number | null;
  verdict: Verdict | null;
  sessionId: string | null;
  evidencePack: string | null;
};

/** Live progress a verifier reports while it runs (the terminal reporter renders it). */
export type VerifierProgress =
  | { kind: 'step-start'; step: number; heading: string }
  | { kind: 'step-end'; step: number; heading: string; status: StepEndStatus; durationSeconds: number | null }
  | { kind: 'note'; message: string };

export interface VerifyContext {
  /** Where the verifier runs (the worktree, or the checkout with --in-place). */
  cwd: string;
  /** Absolute path of the test file inside `cwd`. */
  testFile: string;
  /** Repo-relative path of the test file. */
  testFileLabel: string;
  /** The running app's URL. */
  url: string;
  criteria: readonly Criterion[];
  map: CriteriaMap;
  variables: Record<string, Variable>;
  command: string | undefined;
  args: readonly string[];
  /** Extra environment configured for the verifier. */
  env: Record<string, string>;
  /** Environment the child environment is built from (credentials included: the verifier needs them). */
  baseEnv: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** The attempt's `verifier/` evidence directory (exists). */
  evidenceDir: string;
  browserPath: string | undefined;
  signal: AbortSignal;
  onProgress?: (progress: VerifierProgress) => void;
  /** Someone writing a spec against a running app (`verify --verifier-only`); Playwright only. */
  iterate?: IterateOptions;
}

/** `--headed`, `--grep`, `--debug`: passed to Playwright as they are. */
export interface IterateOptions {
  headed: boolean;
  debug: boolean;
  grep: string | null;
}

export interface VerificationResult {
  status: VerdictStatus;
  /** One line for people: why this status. */
  summary: string;
  criteria: CriterionResult[];
  findings: Finding[];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Verifier-specific facts (Kane: session id, counts of skipped lines, evidence pack path), by verifier (src/evidence/attempt-record.ts). */
  details: VerifierDetails;
}

/** How the verifier is run, as far as what it reads depends on it (a command verifier's own script and modules). */
export interface VerifierInvocation {
  /** `verifier.command` when it applies to this task's verifier (split into words as a shell would). */
  command: string | undefined;
  args: readonly string[];
  /** `verifier.env` (a PYTHONPATH there widens where Python imports look). */
  env: Readonly<Record<string, string>>;
}

/** What a verifier reads besides its test file, as found in one checkout. */
export interface VerifierInputs {
  /** Repo-relative files, locked by hash with the contract (never the test file itself). */
  files: string[];
  /** One line per load whose target is only known at run time (`tests/x.spec.ts:12: …; fix`): nothing can pin it. */
  unresolved: string[];
}

/** Where and how a verifier may run to read a test file's steps (only Playwright runs anything). */
export interface ReadStepsOptions {
  /** The repository root (or the checkout the test file lives in). */
  root: string;
  /** `verifier.command` when it applies to this task's verifier. */
  command: string | undefined;
  /** `verifier.env`. */
  env: Record<string, string>;
  /** The environment a child's is built from. */
  baseEnv: NodeJS.ProcessEnv;
  /**
   * May the listing be kept under `.elenchos/listings/` for later processes? Only commands that write into
   * `.elenchos/` anyway (`run`, `verify`) say yes: `check` reads kept listings but leaves the checkout as it was.
   */
  keep?: boolean;
}

export interface VerifierAdapter {
  readonly type: VerifierType;
  /** Default executable, for preflight and for spawning. */
  defaultCommand(): { command: string; args: string[] };
  /**
   * Fingerprints of what the verifier runs on (executable, packages), taken before the agent and
   * compared before and after each verification: a swapped toolchain is tampering. Defaults to the
   * resolved executable alone.
   */
  toolchain?(options: {
    cwd: string;
    testFileLabel: string;
    command: string | undefined;
    env: NodeJS.ProcessEnv;
    invocation: VerifierInvocation;
  }): Promise<string[]>;
  /** The verifier's own version for the run record (null when it cannot tell quickly). */
  version?(options: { command: string | undefined; cwd: string; env: NodeJS.ProcessEnv }): Promise<string | null>;
  /** A problem with the test file's name for this verifier (null when fine). */
  checkTestFileName(relative: string): string | null;
  /**
   * The steps/tests the test file declares, with the criteria each claims to verify. Playwright asks the
   * runner itself (`--list`), so it needs where to run and with what; the others read the file.
   */
  readSteps(testFile: string, options: ReadStepsOptions): Promise<DeclaredStep[]>;
  /**
   * Every input the verifier reads besides the test file (imports, variables files, a command verifier's own
   * modules), followed statically in `root`, and the loads that cannot be followed.
   */
  lockedInputs(root: string, testFileLabel: string, invocation: VerifierInvocation): Promise<VerifierInputs>;
  /** Fingerprints and assertions of each step/test, for the test-weakening lock (`elenchos lock`). */
  printSteps?(testFile: string): Promise<TestPrint>;
  /**
   * Repo-relative path prefixes the verifier writes as its own output (excluded from stability, kept as
   * evidence), computed from the contract in `root` before the agent runs: exact folders, never a name
   * matched at any depth (see `isUnderPrefix`).
   */
  outputPaths(root: string, testFileLabel: string): Promise<string[]>;
  verify(context: VerifyContext): Promise<VerificationResult>;
  /**
   * Starts the verifier while the app starts, held back before it looks at anything the app serves
   * (Playwright: the runner loads and compiles, then waits before the first test). Only inside the
   * watched verifier window: whatever it reads early is read while every write to the worktree counts.
   * Null when this context cannot be held back (then `verify` runs once the app is ready).
   */
  start?(context: VerifyContext): Promise<StartedVerification> | null;
}

/** A verifier started ahead of the app (`start`): let go once the app is ready, or stopped unheard. */
export interface StartedVerification {
  /** The app is ready: the verifier looks now. Resolves to what `verify` would have. */
  run(): Promise<VerificationResult>;
  /** Stops it and everything it started, without a verdict (no-op once `run` was called). */
  abandon(): Promise<void>;
}
