// `setup`: what a fresh worktree needs before anyone works in it (copied files, `setup.command`);
// one definition for runs, the base probe and `doctor`.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/config-schema.js';
import { checkRepoRelative } from '../contract/repo-path.js';
import { InterruptedError, describeError } from '../errors.js';
import { runProcess } from '../process/spawn.js';
import { lastLines } from '../util/text.js';
import type { RunContext } from './run-context.js';

export interface PrepareWorktreeOptions {
  /** The main checkout, where `setup.copy` files come from. */
  root: string;
  workspace: string;
  setup: Config['setup'];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  logFile: string;
  /** Label for `setup.copy` errors (e.g. the config file). */
  label?: string;
  onLine?: (line: string) => void;
}

export type PrepareOutcome =
  | { ok: true }
  | { ok: false; step: 'copy'; file: string; message: string }
  | { ok: false; step: 'command'; message: string; timedOut: boolean; logTail: string };

/** Copies `setup.copy` files from the checkout into `workspace`, then runs `setup.command` there. */
export async function prepareWorktree(options: PrepareWorktreeOptions): Promise<PrepareOutcome> {
  const { setup } = options;
  for (const file of setup.copy) {
    const rel = checkRepoRelative(file, options.label ? `${options.label}: setup.copy` : 'setup.copy');
    try {
      await mkdir(path.dirname(path.join(options.workspace, rel)), { recursive: true });
      await copyFile(path.join(options.root, rel), path.join(options.workspace, rel));
    } catch (error) {
      return {
        ok: false,
        step: 'copy',
        file: rel,
        message: `setup.copy: could not copy ${rel} into the worktree: ${describeError(error)}`,
      };
    }
  }
  if (!setup.command) return { ok: true };
  const result = await runProcess('/bin/sh', ['-c', setup.command], {
    cwd: options.workspace,
    env: { ...options.env },
    timeoutMs: setup.timeoutSeconds * 1000,
    signal: options.signal,
    logFile: options.logFile,
    onStdoutLine: options.onLine,
    onStderrLine: options.onLine,
  });
  if (result.aborted) throw new InterruptedError('interrupted during setup');
  if (result.exitCode === 0 && !result.timedOut) return { ok: true };
  const logTail = lastLines(result.stdoutTail + result.stderrTail, 15);
  const message = result.timedOut
    ? `setup.command did not finish within ${setup.timeoutSeconds}s`
    : `setup.command exited with code ${result.exitCode}: ${result.stderrTail.trim().split('\n').slice(-3).join(' | ')}`;
  return { ok: false, step: 'command', message, timedOut: result.timedOut, logTail };
}

/** The run's setup in `workspace` (default: the run's worktree); returns a problem or null. */
export async function runSetup(ctx: RunContext, dir: string, workspace: string = ctx.workspace): Promise<string | null> {
  if (ctx.config.setup.command)
    ctx.reporter.onEvent({ type: 'phase', attempt: null, phase: 'setup', message: `running \`${ctx.config.setup.command}\`` });
  const outcome = await prepareWorktree({
    root: ctx.root,
    workspace,
    setup: ctx.config.setup,
    env: ctx.env,
    signal: ctx.signal,
    logFile: path.join(dir, 'setup.log'),
    onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'setup', line }),
  });
  return outcome.ok ? null : outcome.message;
}
