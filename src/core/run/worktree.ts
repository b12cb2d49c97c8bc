// The run's worktree: taken from the warm pool (or added), and given back reset (or removed) on every way out.
import path from 'node:path';
import { setupCacheDir } from '../../evidence/layout.js';
import { cacheKeyPath } from '../../util/secret-paths.js';
import { addWorktree, removeWorktree } from '../../git/worktree.js';
import type { RunContext } from './run-context.js';
import type { Teardowns } from './teardown.js';
import { describeTake, returnWorktree, takeWorktree, type TakenWorktree } from '../workspace/worktree-pool.js';

/** Puts a detached worktree of the base commit at `ctx.workspace`; its return is registered before it is taken. */
export async function prepareWorktree(ctx: RunContext, teardowns: Teardowns): Promise<void> {
  const { root, workspace, config, reporter, base } = ctx;
  const pool = config.worktreePool.enabled ? config.worktreePool : null;
  const { command, cache } = config.setup;
  const say = (phase: 'worktree' | 'cleanup', message: string) => reporter.onEvent({ type: 'phase', attempt: null, phase, message });
  let taken: TakenWorktree | null = null;
  teardowns.add('remove the worktree', async () => {
    if (config.retainWorkspace) return;
    // Warm worktrees go back to the pool reset (processes are stopped by now): on every way out,
    // VERIFIED, FAILED, ERROR or interrupted, nothing the agent wrote stays in an idle slot.
    if (pool && taken) {
      const back = await returnWorktree({
        root,
        dir: workspace,
        index: taken.index,
        base,
        keep: cache?.paths ?? [],
        // What the kept paths hold must be the setup cache's entry, or it goes (runSetup uses the same folder).
        ...(cache && command
          ? { cache: { dir: setupCacheDir(root), spec: { command, key: cache.key, paths: cache.paths }, keyFile: cacheKeyPath(ctx.env) } }
          : {}),
        size: pool.size,
      });
      say(
        'cleanup',
        `worktree ${path.relative(root, workspace)} ${back.pooled ? `returned to ${path.relative(root, back.pooled)}` : `removed (${back.reason})`}`,
      );
      if (back.dropped) say('cleanup', `dropped from the kept setup.cache paths: ${back.dropped}`);
      return;
    }
    say('cleanup', `removing worktree ${path.relative(root, workspace)}`);
    await removeWorktree(root, workspace);
  });
  if (pool) {
    taken = await takeWorktree({ root, target: workspace, base, keep: cache?.paths ?? [] });
    say('worktree', describeTake(root, workspace, base, taken));
  } else {
    say('worktree', `git worktree add --detach ${path.relative(root, workspace)} ${base.slice(0, 12)}`);
    await addWorktree(root, workspace, base);
  }
}
