// The baselines of a run: read once, after setup and before the first agent turn (see Baselines).
import { captureGitState } from '../../git/git-state.js';
import { hiddenFiles } from '../../git/worktree-integrity.js';
import { worktreeBaseline } from '../../git/worktree-reset.js';
import { PoolWatch } from '../workspace/pool-guard.js';
import type { Baselines, RunContext } from './run-context.js';
import { verifierToolchain } from './toolchain.js';

/** Reads every baseline of the run's workspace (`inPlace`: the checkout itself, which has no worktree index). */
export async function takeBaselines(ctx: RunContext, inPlace: boolean): Promise<Baselines> {
  const toolchain = await verifierToolchain(ctx);
  const hidden = await hiddenFiles(ctx.workspace);
  // The worktree's git folders are proven once: git's settings are read from them, and its index beside them.
  const worktree = inPlace ? undefined : await worktreeBaseline(ctx.root, ctx.workspace);
  const gitState = await captureGitState(ctx.workspace, ctx.env, worktree?.dirs);
  const indexBefore = worktree?.index;
  const pool = await PoolWatch.start(ctx.root);
  return { toolchain, hiddenFiles: hidden, gitState, indexBefore, pool };
}
