// Writes run.json as the run goes (RUNNING first, so a killed run is recognisable) and seals it at the end.
import path from 'node:path';
import { sealRun } from '../../evidence/seal.js';
import type { ReplayInfo, RunGroup } from '../../evidence/run-group.js';
import type { AttemptSummary, RunRecord } from '../../evidence/run-record.js';
import { ATTEMPT_SCHEMA_VERSION, type AttemptFile } from '../../evidence/attempt-record.js';
import { writeJsonAtomic } from '../../evidence/write-json.js';
import { git, gitCallerEnvironment } from '../../git/git.js';
import { startTimeOf } from '../../process/process-table.js';
import { elenchosVersion } from '../../version.js';
import { sha256 } from '../../util/sha256.js';
import { canonicalJson } from '../lock/contract-lock.js';
import { criteriaWithEvidence } from './attempt-criteria.js';
import type { AttemptRecord, RunContext, Terminal } from './run-context.js';
import { pauseForTest } from '../test-pause.js';
import { verifierInvocation } from './verify-context.js';
import { attemptPaths, runJsonPath } from '../../evidence/layout.js';
import { sealsOf } from './attempt-seals.js';
import { signingKeyFor } from '../../util/signing-key.js';

/** run.json as the run writes it: the schema's record (src/evidence/run-record.ts is its one definition). */
export type RunRecordDraft = RunRecord;

/** Writes the first run.json (state RUNNING, contract hashes) before anything runs. */
export async function startRunRecord(
  ctx: RunContext,
  extra: { configFile: string | null; host: string; keep: boolean; group?: RunGroup },
): Promise<RunRecordDraft> {
  // Asking the verifier its version spawns it: do that beside the run, not in front of it.
  const version = verifierVersion(ctx);
  const draft = await baseRunRecord({
    runId: ctx.runId,
    mode: ctx.mode,
    root: ctx.root,
    config: ctx.config,
    resolved: ctx.resolved,
    locked: ctx.locked,
    configFile: extra.configFile,
    startedAt: ctx.startedAt,
    host: extra.host,
    agent: ctx.replay ? REPLAY_AGENT : ctx.mode === 'run' ? ctx.config.agent.type : null,
    workspace: { path: path.relative(ctx.root, ctx.workspace) || '.', base: ctx.base, kept: extra.keep },
    group: extra.group,
    replay: ctx.replay?.info,
  });
  versions.set(draft, version);
  await writeJsonAtomic(runJsonPath(ctx.runDir), draft);
  return draft;
}

/** What a run's first record is made of: a plain run's (above) and a best-of run's (best-of/best-of-record.ts). */
export interface RecordBasis {
  runId: string;
  mode: RunContext['mode'];
  root: string;
  config: RunContext['config'];
  resolved: RunContext['resolved'];
  locked: readonly Pick<RunContext['locked'][number], 'path' | 'sha256' | 'role'>[];
  /** The config file's absolute path, when one was read. */
  configFile: string | null;
  startedAt: number;
  host: string;
  /** The agent type(s) the record names; null for a verify. */
  agent: string | null;
  workspace: RunRecord['workspace'];
  /** The command's group, when it ran several tasks, a share, or a join (docs/scale.md). */
  group?: RunGroup;
  /** A join's re-verification of a stored change. */
  replay?: ReplayInfo;
}

/** What a replaying run names as its agent (tools.agent): no agent worked, a stored change was applied. */
export const REPLAY_AGENT = 'replay';

/** The RUNNING record with the contract hashes and the tools, before anything runs. */
export async function baseRunRecord(b: RecordBasis): Promise<RunRecordDraft> {
  return {
    schemaVersion: 1,
    runId: b.runId,
    mode: b.mode,
    task: { id: b.resolved.task.id, file: b.resolved.label, title: b.resolved.task.title },
    state: 'RUNNING',
    reason: null,
    message: null,
    tools: { elenchos: elenchosVersion(), node: process.version, git: await gitVersion(b.root), verifier: null, agent: b.agent },
    contract: { files: b.locked.map((f) => ({ path: f.path, sha256: f.sha256, role: f.role })) },
    configFingerprint: sha256(canonicalJson(b.config)),
    configFile: b.configFile ? path.relative(b.root, b.configFile) : null,
    verifier: { type: b.resolved.verifierType, testFile: b.resolved.testFileLabel },
    startedAt: new Date(b.startedAt).toISOString(),
    finishedAt: null,
    durationMs: null,
    pid: process.pid,
    pidStartTime: startTimeOf(process.pid),
    host: b.host,
    workspace: b.workspace,
    attempts: [],
    ...(b.group ? { group: b.group } : {}),
    ...(b.replay ? { replay: b.replay } : {}),
  };
}

/** Writes attempt.json and refreshes run.json after each attempt, so partial evidence stays readable. */
export async function updateRunRecord(
  ctx: RunContext,
  draft: RunRecordDraft,
  attempts: AttemptRecord[],
  dir: string,
  record: AttemptRecord,
): Promise<void> {
  const file: AttemptFile = { schemaVersion: ATTEMPT_SCHEMA_VERSION, ...record };
  await writeJsonAtomic(attemptPaths(dir).attemptJson, file);
  // Kane says its version in its stream; the others are asked once at the start.
  const details = record.verifier?.details;
  const version = details?.verifier === 'kane' ? details.kaneVersion : null;
  draft.tools.verifier = version ?? draft.tools.verifier ?? (await versions.get(draft)) ?? null;
  draft.attempts = attempts.map(summarize);
  draft.cost = ctx.budget.totals();
  await writeJsonAtomic(runJsonPath(ctx.runDir), draft);
}

/**
 * Seals the run (src/evidence/seal.ts): run.json RUNNING with the outcome under `sealing`, every stored
 * file redacted, the manifest over the final run.json, then the final run.json renamed into place.
 * `outcome` is asked again at each step, so an interrupt during sealing changes what is sealed.
 */
export async function finishRun(
  ctx: RunContext,
  draft: RunRecordDraft,
  attempts: AttemptRecord[],
  outcome: () => Terminal,
): Promise<RunRecordDraft> {
  draft.attempts = attempts.map(summarize);
  draft.cost = ctx.budget.totals();
  draft.tools.verifier ??= (await versions.get(draft)) ?? null;
  const finishedAt = new Date();
  const finalRecord = (): RunRecordDraft => {
    const terminal = outcome();
    return {
      ...draft,
      state: terminal.state,
      reason: terminal.reason,
      message: terminal.message,
      ...(terminal.state === 'ERROR' ? { tampering: terminal.tampering === true } : {}),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - ctx.startedAt,
    };
  };
  const sealed = await sealRun(ctx.runDir, finalRecord, {
    redactor: ctx.redactor,
    signingKey: signingKeyFor(ctx.env),
    onSealing: () => pauseForTest('sealing', ctx.env),
    sealed: sealsOf(ctx),
    onSealsBroken: (problems) =>
      ctx.reporter.onEvent({
        type: 'phase',
        attempt: null,
        phase: 'evidence',
        message: `warning: evidence sealed when its attempt ended was changed since (kept as sealed in the manifest, so evidence verify names it): ${problems.join('; ')}`,
      }),
  });
  Object.assign(draft, sealed);
  return draft;
}

function summarize(record: AttemptRecord): AttemptSummary {
  return {
    number: record.number,
    kind: record.kind,
    status: record.status,
    summary: record.summary,
    // With what a CI report shows beside each (durations, failing tests' messages): `merge` has only this.
    criteria: criteriaWithEvidence(record).map((c, i) => ({
      ...c,
      status: record.criteria[i]!.status,
      steps: record.criteria[i]!.steps,
    })),
    startedAt: record.startedAt,
    durationMs: record.durationMs,
    cost: record.cost,
  };
}

// By the run's record, not its context: the attempts run in a copy of the context (with its baselines).
const versions = new WeakMap<RunRecordDraft, Promise<string | null>>();

/** The verifier's version, asked once at the start (null when it does not say). */
async function verifierVersion(ctx: RunContext): Promise<string | null> {
  const { command } = verifierInvocation(ctx.config, ctx.resolved);
  const version = await ctx.resolved.verifier.version?.({ command, cwd: ctx.root, env: ctx.env }).catch(() => null);
  return version ?? null;
}

// The git on PATH answers the same for every task of one `verify`: asked once per PATH.
const gitVersions = new Map<string, Promise<string>>();

function gitVersion(cwd: string): Promise<string> {
  const key = gitCallerEnvironment().PATH ?? '';
  let version = gitVersions.get(key);
  if (!version) {
    version = git(['--version'], { cwd }).then(
      (out) => out.trim().replace(/^git version /, ''),
      () => 'unknown',
    );
    gitVersions.set(key, version);
  }
  return version;
}
