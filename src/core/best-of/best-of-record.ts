// The best-of run's own run.json: the draft written before any candidate starts (every candidate
// PENDING), and the outcome it is sealed with once all have ended.
import { hostname } from 'node:os';
import path from 'node:path';
import { EVIDENCE_FILES, workspacesDir } from '../../evidence/layout.js';
import type { CandidateSummary, RunReason, RunRecord } from '../../evidence/run-record.js';
import type { FinalRunState } from '../../states.js';
import { git } from '../../git/git.js';
import { readProcStat } from '../../process/proc-stat.js';
import { sha256 } from '../../util/sha256.js';
import { elenchosVersion } from '../../version.js';
import { canonicalJson, type lockContract } from '../lock/contract-lock.js';
import type { preflight } from '../run/preflight.js';
import type { CandidatePlan } from './plan.js';

export interface DraftInput {
  runId: string;
  pre: Awaited<ReturnType<typeof preflight>>;
  plan: readonly CandidatePlan[];
  locked: Awaited<ReturnType<typeof lockContract>>;
  startedAt: number;
  parallel: number;
  stopAtFirst: boolean;
}

/** A candidate not yet started: its row in `candidates[]`. */
function pendingEntry(runId: string, c: CandidatePlan): CandidateSummary {
  return {
    name: c.name,
    agent: c.agentName,
    agentType: c.agent.type,
    index: c.index,
    runId: `${runId}-${c.name}`,
    dir: path.join(EVIDENCE_FILES.candidates, c.name),
    state: 'PENDING',
    reason: null,
    message: null,
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

/** The record as it stands before any candidate starts: RUNNING, every candidate PENDING. */
export async function draftBestOfRecord(input: DraftInput): Promise<RunRecord> {
  const { runId, pre, plan, locked, startedAt } = input;
  const { root, config, resolved } = pre;
  return {
    schemaVersion: 1,
    runId,
    mode: 'run',
    task: { id: resolved.task.id, file: resolved.label, title: resolved.task.title },
    state: 'RUNNING',
    reason: null,
    message: null,
    tools: {
      elenchos: elenchosVersion(),
      node: process.version,
      git: await git(['--version'], { cwd: root }).then(
        (out) => out.trim().replace(/^git version /, ''),
        () => 'unknown',
      ),
      verifier: null,
      agent: [...new Set(plan.map((c) => c.agent.type))].join(','),
    },
    contract: { files: locked.map((f) => ({ path: f.path, sha256: f.sha256, role: f.role })) },
    configFingerprint: sha256(canonicalJson(config)),
    configFile: pre.loaded.path ? path.relative(root, pre.loaded.path) : null,
    verifier: { type: resolved.verifierType, testFile: resolved.testFileLabel },
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: null,
    durationMs: null,
    pid: process.pid,
    pidStartTime: readProcStat(process.pid)?.startTime ?? null,
    host: hostname(),
    workspace: { path: path.relative(root, workspacesDir(root)), base: pre.head, kept: config.retainWorkspace },
    attempts: [],
    bestOf: { parallel: input.parallel, stopAtFirst: input.stopAtFirst },
    candidates: plan.map((c) => pendingEntry(runId, c)),
    winner: null,
  };
}

/** The best-of run's outcome: VERIFIED with a winner; else FAILED when a candidate failed on the product, else ERROR. */
export function decide(
  entries: readonly CandidateSummary[],
  choice: { name: string; reason: string } | null,
  interrupted: boolean,
): { state: FinalRunState; reason: RunReason | null; message: string | null } {
  if (choice) return { state: 'VERIFIED', reason: null, message: `winner ${choice.name}: ${choice.reason}` };
  const how = entries.map((e) => `${e.name} ${e.state}${e.reason ? ` (${e.reason})` : ''}`).join(', ');
  if (interrupted)
    return { state: 'ERROR', reason: 'INTERRUPTED', message: `interrupted (Ctrl-C): children stopped, evidence kept; ${how}` };
  const failed = entries.find((e) => e.state === 'FAILED');
  if (failed) return { state: 'FAILED', reason: failed.reason, message: `no candidate VERIFIED: ${how}` };
  const errored = entries.find((e) => e.state === 'ERROR');
  return { state: 'ERROR', reason: errored?.reason ?? 'INTERNAL_ERROR', message: `no candidate VERIFIED: ${how}` };
}
