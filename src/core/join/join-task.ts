// One task of a join: its candidates as the accepted shares report them (imported into the joined run's
// folder, never over other evidence), the ones that claim VERIFIED ranked by the best-of rule, and each
// replayed and verified HERE in that order until one passes: the verifier on this machine decides. Then one
// run record with every candidate, the choice and the join's problems, sealed like any run (docs/scale.md#join).
import { existsSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { ElenchosError, ExitCode, describeError } from '../../errors.js';
import { candidateDir, runDir as runDirOf, runJsonPath, workspacesDir } from '../../evidence/layout.js';
import type { JoinInfo, RunGroup } from '../../evidence/run-group.js';
import { newRunId } from '../../evidence/run-id.js';
import { RunRecordSchema, readRunRecord, type CandidateSummary, type RunRecord } from '../../evidence/run-record.js';
import { sealingRecord } from '../../evidence/seal.js';
import { writeManifest } from '../../evidence/manifest.js';
import { Redactor } from '../../evidence/redact.js';
import { jsonText, writeJsonAtomic, writeTextAtomic } from '../../evidence/write-json.js';
import { attemptDir, attemptPaths } from '../../evidence/layout.js';
import { withSigningKeyOf, signingKeyFor } from '../../util/signing-key.js';
import { decide } from '../best-of/best-of-record.js';
import { measureChange } from '../best-of/change-size.js';
import { chooseWinner, rank, type Contender } from '../best-of/choose.js';
import type { RunReporter } from '../events.js';
import type { PlanEntry } from '../many/plan.js';
import type { ShareManifest } from '../many/share-manifest.js';
import { SHARE_RUNS_DIR } from '../many/share-manifest.js';
import { BudgetTracker } from '../run/budget.js';
import { exitCodeFor } from '../run/decide.js';
import { REPLAY_AGENT, baseRunRecord } from '../run/run-record-writer.js';
import { runSecretValues } from '../run/run-secrets.js';
import { runTask } from '../run/run-task.js';
import type { TaskHere } from './here.js';

/** A share the join accepted: its manifest and where it was unpacked. */
export interface AcceptedShare {
  file: string;
  dir: string;
  manifest: ShareManifest;
}

export interface JoinTaskInput {
  task: TaskHere;
  /** The task's entries of the plan, in order. */
  entries: PlanEntry[];
  accepted: readonly AcceptedShare[];
  /** For an entry no accepted share holds: why (its share missing or rejected). */
  why: (entry: PlanEntry) => string;
  group: RunGroup;
  join: { shares: JoinInfo['shares']; problems: string[] };
  cwd: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  reporterFor: (candidate: string) => RunReporter;
  onLine?: (line: string) => void;
}

export interface JoinTaskResult {
  record: RunRecord;
  runDir: string;
  exitCode: number;
}

/** A candidate as the join holds it: its row, and where its share's evidence of it now lies. */
interface Held {
  entry: CandidateSummary;
  /** Its folder in the joined run (a copy of the share's), null when no accepted share holds it. */
  dir: string | null;
  record: RunRecord | null;
}

const DEFAULT_NAME = 'default';

/** Imports, ranks, re-verifies here, records and seals one task's joined run. */
export async function joinTask(input: JoinTaskInput): Promise<JoinTaskResult> {
  const { task } = input;
  const runId = newRunId();
  const dir = runDirOf(task.pre.root, runId);
  await mkdir(dir, { recursive: true });
  const startedAt = Date.now();
  const held: Held[] = [];
  for (const [i, entry] of input.entries.entries()) held.push(await holdEntry(input, entry, i + 1, dir));
  const tried: string[] = [];
  let winner: { name: string; reason: string } | null = null;
  const ranked = rank(await contendersOf(held));
  for (const contender of ranked) {
    if (input.signal.aborted) break;
    const h = held.find((x) => x.entry.name === contender.name)!;
    tried.push(h.entry.name);
    input.onLine?.(`${task.label}: re-verifying ${h.entry.name} here (it claims VERIFIED on ${h.entry.joined?.host ?? '?'})`);
    await replay(input, h, runId, dir);
    input.onLine?.(`${task.label}: ${h.entry.name} is ${h.entry.state}${h.entry.reason ? ` (${h.entry.reason})` : ''} here`);
    if (h.entry.state === 'VERIFIED') {
      winner = { name: h.entry.name, reason: winnerReason(ranked, held, tried) };
      break;
    }
  }
  for (const h of held) {
    if (h.entry.state === 'VERIFIED' && !h.entry.joined?.reverified) {
      h.entry.state = 'STOPPED';
      h.entry.message = winner
        ? `claimed VERIFIED on ${h.entry.joined?.host}; not re-verified: ${winner.name} passed here first`
        : `claimed VERIFIED on ${h.entry.joined?.host}; not re-verified (interrupted)`;
    }
  }
  const record = await sealJoined(input, { runId, dir, startedAt, entries: held.map((h) => h.entry), winner, tried });
  const exitCode = input.signal.aborted ? ExitCode.INTERRUPTED : exitCodeFor(record.state, record.reason);
  return { record, runDir: dir, exitCode };
}

/** The entry's row: from the share that holds it (its evidence copied in), or ERROR SHARES_REJECTED naming why not. */
async function holdEntry(input: JoinTaskInput, entry: PlanEntry, index: number, dir: string): Promise<Held> {
  const name = entry.candidate ?? DEFAULT_NAME;
  const share = input.accepted.find((s) => s.manifest.assigned.some((a) => a.task === entry.task && a.candidate === entry.candidate));
  const run = share?.manifest.runs.find((r) => r.task === entry.task);
  if (!share || !run) return { entry: missingEntry(name, index, input.why(entry)), dir: null, record: null };
  const place = `${share.manifest.share.index}-of-${share.manifest.share.total}`;
  const rel = path.posix.join('shares', place, run.runId);
  const imported = path.join(dir, rel);
  // The share's run folder as it was sealed there (a copy per joined run: never over other evidence); once,
  // when the share holds several of the task's candidates.
  if (!existsSync(imported))
    await cp(path.join(share.dir, SHARE_RUNS_DIR, run.runId), imported, { recursive: true, errorOnExist: true, force: false });
  const whole = await readRunRecord(imported);
  const summary = whole.candidates?.find((c) => c.name === name);
  const candidateRel = summary ? path.posix.join(rel, summary.dir) : rel;
  const record = summary ? await readRunRecord(path.join(dir, candidateRel)).catch(() => null) : whole;
  const base = summary ?? (await plainEntry(whole, imported));
  return {
    entry: {
      ...base,
      name,
      index,
      dir: candidateRel,
      durationMs: null,
      joined: {
        share: share.manifest.share,
        runId: run.runId,
        host: share.manifest.host,
        claimed: base.state,
        reverified: false,
      },
    },
    dir: path.join(dir, candidateRel),
    record,
  };
}

function missingEntry(name: string, index: number, why: string): CandidateSummary {
  return {
    name,
    agent: name,
    agentType: 'unknown',
    index,
    // No run of it exists anywhere this join can trust.
    runId: 'none',
    // No folder: nothing of it was imported (show says so; evidence verify asks for none, its duration being null).
    dir: `candidates/${name}`,
    state: 'ERROR',
    reason: 'SHARES_REJECTED',
    message: why,
    attempts: 0,
    verifications: 0,
    cost: null,
    change: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    criteria: [],
  };
}

/** A plain run's record as a candidate row (a share of a plan without best-of runs each task plainly). */
async function plainEntry(record: RunRecord, dir: string): Promise<CandidateSummary> {
  return {
    name: DEFAULT_NAME,
    agent: DEFAULT_NAME,
    agentType: record.tools.agent ?? 'unknown',
    index: 1,
    runId: record.runId,
    dir: '.',
    state: record.state === 'RUNNING' ? 'ERROR' : record.state,
    reason: record.reason,
    message: record.message,
    ...(record.tampering ? { tampering: true } : {}),
    attempts: record.attempts.filter((a) => a.kind === 'agent').length,
    verifications: record.attempts.length,
    cost: record.cost ?? null,
    change: await measureChange(dir, record.attempts).catch(() => null),
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    durationMs: record.durationMs,
    criteria: (record.attempts.at(-1)?.criteria ?? []).map((c) => ({ id: c.id, status: c.status })),
  };
}

/**
 * The candidates that claim VERIFIED, for the best-of rule. Their attempts and cost are the share's word
 * (they only order the tries: nothing wins without passing here); the change is measured here, from the
 * stored change that will be replayed.
 */
async function contendersOf(held: readonly Held[]): Promise<Contender[]> {
  const out: Contender[] = [];
  for (const h of held) {
    if (h.entry.state !== 'VERIFIED' || !h.dir || !h.record) continue;
    const change = await measureChange(h.dir, h.record.attempts).catch(() => null);
    if (!change) continue;
    h.entry.change = change;
    out.push({
      name: h.entry.name,
      state: 'VERIFIED',
      attempts: h.entry.attempts,
      changeSize: change.size,
      costUsd: h.entry.cost?.agentUsd ?? null,
      kaneCredits: h.entry.cost?.kaneCredits ?? 0,
      finishedAt: h.entry.finishedAt ? Date.parse(h.entry.finishedAt) : Number.MAX_SAFE_INTEGER,
    });
  }
  return out;
}

/** Replays `h`'s stored change in a fresh worktree of this checkout's HEAD and verifies it; its row becomes the verdict here. */
async function replay(input: JoinTaskInput, h: Held, runId: string, dir: string): Promise<void> {
  const { task } = input;
  const attempt = h.entry.change!.attempt;
  const slotId = `${runId}-${h.entry.name}`;
  try {
    const result = await runTask({
      cwd: input.cwd,
      taskFile: task.file,
      configFile: input.configFile,
      env: withSigningKeyOf(input.env, { ELENCHOS_CANDIDATE: h.entry.name }),
      signal: input.signal,
      repoRoot: task.pre.root,
      reporter: { onEvent: (event) => (event.type === 'run-end' ? undefined : input.reporterFor(h.entry.name).onEvent(event)) },
      candidate: {
        runId: slotId,
        dir: candidateDir(dir, h.entry.name),
        base: task.pre.head,
        locked: task.locked,
        budget: new BudgetTracker(task.pre.config.budget, Date.now()),
      },
      replay: {
        workspaceDir: attemptPaths(attemptDir(h.dir!, attempt)).workspaceDir,
        info: { runId: h.entry.joined!.runId, candidate: h.entry.name, attempt, host: h.entry.joined!.host },
        checked: task.pre,
      },
    });
    const r = result.record;
    Object.assign(h.entry, {
      runId: slotId,
      dir: path.posix.join('candidates', h.entry.name),
      state: r.reason === 'STOPPED' ? 'STOPPED' : r.state,
      reason: r.reason,
      message: r.message,
      verifications: r.attempts.length,
      change: (await measureChange(result.runDir, r.attempts).catch(() => null)) ?? h.entry.change,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      durationMs: r.durationMs,
      criteria: (r.attempts.at(-1)?.criteria ?? []).map((c) => ({ id: c.id, status: c.status })),
      ...(r.tampering ? { tampering: true } : {}),
    });
    // What stood behind the verdict is what stood here, in the replay: never what the share's machine claimed.
    if (r.guards) h.entry.guards = r.guards;
    else delete h.entry.guards;
  } catch (error) {
    if (!(error instanceof ElenchosError)) throw error;
    Object.assign(h.entry, { state: 'ERROR', reason: 'INTERNAL_ERROR', message: `not re-verified here: ${describeError(error)}` });
  }
  h.entry.joined = { ...h.entry.joined!, reverified: true };
}

/** Why the winner won: the rule's words, and which better-ranked candidates did not pass here. */
function winnerReason(ranked: readonly Contender[], held: readonly Held[], tried: readonly string[]): string {
  const rule = chooseWinner(ranked.filter((c) => !tried.slice(0, -1).includes(c.name)))!;
  const failed = tried.slice(0, -1).map((name) => {
    const e = held.find((h) => h.entry.name === name)!.entry;
    return `${name} (${e.state}${e.reason ? ` ${e.reason}` : ''})`;
  });
  const before = failed.length > 0 ? `claimed VERIFIED but not VERIFIED here: ${failed.join(', ')}; ` : '';
  return `${before}${rule.reason}; re-verified here`;
}

interface Sealing {
  runId: string;
  dir: string;
  startedAt: number;
  entries: CandidateSummary[];
  winner: { name: string; reason: string } | null;
  tried: string[];
}

async function sealJoined(input: JoinTaskInput, s: Sealing): Promise<RunRecord> {
  const { task } = input;
  const base = await baseRunRecord({
    runId: s.runId,
    mode: 'run',
    root: task.pre.root,
    config: task.pre.config,
    resolved: task.pre.resolved,
    locked: task.locked,
    configFile: task.pre.loaded.path ?? null,
    startedAt: s.startedAt,
    host: hostname(),
    agent: REPLAY_AGENT,
    workspace: { path: path.relative(task.pre.root, workspacesDir(task.pre.root)), base: task.pre.head, kept: false },
    group: input.group,
  });
  const outcome = decide(s.entries, s.winner, input.signal.aborted);
  const finishedAt = new Date();
  const tampering = s.entries.some((e) => e.tampering);
  // The verdict is the winner's re-verification here, so the guards behind it are that replay's.
  const guards = s.entries.find((e) => e.name === s.winner?.name && e.joined?.reverified)?.guards;
  const record: RunRecord = {
    ...base,
    ...outcome,
    ...(guards ? { guards } : {}),
    ...(tampering ? { tampering: true } : outcome.state === 'ERROR' ? { tampering: false } : {}),
    bestOf: { parallel: 1, stopAtFirst: false },
    candidates: s.entries,
    winner: s.winner,
    join: { shares: input.join.shares, problems: input.join.problems, tried: s.tried },
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - s.startedAt,
  };
  // Written by this module from a share's words: checked like any record before it is sealed, so that `runs` lists it.
  RunRecordSchema.parse(record);
  return sealJoinedFolder(s.dir, record, input);
}

/**
 * Seals the joined run as sealRun does (RUNNING with the outcome under `sealing`, the manifest over the final
 * run.json, then run.json renamed into place), without a redaction pass over its folder: everything in it was
 * redacted and sealed when it was written (the replays by their own runs here, each imported share by its
 * run on its machine, which held its own secrets), so the one new file, run.json, is redacted as text.
 * Redacting the imports again cost the join more than its checks (a third of a verify on a small task).
 */
async function sealJoinedFolder(dir: string, record: RunRecord, input: JoinTaskInput): Promise<RunRecord> {
  const redactor = new Redactor({ values: runSecretValues(input.task.pre.config, input.task.pre.resolved.task, input.env) });
  const file = runJsonPath(dir);
  await writeJsonAtomic(file, sealingRecord(record));
  const text = redactor.redactText(jsonText(record));
  JSON.parse(text); // redaction keeps JSON valid; never seal a broken record
  await writeManifest(dir, { signingKey: signingKeyFor(input.env), pending: { [path.basename(file)]: text } });
  await writeTextAtomic(file, text);
  return JSON.parse(text) as RunRecord;
}
