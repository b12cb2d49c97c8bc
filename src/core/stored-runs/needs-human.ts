// NEEDS_HUMAN: a task whose runs caught tampering, or that failed too often in a row, waits for a person.
import { ConfigSchema } from '../../config/config-schema.js';
import { loadConfig } from '../../config/load-config.js';
import { readAcks, type Ack } from '../../evidence/acks.js';
import { listRuns, type RunRecord } from '../../evidence/run-record.js';
import type { RunReason } from '../../states.js';
import type { Config } from '../../config/config-schema.js';
import { PreflightError } from '../../errors.js';

export interface NeedsHuman {
  taskId: string;
  /** One line each: why a person must look before another agent run. */
  reasons: string[];
  /** The newest unacknowledged run of the task (what `ack` acknowledges up to). */
  lastRunId: string;
}

// Tampering is never an honest mistake: one such run is enough. A run records whether it caught what
// only an agent does (`tampering`); a record from before that field is judged by its reason, as then.
const TAMPERING = new Set<RunReason>(['CONTRACT_CHANGED', 'UNSTABLE_WORKSPACE']);
const caughtTampering = (run: RunRecord) => run.tampering ?? (run.reason !== null && TAMPERING.has(run.reason));
/** Why a run flags its task; a best-of run names the candidate that tampered (the run itself may be VERIFIED by another). */
function tamperingLine(run: RunRecord): string {
  const candidate = run.candidates?.find((c) => c.tampering);
  const [reason, message] = candidate ? [`candidate ${candidate.name}: ${candidate.reason}`, candidate.message] : [run.reason, run.message];
  return `run ${run.runId} caught tampering (${reason}): ${message ?? ''}`.trimEnd();
}

// Not the agent's doing: they neither count towards a streak nor break one.
const NEUTRAL = new Set<RunReason>(['INTERRUPTED', 'ABANDONED']);

/**
 * Which tasks need a human, from their runs (any order) and acknowledgements. A run counts only if it
 * is newer than the task's last acknowledgement. Any run that caught tampering flags the task (a write
 * in the verifier window whose writer cannot be told apart is not tampering: it counts in the streak); so do
 * `afterFailedRuns` agent runs (`mode: run`) in a row that ended FAILED or ERROR (0 disables that rule).
 * `verify` runs count for tampering only: a red CI is the normal signal that sends a task to an agent.
 */
export function judgeNeedsHuman(runs: readonly RunRecord[], acks: readonly Ack[], afterFailedRuns: number): Map<string, NeedsHuman> {
  // An ack counts only when it names a stored run of its task, as `elenchos ack` writes it: one that names
  // a run far in the future (written by hand, or by an agent) would acknowledge every run to come.
  const known = new Set(runs.map((run) => `${run.task.id}\n${run.runId}`));
  const ackedUpTo = new Map<string, string>();
  for (const ack of acks) {
    if (!known.has(`${ack.taskId}\n${ack.upToRunId}`)) continue;
    const previous = ackedUpTo.get(ack.taskId);
    if (previous === undefined || ack.upToRunId > previous) ackedUpTo.set(ack.taskId, ack.upToRunId);
  }
  const byTask = new Map<string, RunRecord[]>();
  for (const run of runs) {
    const cutoff = ackedUpTo.get(run.task.id);
    if (run.state === 'RUNNING' || (cutoff !== undefined && run.runId <= cutoff)) continue;
    byTask.set(run.task.id, [...(byTask.get(run.task.id) ?? []), run]);
  }
  const flagged = new Map<string, NeedsHuman>();
  for (const [taskId, list] of byTask) {
    const newestFirst = [...list].sort((a, b) => (a.runId < b.runId ? 1 : -1));
    const reasons = newestFirst.filter(caughtTampering).map((run) => tamperingLine(run));
    const streak: string[] = [];
    for (const run of newestFirst) {
      if (run.mode !== 'run' || (run.reason !== null && NEUTRAL.has(run.reason))) continue;
      if (run.state === 'VERIFIED') break;
      streak.push(run.runId);
    }
    if (afterFailedRuns > 0 && streak.length >= afterFailedRuns) {
      reasons.push(
        `the last ${streak.length} agent runs ended FAILED or ERROR (${streak.slice(0, 5).join(', ')}${streak.length > 5 ? ', …' : ''})`,
      );
    }
    if (reasons.length > 0) flagged.set(taskId, { taskId, reasons, lastRunId: newestFirst[0]!.runId });
  }
  return flagged;
}

/** Reads the stored runs and acknowledgements of `root` and judges them (see judgeNeedsHuman). */
export async function loadNeedsHuman(root: string, afterFailedRuns: number): Promise<Map<string, NeedsHuman>> {
  const [{ runs }, acks] = await Promise.all([listRuns(root), readAcks(root)]);
  return judgeNeedsHuman(runs, acks, afterFailedRuns);
}

/** Like loadNeedsHuman, with the threshold from the repository's config (its default when the config cannot be read: browsing evidence must not depend on it). */
export async function needsHumanIn(root: string, env?: NodeJS.ProcessEnv): Promise<Map<string, NeedsHuman>> {
  const threshold = await loadConfig({ root, env })
    .then(({ config }) => config.needsHuman.afterFailedRuns)
    .catch(() => ConfigSchema.parse({}).needsHuman.afterFailedRuns);
  return loadNeedsHuman(root, threshold);
}

/** A task whose runs caught tampering, or failed too often in a row, gets no agent until a person acknowledges it. */
export async function refuseNeedsHuman(root: string, config: Config, label: string, taskId: string): Promise<void> {
  const flagged = (await loadNeedsHuman(root, config.needsHuman.afterFailedRuns)).get(taskId);
  if (!flagged) return;
  throw new PreflightError(
    'NEEDS_HUMAN',
    `${label}: NEEDS_HUMAN (${flagged.reasons.length} reason(s)); read the evidence (elenchos show ${flagged.lastRunId}), then elenchos ack ${label} to let agents run it again`,
    { details: flagged.reasons },
  );
}
