// attempt.json: what one attempt did and found, and the source of schemas/attempt.schema.json. Written
// by the run loop (core/run/run-record-writer.ts), read back by show, report, apply and verify's JUnit.
import * as z from 'zod';
import { ValidationError } from '../errors.js';
import { EVIDENCE_FILE_LIMIT, readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { AttemptGuardsSchema } from './guards-record.js';
import {
  AGENT_ENDINGS,
  APP_START_FAILURES,
  ATTEMPT_KINDS,
  ATTEMPT_OUTCOMES,
  COMMAND_FAILURE_KINDS,
  COMMAND_STEP_STATUSES,
  CRITERION_STATUSES,
  FINAL_RUN_STATES,
  FINDING_KINDS,
  KANE_STEP_STATUSES,
  RUN_REASONS,
  STEP_VERDICTS,
  SWEEP_OUTCOMES,
  TEST_OUTCOME_KINDS,
  VERDICT_STATUSES,
} from '../states.js';

export const ATTEMPT_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();

export const CriterionResultSchema = z.looseObject({
  id: z.string(),
  description: z.string(),
  status: z.enum(CRITERION_STATUSES),
  /** Indexes of the steps that verify it. */
  steps: z.array(z.number().int()),
  /** Why it is not PASS, for people. */
  note: z.string().nullable(),
});

/** The verifier's triage of a failed step (Kane's verdict), kept beside the finding. */
export const VerdictSchema = z.looseObject({
  confirmed: z.boolean().nullable(),
  family: z.string().nullable(),
  category: z.string().nullable(),
  severity: z.string().nullable(),
  confidence: z.number().nullable(),
  bugTitle: z.string().nullable(),
  oneLiner: z.string().nullable(),
  status: z.string().nullable().optional(),
  downgradeReason: z.string().nullable().optional(),
});

/** A file Playwright attached to a failing test (trace, screenshot, page snapshot). */
const AttachmentSchema = z.looseObject({ name: z.string(), contentType: z.string().nullable(), path: z.string().nullable() });

export const FindingSchema = z.looseObject({
  step: z.number().int().nullable(),
  heading: z.string().nullable(),
  kind: z.enum(FINDING_KINDS),
  reason: z.string().nullable(),
  /** The verifier's whole message behind `reason` (an assertion's diff, a call log). */
  detail: z.string().nullable().optional(),
  /** Repository-relative `file:line:column` in the test file where it failed. */
  location: z.string().nullable().optional(),
  reasonCode: z.string().nullable(),
  /** The same error again is certain (the test itself decides it): the run did not re-verify. */
  deterministic: z.boolean().optional(),
  resultCode: z.number().nullable(),
  verdict: VerdictSchema.nullable(),
  sessionId: z.string().nullable(),
  evidencePack: z.string().nullable(),
  /** Playwright: the trace, screenshots and page snapshot of the failing test. */
  attachments: z.array(AttachmentSchema).optional(),
});

const AgentEndingSchema = z.looseObject({ kind: z.enum(AGENT_ENDINGS), detail: z.string() });

/** The agent's turn as its adapter reported it (agents/types.ts AgentOutcome). */
export const AgentRecordSchema = z.looseObject({
  ok: z.boolean(),
  /** Why a turn that did not succeed gave no work to verify. */
  reason: z.enum(RUN_REASONS).optional(),
  message: z.string().optional(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nonnegative(),
  costUsd: z.number().nullable(),
  turns: z.number().nullable(),
  tokens: z.looseObject({ input: count, output: count }).nullable().optional(),
  summary: z.string().nullable().optional(),
  ending: AgentEndingSchema.optional(),
  /** The earlier ending a dispatch was tried again after (a transient API error, once). */
  retriedAfter: AgentEndingSchema.optional(),
});

/** How the app fared on the unchanged base commit, when it did not come up (core/app/app-blame.ts). */
const BaseProbeSchema = z.looseObject({ ok: z.boolean(), message: z.string(), logTail: z.string() });

/** The app of an attempt: up with its ready time, or why not (the last lines of its log, the base probe). */
export const AppRecordSchema = z.discriminatedUnion('ok', [
  z.looseObject({ ok: z.literal(true), url: z.string(), port: z.number().int(), command: z.string(), readyMs: z.number() }),
  z.looseObject({
    ok: z.literal(false),
    url: z.string(),
    port: z.number().int(),
    command: z.string(),
    reason: z.enum(APP_START_FAILURES),
    message: z.string(),
    exitCode: z.number().int().nullable().optional(),
    logTail: z.string().optional(),
    baseProbe: BaseProbeSchema.optional(),
  }),
]);

/** Kane's facts (verifiers/kane/run-kane.ts): its version, session, credits, and each step of the test file. */
const KaneDetailsSchema = z.looseObject({
  verifier: z.literal('kane'),
  /** The rule of Kane's table that decided the status. */
  rule: z.string(),
  kaneVersion: z.string().nullable(),
  streamContractVersion: z.number().nullable(),
  sessionId: z.string().nullable(),
  shareUrl: z.string().nullable(),
  creditsConsumed: z.number().nullable(),
  evidencePack: z.string().nullable(),
  skippedLines: count,
  steps: z.array(
    z.looseObject({
      index: z.number().int(),
      heading: z.string(),
      status: z.enum(KANE_STEP_STATUSES),
      verdict: z.enum(STEP_VERDICTS),
      durationSeconds: z.number().nullable(),
    }),
  ),
  command: z.string(),
  argv: z.array(z.string()),
});

/** A command verifier's facts (verifiers/command/adapter.ts): how it ran and the steps it reported. */
const CommandDetailsSchema = z.looseObject({
  verifier: z.literal('command'),
  command: z.string(),
  args: z.array(z.string()),
  /** Its final `done` status (null when it never said `done`). */
  done: z.enum(['passed', 'failed']).nullable(),
  steps: z.array(
    z.looseObject({
      step: z.number().int(),
      title: z.string().nullable(),
      status: z.enum(COMMAND_STEP_STATUSES),
      failure: z.enum(COMMAND_FAILURE_KINDS).nullable(),
      message: z.string().nullable(),
    }),
  ),
});

/** Playwright's facts (verifiers/playwright/run-playwright.ts); its records name no `verifier`, so none or `playwright`. */
const PlaywrightDetailsSchema = z.looseObject({
  verifier: z.literal('playwright').optional(),
  command: z.array(z.string()),
  browserPath: z.string().nullable(),
  /** The config Elenchos wrote for the run, its JSON report and Playwright's output folder. */
  config: z.string(),
  report: z.string(),
  outputDir: z.string(),
  /** The marker in every browser's environment, by which leftovers are found and killed. */
  browserMarker: z.string(),
  /** Each test of the listing: how it ended (`not_run` when it did not run) and how long all its tries took. */
  tests: z.array(
    z.looseObject({
      index: z.number().int(),
      title: z.string(),
      outcome: z.enum([...TEST_OUTCOME_KINDS, 'not_run']),
      durationMs: z.number().nullable(),
    }),
  ),
});

/** What the verifier adds about itself, by verifier: `verifier` tells them apart (absent: Playwright). */
export const VerifierDetailsSchema = z.discriminatedUnion('verifier', [KaneDetailsSchema, CommandDetailsSchema, PlaywrightDetailsSchema]);

export const VerifierRecordSchema = z.looseObject({
  status: z.enum(VERDICT_STATUSES),
  summary: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().nonnegative(),
  details: VerifierDetailsSchema,
});

/** A workspace snapshot (git/snapshot.ts): the tree as git and the disk see it, hashed. */
const SnapshotSchema = z.looseObject({
  head: z.string(),
  contentHash: z.string(),
  changed: z.array(z.string()),
  entries: z.record(z.string(), z.string()),
  codes: z.record(z.string(), z.string()),
});

const TerminalSchema = z.looseObject({
  state: z.enum(FINAL_RUN_STATES),
  reason: z.enum(RUN_REASONS).nullable(),
  message: z.string().nullable(),
  tampering: z.boolean().optional(),
});

const CostSchema = z.looseObject({
  agentUsd: z.number().nullable(),
  agentTurns: z.number().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  kaneCredits: z.number().nullable(),
});

const SweepSchema = z.looseObject({
  outcome: z.enum(SWEEP_OUTCOMES),
  message: z.string(),
  finding: FindingSchema.nullable(),
  credits: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nonnegative(),
  objective: z.string(),
});

const WindowSchema = z.looseObject({
  ok: z.boolean(),
  /** Why the window could not be proved stable (only when not ok). */
  problem: z.string().optional(),
  written: z.array(z.string()),
  directories: count,
});

const StoppedProcessSchema = z.looseObject({
  after: z.enum(['agent', 'verification']),
  pid: z.number().int(),
  command: z.string(),
  /** How it was found: `marker`, `cwd`, `root`, `exe`, `open-file`. */
  found: z.array(z.string()),
});

export const AttemptFileSchema = z.looseObject({
  schemaVersion: z.literal(ATTEMPT_SCHEMA_VERSION),
  number: z.number().int().positive(),
  kind: z.enum(ATTEMPT_KINDS),
  /** A verdict; NOT_VERIFIED when the attempt ended before one, APP_FAILED when the app is broken on the base too. */
  status: z.enum(ATTEMPT_OUTCOMES),
  summary: z.string(),
  criteria: z.array(CriterionResultSchema),
  findings: z.array(FindingSchema),
  startedAt: z.iso.datetime({ offset: true }),
  durationMs: z.number().nonnegative(),
  /** Null for attempts that ran no agent (re-verification, verify). */
  agent: AgentRecordSchema.nullable(),
  app: AppRecordSchema.nullable(),
  verifier: VerifierRecordSchema.nullable(),
  snapshots: z.looseObject({ before: SnapshotSchema.nullable(), after: SnapshotSchema.nullable() }),
  /** Set when this attempt ends the run. */
  terminal: TerminalSchema.nullable(),
  /** Set when the app did not come up (a repairable product failure). */
  appFailure: z.string().nullable(),
  /** What it spent (absent in records written before cost accounting). */
  cost: CostSchema.optional(),
  /** Kane's exploratory sweep after a PASS, when `verifier.sweep` is set. */
  sweep: SweepSchema.optional(),
  /** What the filesystem watcher saw in the verifier window. */
  window: WindowSchema.optional(),
  /** Escaped processes killed after the agent's turn or after verification (absent in older records). */
  stoppedProcesses: z.array(StoppedProcessSchema).optional(),
  /** The guards this attempt ran and how (docs/verification.md#what-stood-behind-a-verdict); absent in older records. */
  guards: AttemptGuardsSchema.optional(),
});

export type AttemptFile = z.infer<typeof AttemptFileSchema>;
export type AppRecord = z.infer<typeof AppRecordSchema>;
export type VerifierRecord = z.infer<typeof VerifierRecordSchema>;
export type VerifierDetails = z.infer<typeof VerifierDetailsSchema>;

/** Reads and validates an attempt.json; a file that is missing, not JSON or not an attempt record throws (every problem listed). */
export async function readAttemptFile(file: string): Promise<AttemptFile> {
  const { value } = await readJsonFile(file, file, { maxBytes: EVIDENCE_FILE_LIMIT });
  const parsed = AttemptFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = formatZodIssues(file, parsed.error.issues);
  throw new ValidationError(`${file}: not a valid attempt record (${details.length} problem${details.length === 1 ? '' : 's'})`, {
    details,
  });
}
