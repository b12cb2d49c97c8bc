// A run's steps after its start: the worktree, setup, the baselines, then the attempts; whatever is thrown
// on the way becomes how the run ends.
import { mkdir } from 'node:fs/promises';
import { DiskFullError, ElenchosError, InterruptedError, describeError } from '../../errors.js';
import { attemptDir } from '../../evidence/layout.js';
import { isDiskFull } from '../../process/run-scope.js';
import { pauseForTest } from '../test-pause.js';
import { frameworkSyncFor } from '../workspace/framework-sync.js';
import { finishWithinMs, runSetup, syncFrameworkFiles } from '../workspace/setup.js';
import { takeBaselines } from './baselines.js';
import { diskFullTerminal } from './decide.js';
import { attemptLoop } from './loop.js';
import type { AttemptRecord, RunContext, Terminal } from './run-context.js';
import type { RunGuard } from './run-guard.js';
import type { RunRecordDraft } from './run-record-writer.js';
import type { Teardowns } from './teardown.js';
import { prepareWorktree } from './worktree.js';

export interface RunSteps {
  /** The caller's signal: an abort of it is Ctrl-C (the run's own signal also stops for a best-of run's reasons). */
  signal: AbortSignal;
  inPlace: boolean;
  guard: RunGuard;
  /** Torn down after, on every path (the worktree, a setup cache save). */
  teardowns: Teardowns;
  /** Filled in as attempts end. */
  attempts: AttemptRecord[];
  draft: RunRecordDraft;
}

/** The worktree, setup, baselines and the attempts; how the run ends, whatever was thrown on the way. */
export async function setUpAndAttempt(ctx: RunContext, steps: RunSteps): Promise<Terminal> {
  const { inPlace, guard, teardowns, attempts, draft } = steps;
  try {
    if (!inPlace) await prepareWorktree(ctx, teardowns);
    const firstDir = attemptDir(ctx.runDir, 1);
    await mkdir(firstDir, { recursive: true });
    await pauseForTest('setup', ctx.env);
    // A cache miss's copy goes on while the agent works; it must end (published or abandoned) before the worktree goes.
    const setupProblem = await runSetup(
      ctx,
      firstDir,
      ctx.workspace,
      (save) => {
        teardowns.add('finish the setup cache save', async () => void (await save.finish(finishWithinMs(save), ctx.signal)));
      },
      inPlace ? undefined : ctx.base,
    );
    if (setupProblem) return { state: 'ERROR', reason: 'SETUP_FAILED', message: setupProblem };
    const generated = ctx.locked.map((file) => file.path).filter((file) => frameworkSyncFor(file));
    const syncProblem = await syncFrameworkFiles(ctx, firstDir, [...new Set(generated)]);
    if (syncProblem) return { state: 'ERROR', reason: 'SETUP_FAILED', message: syncProblem };
    const baselines = await takeBaselines(ctx, inPlace);
    await pauseForTest('baseline', ctx.env);
    return await attemptLoop({ ...ctx, baselines }, attempts, draft);
  } catch (error) {
    if (guard.diskFull || isDiskFull(error)) {
      // A git command that could not write (DiskFullError from src/git/git.ts) already names itself and its folder.
      return diskFullTerminal(
        guard.diskFull ?? (error instanceof DiskFullError ? error.message : `the disk is full (${describeError(error)})`),
      );
    }
    if (error instanceof InterruptedError || steps.signal.aborted)
      return { state: 'ERROR', reason: 'INTERRUPTED', message: 'interrupted (Ctrl-C): children stopped, evidence kept' };
    draft.internalError = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return {
      state: 'ERROR',
      reason: 'INTERNAL_ERROR',
      message: `unexpected error: ${error instanceof ElenchosError ? error.message : describeError(error)}`,
    };
  }
}
