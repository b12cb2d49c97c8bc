// One attempt as named phases, read top to bottom: agent turn → contract → workspace guard → verifier
// window → app and verifier → post-checks → verdict. Each phase goes on or ends the attempt with its
// outcome; the teardowns registered along the way run on every way out (last in, first out).
import { agentTurn } from './phases/agent-turn.js';
import { appAndVerifier, openWindow } from './phases/app-and-verifier.js';
import { contractCheck, workspaceGuard } from './phases/workspace-guard.js';
import { postChecks, verdict } from './phases/post-checks.js';
import { Attempt, type AttemptInput, type AttemptResult, type Phase } from './attempt-state.js';
import type { AttemptContext } from './run-context.js';
import { InterruptedError } from '../../errors.js';

export type { AttemptInput, AttemptResult } from './attempt-state.js';

/** The phases of every attempt, in order. An agent turn only runs in an attempt of kind `agent`. */
export const PHASES: readonly { name: string; run: Phase }[] = [
  { name: 'agent turn', run: agentTurn },
  { name: 'contract check', run: contractCheck },
  { name: 'workspace guard', run: workspaceGuard },
  { name: 'verifier window', run: openWindow },
  { name: 'app and verifier', run: appAndVerifier },
  { name: 'post-checks', run: postChecks },
  { name: 'verdict', run: verdict },
];

/** Runs one attempt; every child is stopped before it returns, whatever happens. */
export async function runAttempt(ctx: AttemptContext, input: AttemptInput): Promise<AttemptResult> {
  const attempt = new Attempt(ctx, input);
  try {
    ctx.reporter.onEvent({ type: 'attempt-start', attempt: input.number, kind: input.kind });
    for (const phase of PHASES) {
      const step = await phase.run(attempt);
      if (step.next === 'end') return step.result;
    }
    // The verdict phase ends every attempt that reaches it; getting here is a bug in the list above.
    throw new Error('the attempt ran out of phases without a verdict');
  } catch (error) {
    // Ctrl-C: the attempt still ends as one, so that `runs` and `show` list it beside the prompt and logs it left.
    if (!(error instanceof InterruptedError) && !ctx.signal.aborted) throw error;
    attempt.end('ERROR', 'INTERRUPTED', 'interrupted (Ctrl-C): children stopped, evidence kept');
    return { record: attempt.record, snapshotAfter: null };
  } finally {
    await attempt.teardowns.runAll();
    if (attempt.watch) await attempt.watch.close().catch(() => undefined);
    attempt.record.durationMs = Date.now() - attempt.started;
  }
}
