// `setup`: what a fresh worktree needs before anyone works in it (copied files, `setup.command`);
// one definition for runs, the base probe and `doctor`.
import { access, copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { checkRepoRelative } from '../../contract/repo-path.js';
import { InterruptedError, describeError } from '../../errors.js';
import { runProcess } from '../../process/spawn.js';
import { lastLines } from '../../util/text.js';
import type { RunReporter } from '../events.js';
import { pauseForTest } from '../test-pause.js';
import { beginCachedSetup, type CachedSetup, type SetupCacheReport } from './setup-cache.js';
import { attemptPaths, setupCacheDir } from '../../evidence/layout.js';
import { childEnv } from '../../process/child-env.js';
import { appSandboxCommand, appSandboxed, setupSandboxOptions } from '../app/app-sandbox.js';
import { appendElenchosText } from '../../evidence/seal-attempt.js';
import { cacheKeyPath, secretPathsToHide } from '../../util/secret-paths.js';
import { generatedHere } from './framework-sync.js';

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
  /**
   * Where `setup.cache` entries live; unset, the cache is not used. Only for a worktree nothing has
   * run in yet (fresh, or reset by the pool): what its setup saves is what every later run restores.
   */
  cacheDir?: string;
  /** The commit `workspace` was just checked out or reset to (its index untouched): the cache reads tracked paths from it. */
  commit?: string;
  /** Told once the cache decided (hit, or setup.command about to run), and again after a save. */
  onCache?: (report: SetupCacheReport) => void;
  /**
   * `agent.sandbox: bwrap`: setup.command runs the repository's install scripts (the agent's code), so it
   * runs in the app's sandbox (app-sandbox.ts), unable to reach the setup cache, the acks or `.git`.
   */
  sandboxed?: boolean;
}

/** The setup cache's copy of a miss, going on while the run works (see PendingSave). */
export interface BackgroundSave {
  /**
   * Waits for the copy at most `waitMs` (at once when `signal` was aborted), then abandons it:
   * nothing unproven is ever published. Its outcome goes to setup.log and `onCache`.
   */
  finish(waitMs: number, signal?: AbortSignal): Promise<SetupCacheReport>;
  /** How long setup.command took: a copy is not worth waiting for longer than the setup it saves. */
  setupMs: number;
}

export type PrepareOutcome =
  | { ok: true; cache?: SetupCacheReport; save?: BackgroundSave }
  | { ok: false; step: 'copy'; file: string; message: string }
  | { ok: false; step: 'command'; message: string; timedOut: boolean; logTail: string; cache?: SetupCacheReport };

/** Copies `setup.copy` files from the checkout into `workspace`, then restores `setup.cache` or runs `setup.command` there (and saves its output). */
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
  const cached: CachedSetup | null =
    setup.cache && options.cacheDir
      ? await beginCachedSetup({
          cacheDir: options.cacheDir,
          keyFile: cacheKeyPath(options.env),
          workspace: options.workspace,
          spec: { command: setup.command, key: setup.cache.key, paths: setup.cache.paths },
          signal: options.signal,
          // Another run doing this key's setup finishes (or times out) within the setup timeout.
          waitMs: (setup.timeoutSeconds + 10) * 1000,
          ...(options.commit ? { commit: options.commit } : {}),
          beforeCopy: (signal) => pauseForTest('cache-copy', options.env, signal),
        })
      : null;
  try {
    if (cached) {
      await logCache(options.logFile, cached.report);
      options.onCache?.(cached.report);
    }
    if (cached?.kind === 'hit') return { ok: true, cache: cached.report };
    const started = Date.now();
    const outcome = await runCommand(options, setup.command);
    const setupMs = Date.now() - started;
    if (!outcome.ok || !cached?.save) return { ...outcome, ...(cached ? { cache: cached.report } : {}) };
    // Recorded now, before the caller hands the worktree to an agent; copied while the run goes on.
    const pending = await cached.save();
    const only = (report: SetupCacheReport) => ({ ...report, warnings: report.warnings.slice(cached.report.warnings.length) });
    await logCache(options.logFile, only(pending.report));
    options.onCache?.(only(pending.report));
    const logged = pending.done.then(async (final) => {
      if (final === pending.report) return final; // refused at the snapshot: already said
      await logCache(options.logFile, only(final)).catch(() => undefined);
      options.onCache?.(only(final));
      return final;
    });
    const finish = async (waitMs: number, signal?: AbortSignal) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        if (signal?.aborted || Number.isFinite(waitMs)) timer = setTimeout(resolve, signal?.aborted ? 0 : waitMs, 'late');
        signal?.addEventListener('abort', () => resolve('late'), { once: true });
      });
      const first = await Promise.race([logged, late]);
      clearTimeout(timer);
      if (first === 'late')
        await pending.abandon(
          signal?.aborted ? 'the run was interrupted before the copy ended' : `the copy was not done ${waitMs} ms after the run ended`,
        );
      return logged;
    };
    return { ok: true, cache: pending.report, save: { finish, setupMs } };
  } finally {
    if (cached?.kind === 'run') await cached.release();
  }
}

async function runCommand(options: PrepareWorktreeOptions, command: string): Promise<PrepareOutcome> {
  const { setup } = options;
  // Elenchos's own credentials (the verifier's, the signing key) are never setup's business.
  const env = childEnv('setup', { baseEnv: options.env });
  const shell = { command: '/bin/sh', args: ['-c', command] };
  const spawned = options.sandboxed
    ? appSandboxCommand(
        shell.command,
        shell.args,
        setupSandboxOptions(options.workspace, options.root, env.HOME, secretPathsToHide(options.env), env),
      )
    : shell;
  const result = await runProcess(spawned.command, spawned.args, {
    cwd: options.workspace,
    env,
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

// setup.log says whether the cache answered, so the evidence shows what the app ran on.
async function logCache(logFile: string, report: SetupCacheReport): Promise<void> {
  const lines = [...report.warnings.map((warning) => `warning: ${warning}`), `setup cache ${report.status}: ${report.message}`];
  const text = lines.map((line) => `[elenchos] ${line}\n`).join('');
  await appendElenchosText(logFile, text); // the cache's copy may end after the attempt was sealed
}

/** What of a run its setup needs (a run's RunContext has it all). */
export interface SetupContext {
  /** The main checkout's root. */
  root: string;
  /** The run's worktree. */
  workspace: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  reporter: RunReporter;
}

/**
 * The run's setup in `workspace` (default: the run's worktree); returns a problem or null. A cache
 * miss's copy goes on in the background: `onSave` gets it, and must finish it before the worktree goes.
 */
export async function runSetup(
  ctx: SetupContext,
  dir: string,
  workspace: string = ctx.workspace,
  onSave?: (save: BackgroundSave) => void,
  /** The commit `workspace` was just checked out or reset to (see PrepareWorktreeOptions.commit). */
  commit?: string,
): Promise<string | null> {
  const { command, cache } = ctx.config.setup;
  const say = (message: string) => ctx.reporter.onEvent({ type: 'phase', attempt: null, phase: 'setup', message });
  if (command) say(cache ? `setup cache: looking up ${cache.paths.join(', ')}` : `running \`${command}\``);
  const outcome = await prepareWorktree({
    root: ctx.root,
    workspace,
    setup: ctx.config.setup,
    env: ctx.env,
    sandboxed: appSandboxed(ctx.config),
    signal: ctx.signal,
    logFile: attemptPaths(dir).setupLog,
    onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'setup', line }),
    // Never in the checkout itself (verify --in-place): the cache would replace the user's node_modules.
    ...(workspace === ctx.root ? {} : { cacheDir: setupCacheDir(ctx.root), ...(commit ? { commit } : {}) }),
    onCache: (report) => {
      for (const warning of report.warnings) say(`warning: ${warning}`);
      say(`setup cache ${report.status}: ${report.message}`);
    },
  });
  if (!outcome.ok) return outcome.message;
  if (outcome.save) {
    if (onSave) onSave(outcome.save);
    else await outcome.save.finish(Number.POSITIVE_INFINITY, ctx.signal); // nothing else runs here meanwhile
  }
  return null;
}

/** How long a run's end waits for a setup-cache copy still going: what the setup took, at least 2 s. */
export function finishWithinMs(save: BackgroundSave): number {
  return Math.max(2000, save.setupMs);
}

/**
 * Runs the framework's sync step in `workspace` for each locked file it generates that setup did not
 * write there (a setup cache hit skips `npm ci`'s `prepare`); returns a problem or null. The step runs as
 * setup.command does (its sandbox, its log); the contract check then holds what it wrote to the lock.
 */
export async function syncFrameworkFiles(ctx: SetupContext, dir: string, files: readonly string[]): Promise<string | null> {
  const commands = new Set<string>();
  for (const file of files) {
    if (await isPresent(path.join(ctx.workspace, file))) continue;
    const generated = await generatedHere(ctx.workspace, file);
    if (generated) commands.add(generated.shell);
  }
  for (const command of commands) {
    const setup = { ...ctx.config.setup, command, cache: undefined, copy: [] };
    const problem = await runSetup({ ...ctx, config: { ...ctx.config, setup } }, dir);
    if (problem) return problem.replace('setup.command', `the framework's sync step \`${command}\``);
  }
  const missing = [];
  for (const file of files) if (!(await isPresent(path.join(ctx.workspace, file)))) missing.push(file);
  return missing.length === 0
    ? null
    : `${missing.join(', ')}: the verifier reads it, but neither setup nor the framework's sync step wrote it in the worktree; commit it, or list it in setup.copy`;
}

async function isPresent(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
