// The best-of run's own run.json: the draft written before any candidate starts (every candidate
// PENDING), and the outcome it is sealed with once all have ended.
import { hostname } from 'node:os';
import path from 'node:path';
import { EVIDENCE_FILES, workspacesDir } from '../../evidence/layout.js';
import type { CandidateSummary, RunReason, RunRecord } from '../../evidence/run-record.js';
import type { FinalRunState } from '../../states.js';
import type { RunGroup } from '../../evidence/run-group.js';
import type { lockContract } from '../lock/contract-lock.js';
import { baseRunRecord } from '../run/run-record-writer.js';
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
  group?: RunGroup;
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
  const base = await baseRunRecord({
    runId,
    mode: 'run',
    root,
    config,
    resolved,
    locked,
    configFile: pre.loaded.path ?? null,
    startedAt,
    host: hostname(),
    agent: [...new Set(plan.map((c) => c.agent.type))].join(','),
    workspace: { path: path.relative(root, workspacesDir(root)), base: pre.head, kept: config.retainWorkspace },
    group: input.group,
  });
  return {
    ...base,
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
