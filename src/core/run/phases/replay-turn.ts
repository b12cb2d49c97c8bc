// The agent's turn of a join's re-verification: no agent works; a share's stored change (base + diff.patch +
// untracked archive) is applied to the fresh worktree, and the rest of the attempt checks and verifies it here
// as it would any agent's work (docs/scale.md#join).
import { describeError } from '../../../errors.js';
import { applyStoredWorkspace } from '../../../git/workspace-archive.js';
import { CONTINUE, type Attempt, type PhaseResult } from '../attempt-state.js';
import type { ReplaySource } from '../run-context.js';

/** Applies the stored change; one that does not apply ends the attempt ERROR (it was never verified here). */
export async function replayTurn(attempt: Attempt, replay: ReplaySource): Promise<PhaseResult> {
  const { ctx, record } = attempt;
  const started = Date.now();
  const from = `${replay.info.runId}${replay.info.candidate ? ` candidate ${replay.info.candidate}` : ''} attempt ${replay.info.attempt} (from ${replay.info.host})`;
  attempt.say('agent', `replay: the stored change of ${from}`);
  try {
    // Checked before anything is written (nested repositories, links on the way, paths outside), as apply does.
    await applyStoredWorkspace(replay.workspaceDir, ctx.workspace);
  } catch (error) {
    const message = `the stored change of ${from} does not apply to ${ctx.base.slice(0, 12)}: ${describeError(error)}`;
    record.agent = { ok: false, reason: 'AGENT_FAILED', message, exitCode: null, durationMs: Date.now() - started, costUsd: 0, turns: 0 };
    return attempt.end('ERROR', 'AGENT_FAILED', message);
  }
  record.agent = {
    ok: true,
    exitCode: 0,
    durationMs: Date.now() - started,
    costUsd: 0,
    turns: 0,
    summary: `replayed the stored change of ${from}`,
  };
  attempt.checkInterrupted();
  return CONTINUE;
}
