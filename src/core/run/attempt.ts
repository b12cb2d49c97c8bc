// One attempt as named phases, read top to bottom: agent turn → contract → workspace guard → verifier
// window → app and verifier → post-checks → verdict. Each phase ends the attempt with its outcome, or goes
// on and hands what it found to the phases after it (PhaseResult); the teardowns registered along the way
// run on every way out (last in, first out).
import { agentTurn } from './phases/agent-turn.js';
import { appAndVerifier, openWindow, type VerifierWindow } from './phases/app-and-verifier.js';
import { contractCheck, workspaceGuard } from './phases/workspace-guard.js';
import { postChecks, verdict } from './phases/post-checks.js';
import { Attempt, type AttemptInput, type AttemptResult } from './attempt-state.js';
import type { AttemptContext } from './run-context.js';
import { InterruptedError } from '../../errors.js';

export type { AttemptInput, AttemptResult } from './attempt-state.js';

/** Runs one attempt; every child is stopped before it returns, whatever happens. */
export async function runAttempt(ctx: AttemptContext, input: AttemptInput): Promise<AttemptResult> {
  const attempt = new Attempt(ctx, input);
  // Open from the verifier window's phase on; closed on every way out (a second close asks nothing again).
  let window: VerifierWindow | null = null;
  try {
    ctx.reporter.onEvent({ type: 'attempt-start', attempt: input.number, kind: input.kind });
    // An agent turn only runs in an attempt of kind `agent`.
    const turn = await agentTurn(attempt);
    if (turn.next === 'end') return turn.result;
    const contract = await contractCheck(attempt);
    if (contract.next === 'end') return contract.result;
    const guarded = await workspaceGuard(attempt);
    if (guarded.next === 'end') return guarded.result;
    const before = guarded.found;
    const opened = await openWindow(attempt, before);
    if (opened.next === 'end') return opened.result;
    window = opened.found;
    const looked = await appAndVerifier(attempt, before);
    if (looked.next === 'end') return looked.result;
    const { stampsBefore } = looked.found;
    const checked = await postChecks(attempt, { before, window, stampsBefore, objectsSince: turn.found.objectsSince });
    if (checked.next === 'end') return checked.result;
    return (await verdict(attempt, looked.found.verdict, checked.found)).result;
  } catch (error) {
    // Ctrl-C: the attempt still ends as one, so that `runs` and `show` list it beside the prompt and logs it left.
    if (!(error instanceof InterruptedError) && !ctx.signal.aborted) throw error;
    attempt.end('ERROR', 'INTERRUPTED', 'interrupted (Ctrl-C): children stopped, evidence kept');
    return { record: attempt.record, snapshotAfter: null };
  } finally {
    await attempt.teardowns.runAll();
    if (window) await window.close().catch(() => undefined);
    attempt.record.durationMs = Date.now() - attempt.started;
  }
}
