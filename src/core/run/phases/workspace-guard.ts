// Phases 2 and 3: the contract lock holds, the workspace can be measured (nothing hidden from git, no
// forged index), the app's data is back at the base, and the snapshot the verdict is compared with.
import { sameSnapshot, snapshotWorkspace } from '../../../git/snapshot.js';
import { resetAppData } from '../../../git/app-data.js';
import { worktreeIntegrity } from '../../../git/worktree-integrity.js';
import type { WorkspaceSnapshot } from '../../../git/snapshot.js';
import { CONTINUE, found, type Attempt, type PhaseResult } from '../attempt-state.js';
import { checkContract, indexHides } from '../checks.js';
import { inputsGuard } from '../guards-stood.js';

export async function contractCheck(attempt: Attempt): Promise<PhaseResult> {
  attempt.say('contract', 'checking the contract lock');
  const tampered = await checkContract(attempt.ctx);
  attempt.record.guards.inputsPinned = inputsGuard(attempt.ctx.locked);
  if (tampered.length > 0) return attempt.end('ERROR', 'CONTRACT_CHANGED', `the contract changed: ${tampered.join('; ')}`, true);
  return CONTINUE;
}

/** Hands on the workspace before the app and the verifier: what the verdict is compared with. */
export async function workspaceGuard(attempt: Attempt): Promise<PhaseResult<WorkspaceSnapshot>> {
  const { ctx, input, record } = attempt;
  // A verify's first attempt comes straight after the baselines were read (setup is over, no app or
  // verifier has started): only where the worktree points is asked here. The hidden files and the
  // index are compared with those baselines after the verifier, which finds anything hidden or forged
  // since, this moment included (test/e2e/warm-verify-shortcuts.test.ts).
  const fresh = input.kind === 'verify' && input.number === 1;
  // Nothing but the agent ran since the baselines: hidden files or a forged index are its doing.
  const blind = await worktreeIntegrity(ctx.workspace, ctx.root, fresh ? 'fresh' : ctx.baselines.hiddenFiles);
  if (blind.length > 0)
    return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace can no longer be measured: ${blind.join('; ')}`, true);
  // The app's own data goes back to the base commit before the app starts: what the agent left there
  // never reaches a verdict. A verify's first attempt follows a fresh reset of the worktree: already so.
  if (!fresh) await resetAppData(ctx.workspace, ctx.base, ctx.appWrites);
  const before = await snapshotWorkspace(ctx.workspace, { exclude: ctx.excluded, skip: attempt.skip });
  record.snapshots.before = before;
  const forged = fresh ? null : await indexHides(ctx, before);
  if (forged) return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace can no longer be measured: ${forged}`, true);
  if (input.kind === 'agent' && input.previousSnapshot && sameSnapshot(before, input.previousSnapshot)) {
    record.summary = 'the repair left the implementation unchanged';
    return attempt.end('FAILED', 'REPAIR_UNCHANGED', `attempt ${input.number} (a repair) changed nothing in the workspace`);
  }
  attempt.say('snapshot', `workspace at ${before.head.slice(0, 12)}, ${before.changed.length} changed path(s)`);
  return found(before);
}
