// Checks several phases of an attempt make: the contract lock, git's own settings, a forged index, the pool.
import { gitStateChanges } from '../../git/git-state.js';
import type { WorkspaceSnapshot } from '../../git/snapshot.js';
import { hiddenEdits } from '../../git/worktree-integrity.js';
import { findVerifierInputs } from '../lock/verifier-inputs.js';
import { NEXT_TOOL_CONFIG_FIX, onlyToolConfigsChanged, TOOL_CONFIG_FIX, verifyContract } from '../lock/contract-lock.js';
import type { AttemptContext, Terminal } from './run-context.js';
import { toolchainChanges, verifierToolchain } from './toolchain.js';

/** Problems with the contract in the workspace and in the main checkout (empty when intact). */
export async function checkContract(ctx: AttemptContext): Promise<string[]> {
  const places =
    ctx.workspace === ctx.root
      ? [{ label: 'checkout', root: ctx.root }]
      : [
          { label: 'worktree', root: ctx.workspace },
          { label: 'main checkout', root: ctx.root },
        ];
  const problems: string[] = [];
  for (const place of places) {
    const currentExtra = (await findVerifierInputs(place.root, ctx.resolved, ctx.config)).files;
    problems.push(...(await verifyContract(ctx.locked, { ...place, currentExtra })));
  }
  const swapped = toolchainChanges(ctx.baselines.toolchain, await verifierToolchain(ctx));
  if (swapped.length > 0) problems.push(`the verifier's toolchain in the worktree changed (${swapped.join(', ')})`);
  return problems;
}

/** Whether git's own settings moved since before the agent ran; they are put back either way. */
export async function gitSettingsChanged(ctx: AttemptContext, who: string): Promise<string | null> {
  if (!ctx.baselines.gitState) return null;
  const changed = await gitStateChanges(ctx.baselines.gitState, { restore: true });
  if (changed.length === 0) return null;
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
  return `${who} changed git's own settings, which every check of the workspace relies on (put back as they were): ${shown}`;
}

/** Whether the worktree's index hides an edit from the snapshot (checked against the index from before the agent). */
export async function indexHides(ctx: AttemptContext, snapshot: WorkspaceSnapshot): Promise<string | null> {
  if (!ctx.baselines.indexBefore) return null;
  const hidden = await hiddenEdits(ctx.workspace, ctx.baselines.indexBefore, snapshot.changed, ctx.excluded);
  if (hidden.length === 0) return null;
  const shown = hidden.slice(0, 5).join(', ') + (hidden.length > 5 ? ` and ${hidden.length - 5} more` : '');
  return `the index claims the committed content for file(s) that differ from it: ${shown}`;
}

/** Drops every warm worktree whose trusted index changed while the agent or its app ran (see pool-guard.ts). */
export async function guardPool(ctx: AttemptContext, say: (message: string) => void): Promise<void> {
  const dropped = await ctx.baselines.pool?.check();
  if (dropped && dropped.length > 0) say(`warm worktree(s) ${dropped.join(', ')} changed while it ran: dropped, never reused`);
}

/**
 * CONTRACT_CHANGED once the app has started: always tampering (the app is the agent's code). When all that
 * changed is a tool config a dev server may rewrite (Next.js's tsconfig.json), the message says so, and
 * to review the change before committing it: such a rewrite could also map a module the verifier loads.
 */
export function afterAppStart(
  message: string,
  problems: readonly string[],
  nextDev = false,
): [Terminal['state'], Terminal['reason'], string, boolean] {
  const fix = nextDev ? NEXT_TOOL_CONFIG_FIX : TOOL_CONFIG_FIX;
  return ['ERROR', 'CONTRACT_CHANGED', onlyToolConfigsChanged(problems) ? `${message}; ${fix}` : message, true];
}

/** The message for git objects written under an id their content does not have, or null when there are none. */
export function describeForged(ids: readonly string[], who: string, inStore: boolean): string | null {
  if (ids.length === 0) return null;
  const named = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  const done = inStore
    ? 'they were removed from the repository, so git now reports them missing instead of reading them (fetch them again from a clone or remote, or run `git fsck`)'
    : "they were not kept, the repository's objects are unchanged";
  return `${who} wrote ${ids.length} git object(s) whose content does not match their id (${named}); ${done}`;
}
