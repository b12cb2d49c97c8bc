// run.json: the run record, the machine-readable result, and the source of schemas/run.schema.json.
import { readdir } from 'node:fs/promises';
import * as z from 'zod';
import { describeError, ValidationError } from '../errors.js';
import { EVIDENCE_FILE_LIMIT, readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { VERIFIER_TYPES } from '../contract/task-schema.js';
import {
  ATTEMPT_KINDS,
  ATTEMPT_STATUSES,
  CANDIDATE_STATES,
  CRITERION_STATUSES,
  FINAL_RUN_STATES,
  RUN_MODES,
  RUN_REASONS,
  RUN_STATES,
} from '../states.js';
import { runDir as runDirOf, runJsonPath, runsDir } from './layout.js';
import { RunGuardsSchema } from './guards-record.js';
import { JoinInfoSchema, JoinedCandidateSchema, ReplayInfoSchema, RunGroupSchema } from './run-group.js';

export const RUN_SCHEMA_VERSION = 1;
export { ATTEMPT_STATUSES, CRITERION_STATUSES, RUN_REASONS, RUN_STATES } from '../states.js';
export type { AttemptStatus, RunReason, RunState } from '../states.js';
export const CONTRACT_ROLES = ['task', 'task-canonical', 'test', 'import', 'variables', 'spec', 'test-lock'] as const;

const timestamp = z.iso.datetime({ offset: true });
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256');

export const CriterionSummarySchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(CRITERION_STATUSES),
  /** 1-based verifier steps that name this criterion. */
  steps: z.array(z.number().int().positive()),
  /** The contract's words for it, and why it got its status, so that a run record alone can be reported (merge). */
  description: z.string().optional(),
  note: z.string().nullable().optional(),
  /** Summed duration of its tests (null when the verifier measures none). */
  durationMs: z.number().nonnegative().nullable().optional(),
  /** Each failing test verifying it: name, location, whole message, trace command (for JUnit bodies). */
  failures: z.array(z.string()).optional(),
});

export const AttemptSummarySchema = z.looseObject({
  number: z.number().int().positive(),
  status: z.enum(ATTEMPT_STATUSES),
  /** `agent`: the agent worked, then the verifier ran; `reverify`: verification only, no repair charged. */
  kind: z.enum(ATTEMPT_KINDS),
  criteria: z.array(CriterionSummarySchema),
  summary: z.string(),
  startedAt: timestamp,
  durationMs: z.number().int().nonnegative().nullable(),
});

export const ContractFileSchema = z.looseObject({
  path: z.string().min(1),
  sha256,
  role: z.enum(CONTRACT_ROLES),
});

/** What a run spent; `agentUsd` null when its agent reported no dollars (Codex, Gemini CLI, a command agent): unknown, not $0. */
const CostSchema = z.looseObject({
  agentUsd: z.number().nonnegative().nullable(),
  agentTurns: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  kaneCredits: z.number().nonnegative(),
});

/** One candidate of a best-of run (docs/best-of.md): a full run kept in `candidates/<name>/`. */
export const CandidateSummarySchema = z.looseObject({
  name: z.string().min(1),
  /** `default` (the config's `agent`) or a key of the config's `agents`. */
  agent: z.string().min(1),
  agentType: z.string(),
  /** 1-based position in the plan; the agent sees it as ELENCHOS_CANDIDATE_INDEX. */
  index: z.number().int().positive(),
  /** Its own run id (its worktree is named after it) and folder, relative to the best-of run's. */
  runId: z.string().min(1),
  dir: z.string().min(1),
  /**
   * STOPPED: ended by --stop-at-first once another was VERIFIED (its own run.json: ERROR STOPPED), or
   * never started (another was VERIFIED first, Ctrl-C, or a whole-run cap already reached).
   */
  state: z.enum(CANDIDATE_STATES),
  reason: z.enum(RUN_REASONS).nullable(),
  message: z.string().nullable(),
  tampering: z.boolean().optional(),
  /** Agent attempts (1 + repairs): the first criterion of the winner rule. */
  attempts: z.number().int().nonnegative(),
  /** Every attempt, re-verifications included. */
  verifications: z.number().int().nonnegative(),
  cost: CostSchema.nullable(),
  /** The change `apply` would take: lines added + removed, binary files by size (null: none stored). */
  change: z
    .looseObject({
      attempt: z.number().int().positive(),
      files: z.number().int().nonnegative(),
      added: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      binaryBytes: z.number().int().nonnegative(),
      size: z.number().int().nonnegative(),
    })
    .nullable(),
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  durationMs: z.number().int().nonnegative().nullable(),
  /** Its last attempt's verdict per criterion: how far it got. */
  criteria: z.array(z.looseObject({ id: z.string(), status: z.enum(CRITERION_STATUSES) })),
  /** What stood behind its verdict (its own run.json `guards`). */
  guards: RunGuardsSchema.optional(),
  /** A joined run's candidate (docs/scale.md): its share and what the share claimed. */
  joined: JoinedCandidateSchema.optional(),
});

export const RunRecordSchema = z
  .looseObject({
    schemaVersion: z.literal(RUN_SCHEMA_VERSION),
    runId: z.string().min(1),
    mode: z.enum(RUN_MODES),
    task: z.looseObject({ id: z.string().min(1), file: z.string().min(1), title: z.string() }),
    state: z.enum(RUN_STATES),
    reason: z.enum(RUN_REASONS).nullable(),
    message: z.string().nullable(),
    /**
     * An ERROR run that caught what only an agent does (docs/needs-human.md): the task needs a human at
     * once. Absent in records written before it existed (and in runs that did not end ERROR).
     */
    tampering: z.boolean().optional(),
    tools: z.looseObject({
      elenchos: z.string(),
      node: z.string(),
      git: z.string(),
      verifier: z.string().nullable(),
      agent: z.string().nullable(),
    }),
    contract: z.looseObject({ files: z.array(ContractFileSchema) }),
    /** The verifier and test file the task names (what `apply` rebuilds the verified tree against). */
    verifier: z.looseObject({ type: z.enum(VERIFIER_TYPES), testFile: z.string().min(1) }).optional(),
    configFingerprint: z.string(),
    startedAt: timestamp,
    finishedAt: timestamp.nullable(),
    durationMs: z.number().int().nonnegative().nullable(),
    pid: z.number().int().nonnegative(),
    /** /proc/<pid>/stat field 22 of the owning process, so gc never takes a reused pid for a live run. */
    pidStartTime: z.string().nullable().optional(),
    host: z.string(),
    workspace: z.looseObject({ path: z.string(), base: z.string(), kept: z.boolean() }),
    attempts: z.array(AttemptSummarySchema),
    /** What the run spent, summed over its attempts (absent in records written before cost accounting). */
    cost: CostSchema.optional(),
    /** A best-of run (run --agents / --best-of): every candidate, in the plan's order (absent in a plain run). */
    candidates: z.array(CandidateSummarySchema).optional(),
    /** The chosen candidate and why (docs/best-of.md); null when none was VERIFIED. */
    winner: z
      .looseObject({ name: z.string().min(1), reason: z.string() })
      .nullable()
      .optional(),
    bestOf: z.looseObject({ parallel: z.number().int().positive(), stopAtFirst: z.boolean() }).optional(),
    /** What stood behind the verdict (docs/verification.md#what-stood-behind-a-verdict); absent in older records. */
    guards: RunGuardsSchema.optional(),
    /** Runs that went together (docs/scale.md): one `run <task…>`, one share of a split plan, one `join`. */
    group: RunGroupSchema.optional(),
    /** A joined run: its shares and the candidates re-verified here (docs/scale.md#join). */
    join: JoinInfoSchema.optional(),
    /** A run that replayed a share's stored change and verified it here (a joined run's candidate). */
    replay: ReplayInfoSchema.optional(),
    /** Present while state is RUNNING and the outcome below is being sealed (redaction, manifest). */
    sealing: z
      .looseObject({
        state: z.enum(FINAL_RUN_STATES),
        reason: z.enum(RUN_REASONS).nullable(),
        message: z.string().nullable(),
      })
      .optional(),
  })
  .refine((run) => run.state !== 'VERIFIED' || run.reason === null, {
    message: 'a VERIFIED run has no reason (reason must be null)',
    path: ['reason'],
  });

export type AttemptSummary = z.infer<typeof AttemptSummarySchema>;
export type RunRecord = z.infer<typeof RunRecordSchema>;
export type CandidateSummary = z.infer<typeof CandidateSummarySchema>;

/** Reads and validates `<runDir>/run.json`; every schema problem is listed at once. */
export async function readRunRecord(runDir: string): Promise<RunRecord> {
  const file = runJsonPath(runDir);
  const { value } = await readJsonFile(file, file, { maxBytes: EVIDENCE_FILE_LIMIT });
  const parsed = RunRecordSchema.safeParse(value);
  if (!parsed.success) {
    const details = formatZodIssues(file, parsed.error.issues);
    throw new ValidationError(`${file}: not a valid run record (${details.length} problem${details.length === 1 ? '' : 's'})`, { details });
  }
  return parsed.data;
}

export interface UnreadableRun {
  runId: string;
  dir: string;
  message: string;
}

export interface ListRunsResult {
  /** Newest first. */
  runs: RunRecord[];
  /** Run folders whose run.json is missing or invalid (a crash before it was written, a hand edit). */
  unreadable: UnreadableRun[];
}

/** Every stored run of `root`, newest first; unreadable run folders are reported, not fatal. */
export async function listRuns(root: string): Promise<ListRunsResult> {
  const entries = await readdir(runsDir(root), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const result: ListRunsResult = { runs: [], unreadable: [] };
  // Run ids sort by time, so the folder names give the order without reading a single file.
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .reverse();
  for (const runId of names) {
    const dir = runDirOf(root, runId);
    try {
      result.runs.push(await readRunRecord(dir));
    } catch (error) {
      const details = error instanceof ValidationError ? error.details : [];
      result.unreadable.push({ runId, dir, message: [describeError(error), ...details].join('\n') });
    }
  }
  return result;
}
