// After the agent's turn and after verification: nothing we started may still run in the workspace.
import { killEscapedProcesses } from '../../process/escaped-processes.js';
import type { TableFacts } from '../../process/process-table.js';
import type { RunContext, StoppedProcess } from './run-context.js';

export interface StopEscapedResult {
  stopped: StoppedProcess[];
  /** Processes found but still alive after SIGKILL (another user's, or a race lost); empty when clean. */
  survivors: StoppedProcess[];
  /** The process table it looked in: an unavailable one found nothing, which proves nothing. */
  table: TableFacts;
}

/** The tag a child of this attempt inherits in ELENCHOS_PROCESS_TAG (`<run>/<attempt>/<role>`). */
export function processTag(ctx: Pick<RunContext, 'runId'>, attempt: number, role: 'agent' | 'app'): string {
  return `${ctx.runId}/${attempt}/${role}`;
}

/**
 * Kills every process that carries one of this attempt's tags or, in a worktree of our own, holds it
 * (cwd, root, executable, an open file). A process group is no boundary: `setsid` leaves it. With
 * `--in-place` the workspace is the user's checkout, where their shell and editor live: tags only.
 */
export async function stopEscaped(ctx: RunContext, attempt: number, after: StoppedProcess['after']): Promise<StopEscapedResult> {
  const ownWorktree = ctx.workspace !== ctx.root;
  const result = await killEscapedProcesses({
    tags: [processTag(ctx, attempt, 'agent'), processTag(ctx, attempt, 'app')],
    directories: ownWorktree ? [ctx.workspace] : [],
  });
  const label = (p: { pid: number; command: string; found: string[] }): StoppedProcess => ({
    after,
    pid: p.pid,
    command: p.command,
    found: p.found,
  });
  return { stopped: result.killed.map(label), survivors: result.survivors.map(label), table: result.table };
}
