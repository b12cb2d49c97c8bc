// Phases 4 and 5: the verifier window opens (a filesystem watch from before the app starts until
// everything is stopped), then the app starts and the verifier looks; a verifier that can be held back
// (Playwright) gets ready while the app starts.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { declaredFolders } from '../../../config/app-writes.js';
import { describeError } from '../../../errors.js';
import { resetAppData } from '../../../git/app-data.js';
import { commonGitDir } from '../../../git/git.js';
import { heldObjectsDir } from '../../../git/object-quarantine.js';
import { createOutputParents, watchWindow } from '../../../git/window-watch.js';
import { PROCESS_TAG_ENV } from '../../../process/escaped-processes.js';
import { freePort } from '../../../process/free-port.js';
import { fillPort } from '../../../config/port-placeholder.js';
import { appEnvironment } from '../../app/app-env.js';
import { appSandboxed } from '../../app/app-sandbox.js';
import { secretPathsToHide } from '../../../util/secret-paths.js';
import { blameAppFailure, noteAppReady, type AppLauncher } from '../app-blame.js';
import { startApp } from '../../app/app.js';
import { runsNextDevAt } from '../../app/next-dev-origin.js';
import { statContract } from '../../lock/contract-lock.js';
import { watchLocked } from '../../lock/locked-watch.js';
import { sweepAfterPass } from '../sweep-step.js';
import { processTag } from '../stop-escaped.js';
import { pauseForTest } from '../../test-pause.js';
import { buildVerifyContext } from '../verify-context.js';
import { CONTINUE, type Attempt, type PhaseResult } from '../attempt-state.js';
import { afterAppStart, checkContract } from '../checks.js';
import { attemptPaths } from '../../../evidence/layout.js';

export async function openWindow(attempt: Attempt): Promise<PhaseResult> {
  const { ctx } = attempt;
  // Watched from before the app starts until everything is stopped: a write undone in time is still a write.
  try {
    await createOutputParents(ctx.workspace, ctx.excluded);
    attempt.watch = await watchWindow(ctx.workspace, {
      exclude: ctx.excluded,
      skip: attempt.skip,
      folders: declaredFolders(ctx.appWrites),
    });
  } catch (error) {
    const summary = `the verifier window cannot be watched, so its stability cannot be proved: ${describeError(error)}`;
    return attempt.conclude('INCONCLUSIVE', summary, attempt.before);
  }
  const lockedWatch = watchLocked(ctx.locked, ctx.workspace);
  attempt.lockedWatch = lockedWatch;
  attempt.teardowns.add('stop watching the locked files', async () => void (await lockedWatch.close()));
  // Teardowns run last-in first-out: the app's data goes back once the app and the verifier are stopped.
  attempt.teardowns.add('put the app data back', async () => void (await resetAppData(ctx.workspace, ctx.base, ctx.appWrites)));
  return CONTINUE;
}

export async function appAndVerifier(attempt: Attempt): Promise<PhaseResult> {
  const { ctx, input, record } = attempt;
  attempt.port = ctx.config.app.port === 0 ? await freePort() : ctx.config.app.port;
  attempt.url = fillPort(ctx.config.app.url, attempt.port);
  const verifierDir = attemptPaths(input.dir).verifierDir;
  await startEarlyVerifier(attempt, verifierDir);
  if (ctx.config.app.command) {
    const started = await startTheApp(attempt);
    if (started.next === 'end') return started;
  }
  const overBefore = ctx.budget.gate('verifier');
  if (overBefore) return attempt.end('ERROR', 'BUDGET_EXCEEDED', overBefore);
  const tamperedBefore = await checkContract(ctx);
  if (tamperedBefore.length > 0)
    return attempt.end(
      ...afterAppStart(
        `the contract changed before verification: ${tamperedBefore.join('; ')}`,
        tamperedBefore,
        await runsNextDevAt(ctx.workspace, ctx.config.app.command),
      ),
    );
  attempt.say('verifier', `${ctx.resolved.verifierType} on ${ctx.resolved.testFileLabel} against ${attempt.url}`);
  const early = attempt.early;
  attempt.stampsBefore = early ? early.stamps : await statContract(ctx.locked, ctx.workspace);
  if (!early) await mkdir(verifierDir, { recursive: true });
  const verification = early ? await early.verifier.run() : await ctx.resolved.verifier.verify(verifyContext(attempt, verifierDir));
  record.verifier = {
    status: verification.status,
    summary: verification.summary,
    exitCode: verification.exitCode,
    timedOut: verification.timedOut,
    durationMs: verification.durationMs,
    details: verification.details,
  };
  record.criteria = verification.criteria;
  record.findings = verification.findings;
  const credits = verification.details.verifier === 'kane' ? verification.details.creditsConsumed : null;
  record.cost.kaneCredits = credits;
  ctx.budget.recordVerifier(credits, verification.durationMs);
  const swept = await sweepAfterPass(ctx, record, verification, attempt.url, verifierDir);
  if ('overBudget' in swept) return attempt.end('ERROR', 'BUDGET_EXCEEDED', swept.overBudget);
  if (swept.ran) record.sweep = swept.sweep;
  attempt.verdict = swept.ran
    ? { status: swept.status, summary: swept.summary }
    : { status: verification.status, summary: verification.summary };
  return CONTINUE;
}

function verifyContext(attempt: Attempt, verifierDir: string) {
  const { ctx, input } = attempt;
  return buildVerifyContext({
    config: ctx.config,
    resolved: ctx.resolved,
    cwd: ctx.workspace,
    url: attempt.url,
    baseEnv: ctx.env,
    evidenceDir: verifierDir,
    signal: ctx.signal,
    onProgress: (progress) =>
      ctx.reporter.onEvent({ type: 'verifier', attempt: input.number, verifier: ctx.resolved.verifierType, progress }),
  });
}

/**
 * A verifier that can be held back (Playwright) starts now, inside the watched window, and gets ready
 * (its runner loads and compiles the spec) while the app starts; it looks only once the app is ready
 * and the contract was checked again. The contract's stamps are taken before it reads anything.
 */
async function startEarlyVerifier(attempt: Attempt, verifierDir: string): Promise<void> {
  const { ctx } = attempt;
  if (!ctx.config.app.command || !ctx.resolved.verifier.start) return;
  const stamps = await statContract(ctx.locked, ctx.workspace);
  await mkdir(verifierDir, { recursive: true });
  const starting = ctx.resolved.verifier.start(verifyContext(attempt, verifierDir));
  if (!starting) return;
  const started = await starting;
  attempt.early = { verifier: started, stamps };
  attempt.teardowns.add('stop the verifier started ahead of the app', () => started.abandon());
  attempt.say('verifier', `${ctx.resolved.verifierType} getting ready while the app starts`);
}

/** Starts the app; one that does not come up is the product's failure, unless it is broken on the base commit too. */
async function startTheApp(attempt: Attempt): Promise<PhaseResult> {
  const { ctx, input, record, port, url } = attempt;
  const appCommand = ctx.config.app.command!;
  const command = fillPort(appCommand, port);
  // The run's own commits, held out of the store until it ends (git/object-quarantine.ts): the app may read them.
  const heldObjects = appSandboxed(ctx.config) ? heldObjectsDir(path.join(await commonGitDir(ctx.root), 'objects'), ctx.runId) : null;
  const launch: AppLauncher = (cwd, dir, p) => {
    const at = fillPort(ctx.config.app.url, p);
    const env: NodeJS.ProcessEnv = {
      ...appEnvironment(ctx.config, ctx.env, p, at),
      [PROCESS_TAG_ENV]: processTag(ctx, input.number, 'app'),
    };
    return startApp({
      command: fillPort(appCommand, p),
      url: at,
      cwd,
      env,
      sandbox: appSandboxed(ctx.config) ? { checkout: ctx.root, home: env.HOME, hidden: secretPathsToHide(ctx.env), heldObjects } : null,
      readyTimeoutMs: ctx.config.app.readyTimeoutSeconds * 1000,
      logFile: attemptPaths(dir).appLog,
      signal: ctx.signal,
      onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'app', line }),
    });
  };
  attempt.say('app', `starting \`${command}\`, waiting for ${url}`);
  const start = await launch(ctx.workspace, input.dir, port);
  attempt.checkInterrupted();
  if (!start.ok && start.reason === 'APP_URL_IN_USE') return attempt.end('ERROR', 'APP_URL_IN_USE', start.message);
  if (!start.ok) {
    const logTail = 'logTail' in start ? start.logTail : '';
    record.app = {
      url,
      port,
      command,
      ok: false,
      reason: start.reason,
      message: start.message,
      ...('exitCode' in start ? { exitCode: start.exitCode, logTail } : {}),
    };
    ctx.reporter.onEvent({ type: 'app-failed', attempt: input.number, message: start.message, logTail });
    // No verdict comes from this attempt: the waiting verifier goes before the base commit is tried.
    await attempt.early?.verifier.abandon();
    const blame = await blameAppFailure(ctx, { dir: input.dir, launch, failure: start.message });
    attempt.checkInterrupted();
    if (blame.probe) record.app.baseProbe = blame.probe;
    record.snapshots.after = attempt.before;
    if (blame.onBase) {
      record.status = 'APP_FAILED';
      record.summary = `the app did not start: ${start.message}`;
      return attempt.end('ERROR', 'APP_BROKEN_ON_BASE', blame.message);
    }
    record.appFailure = `${start.message}${logTail ? `\nlast log lines:\n${logTail}` : ''}`;
    return attempt.conclude('FAIL', `the app did not start: ${start.message}`, attempt.before);
  }
  attempt.teardowns.add('stop the app', () => start.app.stop());
  noteAppReady(ctx);
  record.app = { url, port, command, ok: true, readyMs: start.readyMs };
  attempt.say('app', `ready in ${start.readyMs} ms`);
  await pauseForTest('app', ctx.env);
  return CONTINUE;
}
