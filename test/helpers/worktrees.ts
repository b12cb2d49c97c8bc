// Leak checks that know the warm worktree pool: an idle pooled worktree is no leak, anything else is.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { gitSync } from './temp.js';

/**
 * Registered worktrees other than the checkout that are not idle pool entries. An idle entry sits at
 * `.elenchos/pool/<n>` with n below the pool size, with the trusted index the next reset needs and
 * no claim on it: a worktree a run still holds, or one left anywhere else, is reported.
 */
export function leakedWorktrees(root: string, poolSize = 4): string[] {
  const real = realpathSync(root);
  const pool = path.join(real, '.elenchos', 'pool');
  const listed = gitSync(root, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((p) => p !== real);
  return listed.filter((p) => {
    const slot = path.relative(pool, p);
    const idle = /^\d+$/.test(slot) && Number(slot) < poolSize && existsSync(`${p}.index`) && !existsSync(`${p}.lock`);
    return !idle;
  });
}
