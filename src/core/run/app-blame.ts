// Whose fault is an app that does not come up: the agent's change, or the configuration/environment?
import { mkdir } from 'node:fs/promises';
import { attemptPaths, baseProbeWorkspaceDir } from '../../evidence/layout.js';
import { addWorktree, removeWorktree } from '../../git/worktree.js';
import { freePort } from '../../process/free-port.js';
import type { AppStart } from '../app/app.js';
import type { RunContext } from './run-context.js';
import { finishWithinMs, runSetup, type BackgroundSave } from '../workspace/setup.js';

/** Starts the configured app in `cwd` on `port`, logging under `dir`; the attempt owns how (env, URL). */
export type AppLauncher = (cwd: string, dir: string, port: number) => Promise<AppStart>;

export type BaseProbe = {
  /** True when the app came up on the unchanged base commit. */
  ok: boolean;
  message: string;
  logTail: string;
};

export type AppBlame = { onBase: false; probe: BaseProbe | null } | { onBase: true; probe: BaseProbe | null; message: string };

// Runs whose app came up once: their configuration and environment are known to work.
const cameUp = new WeakSet<RunContext>();

/** Records that the app came up in this run (no later failure can be the configuration's). */
export function noteAppReady(ctx: RunContext): void {
  cameUp.add(ctx);
}

/**
 * Decides who broke the app after it failed to come up in an attempt. In `verify` mode nothing
 * changed the commit under test, so it is the base. In `run` mode, unless the app already came up
 * earlier in this run, the app is started once on a fresh worktree of the base commit (with the
 * same setup): only when it comes up there is the failure the agent's, and worth a repair.
 * Probing only after a failure costs nothing on the runs that work.
 */
export async function blameAppFailure(ctx: RunContext, input: { dir: string; launch: AppLauncher; failure: string }): Promise<AppBlame> {
  const base = ctx.base.slice(0, 12);
  const fix = 'check app.command, app.url, app.port, app.readyTimeoutSeconds, setup and the environment (elenchos show prints the app log)';
  if (ctx.mode === 'verify') {
    return {
      onBase: true,
      probe: null,
      message: `the app did not come up on commit ${base}, which no agent changed: ${input.failure}; ${fix}`,
    };
  }
  if (cameUp.has(ctx)) return { onBase: false, probe: null };
  const probe = await probeBase(ctx, input.dir, input.launch);
  if (probe.ok) return { onBase: false, probe };
  return {
    onBase: true,
    probe,
    message: `the app does not come up on the unchanged base commit ${base} either (${probe.message}): the configuration or the environment is at fault, not the agent's change; ${fix}`,
  };
}

/** Starts the app once on a fresh worktree of the base (removed afterwards); evidence in `<dir>/base-probe/`. */
async function probeBase(ctx: RunContext, dir: string, launch: AppLauncher): Promise<BaseProbe> {
  const probeDir = attemptPaths(dir).baseProbeDir;
  await mkdir(probeDir, { recursive: true });
  // Named after the run, so `gc` knows a live run owns it.
  const tree = baseProbeWorkspaceDir(ctx.root, ctx.runId);
  const say = (message: string) => ctx.reporter.onEvent({ type: 'phase', attempt: null, phase: 'app', message });
  say(`trying the app on the unchanged base commit ${ctx.base.slice(0, 12)} (a fresh worktree)`);
  let save: BackgroundSave | null = null;
  try {
    await addWorktree(ctx.root, tree, ctx.base);
    const setupProblem = await runSetup(ctx, probeDir, tree, (pending) => (save = pending));
    if (setupProblem) return { ok: false, message: `setup failed on the base: ${setupProblem}`, logTail: '' };
    const port = ctx.config.app.port === 0 ? await freePort() : ctx.config.app.port;
    const start = await launch(tree, probeDir, port);
    if (start.ok) {
      await start.app.stop();
      say("the app comes up on the base commit: the agent's change broke it");
      return { ok: true, message: `ready in ${start.readyMs} ms on the base commit`, logTail: '' };
    }
    say(`the app does not come up on the base commit either: ${start.message}`);
    return { ok: false, message: start.message, logTail: 'logTail' in start ? start.logTail : '' };
  } finally {
    const pending = save as BackgroundSave | null;
    if (pending) await pending.finish(finishWithinMs(pending), ctx.signal);
    await removeWorktree(ctx.root, tree);
  }
}
