// `setup`: what a fresh worktree needs before anyone works in it (copied files, `setup.command`).
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { checkRepoRelative } from '../contract/repo-path.js';
import { InterruptedError, describeError } from '../errors.js';
import { runProcess } from '../process/spawn.js';
import type { RunContext } from './run-context.js';

/** Copies `setup.copy` files from the checkout and runs `setup.command` in `workspace`; returns a problem or null. */
export async function runSetup(ctx: RunContext, dir: string, workspace: string = ctx.workspace): Promise<string | null> {
  const { setup } = ctx.config;
  for (const file of setup.copy) {
    const rel = checkRepoRelative(file, 'setup.copy');
    const from = path.join(ctx.root, rel);
    const to = path.join(workspace, rel);
    try {
      await mkdir(path.dirname(to), { recursive: true });
      await copyFile(from, to);
    } catch (error) {
      return `setup.copy: could not copy ${rel} into the worktree: ${describeError(error)}`;
    }
  }
  if (!setup.command) return null;
  ctx.reporter.onEvent({ type: 'phase', attempt: null, phase: 'setup', message: `running \`${setup.command}\`` });
  const result = await runProcess('/bin/sh', ['-c', setup.command], {
    cwd: workspace,
    env: { ...ctx.env },
    timeoutMs: setup.timeoutSeconds * 1000,
    signal: ctx.signal,
    logFile: path.join(dir, 'setup.log'),
    onStdoutLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'setup', line }),
    onStderrLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'setup', line }),
  });
  if (result.aborted) throw new InterruptedError('interrupted during setup');
  if (result.timedOut) return `setup.command did not finish within ${setup.timeoutSeconds}s`;
  if (result.exitCode !== 0) return `setup.command exited with code ${result.exitCode}: ${result.stderrTail.trim().split('\n').slice(-3).join(' | ')}`;
  return null;
}
