// The attempt loop: attempts until one ends the run or the decision after it says it is over (decide.ts).
import { mkdir } from 'node:fs/promises';
import { describeError } from '../../errors.js';
import { attemptDir, attemptPaths } from '../../evidence/layout.js';
import type { WorkspaceSnapshot } from '../../git/snapshot.js';
import { saveWorkspace } from '../../git/workspace-archive.js';
import { isDiskFull } from '../../process/run-scope.js';
import type { RepairEvidence } from './prompt.js';
import { updateRunRecord, type RunRecordDraft } from './run-record-writer.js';
import type { AttemptContext, AttemptRecord, Terminal } from './run-context.js';
import { sealEndedAttempt } from './attempt-seals.js';
import { afterAttempt, firstState } from './decide.js';
import { runAttempt } from './attempt.js';

/** Runs attempts until a decision ends the run. */
export async function attemptLoop(ctx: AttemptContext, attempts: AttemptRecord[], draft: RunRecordDraft): Promise<Terminal> {
  const limits = {
    // A replayed change has no agent to repair it: its first verdict is its last.
    maxRepairAttempts: ctx.replay ? 0 : ctx.config.maxRepairAttempts,
    maxVerifierRetries: ctx.config.maxVerifierRetries,
    repairs: ctx.mode === 'run',
  };
  let state = firstState(limits);
  let previous: RepairEvidence | null = null;
  let previousSnapshot: WorkspaceSnapshot | null = null;
  for (let number = 1; ; number++) {
    const dir = attemptDir(ctx.runDir, number);
    await mkdir(dir, { recursive: true });
    const { kind } = state;
    const { record, snapshotAfter } = await runAttempt(ctx, {
      number,
      kind,
      previous: kind === 'agent' ? previous : null,
      previousSnapshot: kind === 'agent' ? previousSnapshot : null,
      dir,
      maxAttempts: 1 + limits.maxRepairAttempts,
    });
    if (kind === 'agent') await archiveWorkspace(ctx, dir, record, snapshotAfter);
    attempts.push(record);
    await updateRunRecord(ctx, draft, attempts, dir, record);
    // Sealed now, before the next agent turn: that agent (or its app) could otherwise rewrite this evidence.
    await sealEndedAttempt(ctx, number, dir);
    ctx.reporter.onEvent({
      type: 'attempt-end',
      attempt: number,
      status: record.status,
      summary: record.summary,
      criteria: record.criteria.map((c) => ({ id: c.id, status: c.status })),
    });
    if (record.terminal) return record.terminal;
    const step = afterAttempt(state, record.status, record.summary, limits);
    if (step.next === 'finish') return step.terminal;
    state = step.state;
    if (step.next === 'repair') {
      previous = {
        attempt: number,
        status: record.status,
        summary: record.summary,
        criteria: record.criteria,
        findings: record.findings,
        appFailure: record.appFailure,
      };
      previousSnapshot = snapshotAfter;
    }
  }
}

/** Base commit + diff + untracked files of the attempt's workspace, kept even when the attempt failed. */
async function archiveWorkspace(ctx: AttemptContext, dir: string, record: AttemptRecord, after: WorkspaceSnapshot | null): Promise<void> {
  try {
    const { redactor } = ctx;
    // The stable after-snapshot already lists what changed; reusing it saves a scan of the tree.
    await saveWorkspace(ctx.workspace, ctx.base, attemptPaths(dir).workspaceDir, {
      exclude: ctx.excluded,
      skipGlobs: ctx.appWrites,
      snapshot: after ?? undefined,
      redactDir: (staging) => redactor.redactTree(staging),
      maskBinary: (data) => redactor.maskBytes(data),
    });
  } catch (error) {
    if (isDiskFull(error)) throw error; // not a detail of this attempt: the run must stop (DISK_FULL)
    record.summary += ` (workspace archive failed: ${describeError(error)})`;
  }
}
